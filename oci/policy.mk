# oci/policy_file*: the admin policy file (JSON) parser.
