# oci/: the OCI data model (config.json, state, features, default spec) and
# every use of yajl.  No syscalls beyond reading the file being parsed.
# Sources here include autoconf's header as <config.h>: a quoted "config.h"
# would find oci/config.h (the OCI model) next to them first.
noinst_LIBRARIES += liboci.a
liboci_a_SOURCES = \
	oci/ask_line.c oci/ask_line.h \
	oci/ask_msg.c \
	oci/config.h \
	oci/config_parse.h \
	oci/config_parse.c \
	oci/config_parse_linux.c \
	oci/config_parse_mounts.c \
	oci/config_parse_process.c \
	oci/config_parse_resources.c \
	oci/config_parse_seccomp.c \
	oci/config_parse_util.c \
	oci/config_free.c \
	oci/config_util.c \
	oci/config_write.c oci/config_write.h \
	oci/config_write_linux.c \
	oci/config_write_resources.c \
	oci/features.c oci/features.h \
	oci/audit_record.c oci/audit_record.h \
	oci/json_access.c \
	oci/json_tree.c oci/json_tree.h \
	oci/json_writer.c oci/json_writer.h \
	oci/spec_default.c oci/spec_default.h \
	oci/state.c oci/state.h \
	oci/utf8.c oci/utf8.h
liboci_a_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)

# Unit tests of oci/ (the realistic configs they read are the fuzz corpus).
OCI_LIBS = liboci.a libcommon.a $(YAJL_LIBS)
OCI_TESTS = \
	tests/unit/test-oci-config \
	tests/unit/test-oci-corpus \
	tests/unit/test-oci-json \
	tests/unit/test-oci-spec \
	tests/unit/test-oci-state
check_PROGRAMS += $(OCI_TESTS)
TESTS += $(OCI_TESTS)
EXTRA_DIST += tests/fuzz/fuzz-config.c tests/fuzz/corpus/config
tests_unit_test_oci_config_LDADD = $(OCI_LIBS)
tests_unit_test_oci_corpus_LDADD = $(OCI_LIBS)
tests_unit_test_oci_json_LDADD = $(OCI_LIBS)
tests_unit_test_oci_spec_LDADD = $(OCI_LIBS)
tests_unit_test_oci_state_LDADD = $(OCI_LIBS)
OCI_CORPUS_CPPFLAGS = $(AM_CPPFLAGS) \
	-DOCI_CORPUS_DIR='"$(top_srcdir)/tests/fuzz/corpus/config"'
tests_unit_test_oci_corpus_CPPFLAGS = $(OCI_CORPUS_CPPFLAGS)
tests_unit_test_oci_spec_CPPFLAGS = $(OCI_CORPUS_CPPFLAGS)
