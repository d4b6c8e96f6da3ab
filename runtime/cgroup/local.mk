# runtime/cgroup/: cgroup v1, v2, hybrid and systemd management, and the
# v2 device eBPF program (bpf_devices.c).  The agentrt binary links
# libcgroup.a (with $(SYSTEMD_LIBS)).
noinst_LIBRARIES += libcgroup.a
libcgroup_a_SOURCES = \
	runtime/cgroup/cgroup.h runtime/cgroup/cgroup_internal.h \
	runtime/cgroup/cgroup.c \
	runtime/cgroup/cgroup_layout.c \
	runtime/cgroup/cgroup_path.c \
	runtime/cgroup/cgroup_fs.c \
	runtime/cgroup/cgroup_create.c \
	runtime/cgroup/cgroup_delegation.c \
	runtime/cgroup/cgroup_resources.c \
	runtime/cgroup/cgroup_cpu.c \
	runtime/cgroup/cgroup_resources_io.c \
	runtime/cgroup/cgroup_devices.c \
	runtime/cgroup/cgroup_signal.c \
	runtime/cgroup/cgroup_stats.c \
	runtime/cgroup/cgroup_watch.c \
	runtime/cgroup/cgroup_systemd.c \
	runtime/cgroup/bpf_devices.c runtime/cgroup/bpf_devices.h \
	runtime/cgroup/sdbus_dl.c runtime/cgroup/sdbus_dl.h
libcgroup_a_CFLAGS = $(AM_CFLAGS) $(SYSTEMD_CFLAGS)

CGROUP_TEST_LIBS = libcgroup.a liboci.a libcommon.a $(YAJL_LIBS) $(SYSTEMD_LIBS)

# Unit tests: layout/path rules (pure), the device eBPF generator, v2 file
# formats on a fake tree, and the real v1/hybrid hierarchies (root only;
# they skip with the reason otherwise).
CGROUP_TESTS = \
	tests/unit/test-cgroup-layout \
	tests/unit/test-cgroup-bpf \
	tests/unit/test-cgroup-v2 \
	tests/unit/test-cgroup-host \
	tests/unit/test-cgroup-systemd \
	tests/unit/test-cgroup-delegation
check_PROGRAMS += $(CGROUP_TESTS)
TESTS += $(CGROUP_TESTS)
tests_unit_test_cgroup_layout_LDADD = $(CGROUP_TEST_LIBS)
tests_unit_test_cgroup_bpf_LDADD = $(CGROUP_TEST_LIBS)
tests_unit_test_cgroup_v2_LDADD = $(CGROUP_TEST_LIBS)
tests_unit_test_cgroup_host_LDADD = $(CGROUP_TEST_LIBS)
tests_unit_test_cgroup_systemd_LDADD = $(CGROUP_TEST_LIBS)
tests_unit_test_cgroup_delegation_LDADD = $(CGROUP_TEST_LIBS)
tests_unit_test_cgroup_systemd_CFLAGS = $(AM_CFLAGS) $(SYSTEMD_CFLAGS)
