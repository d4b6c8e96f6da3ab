#!/usr/bin/env bats
# features: the runtime-spec features document.

load helpers

setup_file ()
{
  FEATURES=$("$RUNTIME" features) || FEATURES=
  export FEATURES
}

setup ()
{
  :
}

teardown ()
{
  :
}

# lacks JQ-PATH ITEM...: prints the ITEMs missing from the array at JQ-PATH
# of the features document (nothing when all are there).
lacks ()
{
  local path=$1
  shift
  jq -r "$path // [] | . as \$have | \$ARGS.positional - \$have | .[]" --args -- "$@" <<<"$FEATURES"
}

@test "features: valid JSON with the spec's top-level fields" {
  run "$RUNTIME" features
  check_status 0
  jq -e '(.ociVersionMin | test("^1\\.[0-9]+\\.[0-9]+")) and (.ociVersionMax | test("^1\\.[0-9]+\\.[0-9]+"))
    and (.mountOptions | type == "array" and length > 0)' <<<"$output" >/dev/null || fail "$output"
}

@test "features: all six hook kinds" {
  missing=$(lacks .hooks prestart createRuntime createContainer startContainer poststart poststop)
  [[ -z $missing ]] || fail "missing: $missing"
}

@test "features: namespaces, capabilities, cgroup and seccomp sections" {
  missing=$(lacks .linux.namespaces cgroup ipc mount network pid user uts)
  missing+=$(lacks .linux.capabilities CAP_SYS_ADMIN CAP_KILL CAP_CHOWN)
  missing+=$(lacks .linux.seccomp.actions SCMP_ACT_ALLOW SCMP_ACT_ERRNO SCMP_ACT_KILL SCMP_ACT_NOTIFY)
  missing+=$(lacks .linux.seccomp.operators SCMP_CMP_EQ SCMP_CMP_MASKED_EQ)
  missing+=$(lacks .linux.seccomp.archs SCMP_ARCH_X86_64)
  [[ -z $missing ]] || fail "missing: $missing"
  jq -e '(.linux.cgroup | has("v1") and has("v2")) and .linux.seccomp.enabled == true' <<<"$FEATURES" >/dev/null
}

@test "features: mount options include the propagation and recursive forms" {
  missing=$(lacks .mountOptions bind rbind ro nosuid nodev noexec rprivate rshared rslave)
  [[ -z $missing ]] || fail "missing: $missing"
}

@test "features: agentrt supports time namespaces and spec 1.2 or later" {
  requires agentrt
  missing=$(lacks .linux.namespaces time)
  [[ -z $missing ]] || fail "missing: $missing"
  [[ $(jq -r .ociVersionMax <<<"$FEATURES") =~ ^1\.(2|3)\. ]]
}

@test "features: agentrt lists every linux.memoryPolicy mode and flag (it applies them)" {
  requires agentrt
  missing=$(lacks .linux.memoryPolicy.modes MPOL_DEFAULT MPOL_BIND MPOL_INTERLEAVE \
    MPOL_WEIGHTED_INTERLEAVE MPOL_PREFERRED MPOL_PREFERRED_MANY MPOL_LOCAL)
  missing+=$(lacks .linux.memoryPolicy.flags MPOL_F_NUMA_BALANCING MPOL_F_RELATIVE_NODES MPOL_F_STATIC_NODES)
  [[ -z $missing ]] || fail "missing: $missing"
}
