# seccomp-profiles/: OCI-format profiles installed to $(pkgdatadir).  The
# install line for agent-default.json is in runtime/seccomp/local.mk, next to the
# code that compiles it.
EXTRA_DIST += seccomp-profiles/README.md
