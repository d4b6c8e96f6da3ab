# oci/policy_file*: the admin policy file (JSON) parser, on oci/'s JSON tree.
noinst_LIBRARIES += libpolicyfile.a
libpolicyfile_a_SOURCES = oci/policy_file.c oci/policy_file.h
libpolicyfile_a_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
