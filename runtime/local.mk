# runtime/: the CLI (one file per verb) and the container machinery (one
# file per concern).  cgroup*, seccomp*, policy/ and egress/ have their own
# fragments.
noinst_LIBRARIES += libruntime.a
libruntime_a_SOURCES = \
	runtime/audit.c runtime/audit.h \
	runtime/audit_open.c runtime/audit_open.h \
	runtime/audit_scan.c runtime/audit_scan.h \
	runtime/audit_summary.c runtime/audit_summary.h \
	runtime/audit_summary_format.c runtime/audit_summary_format.h \
	runtime/caps.c runtime/caps.h \
	runtime/child_error.c runtime/child_error.h \
	runtime/cli/cli.c runtime/cli/cli.h \
	runtime/cli/cli_help.c runtime/cli/cli_help.h \
	runtime/cli/cli_hint.c runtime/cli/cli_hint.h \
	runtime/cloned_binary.c runtime/cloned_binary.h \
	runtime/cli/cmd_create.c runtime/cli/cmd_create_options.c \
	runtime/cli/cmd_create_options.h runtime/cli/cmd_list.c runtime/cli/cmd_run.c \
	runtime/cli/cmd_simple.c runtime/cli/commands.h \
	runtime/cli/cmd_approve.c \
	runtime/cli/cmd_audit.c runtime/cli/cmd_events.c runtime/cli/cmd_exec.c \
	runtime/cli/cmd_features.c runtime/cli/cmd_pause.c runtime/cli/cmd_policy.c \
	runtime/cli/cmd_ps.c runtime/cli/cmd_spec.c runtime/cli/cmd_update.c \
	runtime/container.h runtime/container_create.c runtime/container_io.c \
	runtime/container_ops.c \
	runtime/create_ctx.c runtime/create_ctx.h runtime/create_init.c \
	runtime/create_monitor.c runtime/create_state.c \
	runtime/create_credentials.c \
	runtime/credential_read.c runtime/credential_read.h \
	runtime/container_exec.c runtime/container_exec.h \
	runtime/exec_process.c runtime/exec_process.h \
	runtime/exec_stub.h runtime/exec_stub_memfd.c \
	runtime/copyup.c runtime/copyup.h \
	runtime/create_plan.c runtime/create_plan.h \
	runtime/devices.c runtime/devices.h \
	runtime/fault.c runtime/fault.h \
	runtime/hardening.c runtime/hardening.h \
	runtime/hooks.c runtime/hooks.h \
	runtime/init.c runtime/init.h \
	runtime/id_list.c runtime/id_list.h \
	runtime/idmap.c runtime/idmap.h \
	runtime/idrange.c runtime/idrange.h \
	runtime/idrange_store.c runtime/idrange_store.h \
	runtime/log.c runtime/log.h \
	runtime/lsm_selinux.c runtime/lsm_selinux.h \
	runtime/mempolicy.c runtime/mempolicy.h \
	runtime/monitor.c runtime/monitor.h \
	runtime/monitor_duties.c runtime/monitor_duties.h \
	runtime/monitor_sidecar.c runtime/monitor_sidecar.h \
	runtime/approver_connect.c runtime/approver_connect.h \
	runtime/mount_idmap.c runtime/mount_idmap.h \
	runtime/mount_plan.c runtime/mount_plan.h \
	runtime/overlay_layers.c runtime/overlay_layers.h \
	runtime/namespaces.c runtime/namespaces.h \
	runtime/netns.c runtime/netns.h \
	runtime/netns_rules.c runtime/netns_rules.h \
	runtime/nft_batch.c runtime/nft_batch.h \
	runtime/path_resolve.c runtime/path_resolve.h \
	runtime/pidns.c runtime/pidns.h \
	runtime/proc_util.c runtime/proc_util.h \
	runtime/process_setup.c runtime/process_setup.h \
	runtime/process_stage.c runtime/process_stage.h \
	runtime/rootfs.c runtime/rootfs.h \
	runtime/rootless.c runtime/rootless.h \
	runtime/shared_netns.c runtime/shared_netns.h \
	runtime/spawn.c runtime/spawn.h \
	runtime/userns.c runtime/userns.h \
	runtime/state_store.c runtime/state_store.h \
	runtime/supervise.c runtime/supervise.h \
	runtime/sync.c runtime/sync.h
