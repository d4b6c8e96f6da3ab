# oci/policy_file*: the admin policy file (JSON) parser and writer, on
# oci/'s JSON tree, and the hardening record stored with a container.
noinst_LIBRARIES += libpolicyfile.a
libpolicyfile_a_SOURCES = oci/policy_file.c oci/policy_file.h \
	oci/policy_ask.c oci/policy_credentials.c \
	oci/policy_write.c \
	oci/hardening_record.c oci/hardening_record.h
libpolicyfile_a_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
