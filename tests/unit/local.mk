# tests/unit/: unit tests of common/ (each area lists its own tests in its
# local.mk fragment).
check_PROGRAMS += tests/unit/test-common-io
TESTS += tests/unit/test-common-io
tests_unit_test_common_io_SOURCES = tests/unit/test-common-io.c
tests_unit_test_common_io_LDADD = libcommon.a
check_PROGRAMS += tests/unit/test-common-real-path
TESTS += tests/unit/test-common-real-path
tests_unit_test_common_real_path_SOURCES = tests/unit/test-common-real-path.c
tests_unit_test_common_real_path_LDADD = libcommon.a
