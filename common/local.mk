# common/: the error type, cleanup helpers and small pure utilities.
noinst_LIBRARIES += libcommon.a
libcommon_a_SOURCES = \
	common/cleanup.h \
	common/closest.c common/closest.h \
	common/error.c common/error.h \
	common/io.c common/io.h \
	common/mountinfo.c common/mountinfo.h \
	common/openat2.c common/openat2.h \
	common/real_path.c common/real_path.h \
	common/tally.c common/tally.h \
	common/timestamp.c common/timestamp.h \
	common/xalloc.c common/xalloc.h
