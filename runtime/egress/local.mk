# runtime/egress/: the egress proxy sidecar.
