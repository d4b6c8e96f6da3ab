# runtime/policy/: the pure hardening step and the admin policy model.
