# runtime/cgroup*: cgroup v1, v2, hybrid and systemd management.
