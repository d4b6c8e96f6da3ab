# runtime/seccomp/: compiling and loading seccomp filters, and agentrt's own
# profile.  (libseccomp.a is the system library's name: ours is
# libseccompfilter.a.)
noinst_LIBRARIES += libseccompfilter.a
libseccompfilter_a_SOURCES = \
	runtime/seccomp/seccomp.c runtime/seccomp/seccomp.h \
	runtime/seccomp/seccomp_enosys.c runtime/seccomp/seccomp_enosys.h \
	runtime/seccomp/seccomp_asm.c runtime/seccomp/seccomp_asm.h \
	runtime/seccomp/seccomp_ranges.c runtime/seccomp/seccomp_ranges.h \
	runtime/seccomp/seccomp_load.c runtime/seccomp/seccomp_load.h \
	runtime/seccomp/seccomp_notify.c runtime/seccomp/seccomp_notify.h \
	runtime/seccomp/seccomp_cache.c runtime/seccomp/seccomp_cache.h \
	runtime/seccomp/seccomp_key.c runtime/seccomp/seccomp_key.h
libseccompfilter_a_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)

dist_pkgdata_DATA += seccomp-profiles/agent-default.json

# Unit tests.  The load tests fork children that install filters: no root
# needed (they set no_new_privs).
seccomp_test_ldadd = libseccompfilter.a liboci.a libcommon.a \
	$(SECCOMP_LIBS) $(YAJL_LIBS)
seccomp_test_cppflags = $(AM_CPPFLAGS) \
	-DSECCOMP_PROFILE_DIR='"$(top_srcdir)/seccomp-profiles"'
seccomp_tests = tests/unit/test-seccomp-compile tests/unit/test-seccomp-load \
	tests/unit/test-seccomp-cache tests/unit/test-seccomp-notify \
	tests/unit/test-seccomp-ranges
check_PROGRAMS += $(seccomp_tests)
TESTS += $(seccomp_tests)
tests_unit_test_seccomp_compile_SOURCES = tests/unit/test-seccomp-compile.c \
	tests/unit/seccomp_test.h
tests_unit_test_seccomp_compile_CPPFLAGS = $(seccomp_test_cppflags)
tests_unit_test_seccomp_compile_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
tests_unit_test_seccomp_compile_LDADD = $(seccomp_test_ldadd)
tests_unit_test_seccomp_ranges_SOURCES = tests/unit/test-seccomp-ranges.c \
	tests/unit/seccomp_test.h
tests_unit_test_seccomp_ranges_CPPFLAGS = $(seccomp_test_cppflags)
tests_unit_test_seccomp_ranges_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
tests_unit_test_seccomp_ranges_LDADD = $(seccomp_test_ldadd)
tests_unit_test_seccomp_load_SOURCES = tests/unit/test-seccomp-load.c
tests_unit_test_seccomp_load_CPPFLAGS = $(seccomp_test_cppflags)
tests_unit_test_seccomp_load_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
tests_unit_test_seccomp_load_LDADD = $(seccomp_test_ldadd) -lpthread
tests_unit_test_seccomp_cache_SOURCES = tests/unit/test-seccomp-cache.c
tests_unit_test_seccomp_cache_CPPFLAGS = $(seccomp_test_cppflags) \
	-DENGINE_PROFILE_DIR='"$(top_srcdir)/hack/bench/engines"'
tests_unit_test_seccomp_cache_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
tests_unit_test_seccomp_cache_LDADD = $(seccomp_test_ldadd)
tests_unit_test_seccomp_notify_SOURCES = tests/unit/test-seccomp-notify.c
tests_unit_test_seccomp_notify_LDADD = $(seccomp_test_ldadd)
