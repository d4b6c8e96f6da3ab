# oci/: the OCI data model (config.json, state, features, default spec) and
# every use of yajl.  No syscalls beyond reading the file being parsed.
noinst_LIBRARIES += liboci.a
liboci_a_SOURCES = \
	oci/config.h \
	oci/state.h \
	oci/json_writer.h
liboci_a_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
