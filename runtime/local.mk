# runtime/: the CLI and the container machinery.
noinst_LIBRARIES += libruntime.a
libruntime_a_SOURCES = \
	runtime/cli.c runtime/cli.h
libruntime_a_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(CAP_CFLAGS) \
	$(SELINUX_CFLAGS) $(SYSTEMD_CFLAGS)

bin_PROGRAMS += agentrt
agentrt_SOURCES = runtime/main.c
agentrt_LDADD = libruntime.a liboci.a libcommon.a \
	$(YAJL_LIBS) $(SECCOMP_LIBS) $(CAP_LIBS) $(SELINUX_LIBS) $(SYSTEMD_LIBS)
