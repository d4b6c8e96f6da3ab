# runtime/seccomp*: compiling and loading seccomp filters.
