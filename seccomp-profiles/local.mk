# seccomp-profiles/: OCI-format profiles installed to $(pkgdatadir).