nodist_libruntime_a_SOURCES = runtime/exec_stub_image.c

# The exec stub: static, no libc, stripped, embedded as a byte array.
noinst_PROGRAMS = runtime/agentrt-exec-stub
runtime_agentrt_exec_stub_SOURCES = runtime/exec_stub.c
runtime_agentrt_exec_stub_CFLAGS = -Os -fno-stack-protector -fno-pie \
	-fno-asynchronous-unwind-tables -fno-builtin
runtime_agentrt_exec_stub_LDFLAGS = -static -nostdlib -no-pie -s \
	-Wl,--build-id=none -Wl,-z,noexecstack

runtime/exec_stub_image.c: runtime/agentrt-exec-stub$(EXEEXT)
	$(AM_V_GEN){ \
	  echo '/* Generated from runtime/exec_stub.c by the build. */'; \
	  echo '#include "runtime/exec_stub.h"'; \
	  echo 'const unsigned char exec_stub_image[] = {'; \
	  od -An -v -tx1 $< | sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const size_t exec_stub_image_size = sizeof exec_stub_image;'; \
	} > $@-t && mv $@-t $@
BUILT_SOURCES = runtime/exec_stub_image.c
CLEANFILES = runtime/exec_stub_image.c

libruntime_a_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(CAP_CFLAGS) \
	$(SELINUX_CFLAGS) $(SYSTEMD_CFLAGS)

bin_PROGRAMS += agentrt
agentrt_SOURCES = runtime/main.c
agentrt_LDADD = libruntime.a libcgroup.a libseccompfilter.a libpolicy.a \
	libpolicyfile.a libegress.a liboci.a libcommon.a \
	$(YAJL_LIBS) $(SECCOMP_LIBS) $(CAP_LIBS)

# Unit tests of the runtime's pure parts and of path resolution (no root).
RUNTIME_TEST_LIBS = libruntime.a libcgroup.a libseccompfilter.a libpolicy.a \
	libpolicyfile.a libegress.a liboci.a libcommon.a \
	$(YAJL_LIBS) $(SECCOMP_LIBS) $(CAP_LIBS)
runtime_tests = tests/unit/test-runtime-paths tests/unit/test-runtime-plan \
	tests/unit/test-runtime-sync tests/unit/test-runtime-mempolicy \
	tests/unit/test-runtime-audit tests/unit/test-runtime-hint \
	tests/unit/test-runtime-audit-summary tests/unit/test-runtime-idmap \
	tests/unit/test-runtime-idrange tests/unit/test-runtime-credential-read \
	tests/unit/test-runtime-nft-batch tests/unit/test-runtime-overlay-layers
check_PROGRAMS += $(runtime_tests)
TESTS += $(runtime_tests)
tests_unit_test_runtime_paths_SOURCES = tests/unit/test-runtime-paths.c
tests_unit_test_runtime_paths_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_plan_SOURCES = tests/unit/test-runtime-plan.c
tests_unit_test_runtime_plan_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_sync_SOURCES = tests/unit/test-runtime-sync.c
tests_unit_test_runtime_sync_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_nft_batch_SOURCES = tests/unit/test-runtime-nft-batch.c
tests_unit_test_runtime_nft_batch_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_overlay_layers_SOURCES = tests/unit/test-runtime-overlay-layers.c
tests_unit_test_runtime_overlay_layers_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_mempolicy_SOURCES = tests/unit/test-runtime-mempolicy.c
tests_unit_test_runtime_mempolicy_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_audit_SOURCES = tests/unit/test-runtime-audit.c
tests_unit_test_runtime_audit_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_hint_SOURCES = tests/unit/test-runtime-hint.c
tests_unit_test_runtime_hint_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_audit_summary_SOURCES = \
	tests/unit/test-runtime-audit-summary.c
tests_unit_test_runtime_audit_summary_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_idmap_SOURCES = tests/unit/test-runtime-idmap.c
tests_unit_test_runtime_idmap_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_idrange_SOURCES = tests/unit/test-runtime-idrange.c
tests_unit_test_runtime_idrange_LDADD = $(RUNTIME_TEST_LIBS)
tests_unit_test_runtime_credential_read_SOURCES = tests/unit/test-runtime-credential-read.c
tests_unit_test_runtime_credential_read_LDADD = $(RUNTIME_TEST_LIBS)
