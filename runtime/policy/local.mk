# runtime/policy/: the pure hardening step (harden.h) and the admin policy
# model (policy.h); host_view.c and host_facts.c are the files with I/O
# (the real host view the runtime passes).  Depends on liboci.a (config
# helpers, JSON writer) and libegress.a (allowlist syntax).
noinst_LIBRARIES += libpolicy.a
libpolicy_a_SOURCES = \
	runtime/policy/annotations.c runtime/policy/annotations.h \
	runtime/policy/bind_rules.h \
	runtime/policy/bind_scan.c \
	runtime/policy/binds.c runtime/policy/binds.h \
	runtime/policy/changes.c runtime/policy/changes.h \
	runtime/policy/credentials.c runtime/policy/credentials.h \
	runtime/policy/device_allow.c runtime/policy/device_allow.h \
	runtime/policy/egress_ask.c runtime/policy/egress_ask.h \
	runtime/policy/egress_policy.c runtime/policy/egress_policy.h \
	runtime/policy/env_names.c runtime/policy/env_names.h \
	runtime/policy/env_scrub.c runtime/policy/env_scrub.h \
	runtime/policy/env_values.c runtime/policy/env_values.h \
	runtime/policy/fs_mounts.c runtime/policy/fs_mounts.h \
	runtime/policy/harden.c runtime/policy/harden.h \
	runtime/policy/kernel_surface.c runtime/policy/kernel_surface.h \
	runtime/policy/net_plan.c runtime/policy/net_plan.h \
	runtime/policy/host_facts.c runtime/policy/host_facts.h \
	runtime/policy/host_paths.c runtime/policy/host_paths.h \
	runtime/policy/host_view.c runtime/policy/host_view.h \
	runtime/policy/paths.c runtime/policy/paths.h \
	runtime/policy/persistence.c \
	runtime/policy/policy.c runtime/policy/policy.h \
	runtime/policy/policy_layer.c runtime/policy/policy_layer.h \
	runtime/policy/privileges.c runtime/policy/privileges.h \
	runtime/policy/tmpfs.c runtime/policy/tmpfs.h \
	runtime/policy/unprivileged.c runtime/policy/unprivileged.h \
	runtime/policy/userns_auto.c runtime/policy/userns_auto.h

# What a program using the hardening step links, in order.
POLICY_LIBS = libpolicyfile.a libpolicy.a libegress.a liboci.a libcommon.a \
	$(YAJL_LIBS)

POLICY_TESTS = \
	tests/unit/test-policy-credentials \
	tests/unit/test-policy-env \
	tests/unit/test-policy-annotations \
	tests/unit/test-policy-ask \
	tests/unit/test-policy-binds \
	tests/unit/test-policy-harden \
	tests/unit/test-policy-netplan \
	tests/unit/test-policy-file \
	tests/unit/test-policy-layer \
	tests/unit/test-policy-unprivileged \
	tests/unit/test-policy-userns \
	tests/unit/test-policy-record \
	tests/unit/test-policy-hostview \
	tests/unit/test-policy-paths
check_PROGRAMS += $(POLICY_TESTS)
TESTS += $(POLICY_TESTS)
EXTRA_DIST += tests/unit/policy-fakehost.h docs/policy.md \
	docs/policy.example.json \
	tests/fuzz/fuzz-policy-file.c tests/fuzz/fuzz-annotations.c \
	tests/fuzz/corpus/policy tests/fuzz/corpus/annotations
tests_unit_test_policy_credentials_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_env_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_annotations_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_ask_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_binds_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_harden_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_netplan_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_file_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_layer_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_unprivileged_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_userns_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_record_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_hostview_LDADD = $(POLICY_LIBS)
tests_unit_test_policy_paths_LDADD = $(POLICY_LIBS)
