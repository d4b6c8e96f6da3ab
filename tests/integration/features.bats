#!/usr/bin/env bats
# features: the runtime-spec features document.

load helpers

@test "features: valid JSON with the spec's top-level fields" {
  run "$RUNTIME" features
  check_status 0
  jq -e . <<<"$output" >/dev/null
  [[ $(jq -r .ociVersionMin <<<"$output") =~ ^1\.[0-9]+\.[0-9]+ ]]
  [[ $(jq -r .ociVersionMax <<<"$output") =~ ^1\.[0-9]+\.[0-9]+ ]]
  jq -e '.mountOptions | type == "array" and length > 0' <<<"$output" >/dev/null
}

@test "features: all six hook kinds" {
  run "$RUNTIME" features
  check_status 0
  for h in prestart createRuntime createContainer startContainer poststart poststop; do
    jq -e --arg h "$h" '.hooks | index($h)' <<<"$output" >/dev/null || fail "no $h"
  done
}

@test "features: namespaces, capabilities, cgroup and seccomp sections" {
  run "$RUNTIME" features
  check_status 0
  for ns in cgroup ipc mount network pid user uts; do
    jq -e --arg n "$ns" '.linux.namespaces | index($n)' <<<"$output" >/dev/null || fail "no $ns"
  done
  jq -e '.linux.capabilities | index("CAP_SYS_ADMIN")' <<<"$output" >/dev/null
  jq -e '.linux.cgroup | has("v1") and has("v2")' <<<"$output" >/dev/null
  jq -e '.linux.seccomp.enabled == true' <<<"$output" >/dev/null
  for a in SCMP_ACT_ALLOW SCMP_ACT_ERRNO SCMP_ACT_KILL SCMP_ACT_NOTIFY; do
    jq -e --arg a "$a" '.linux.seccomp.actions | index($a)' <<<"$output" >/dev/null || fail "no $a"
  done
  jq -e '.linux.seccomp.operators | index("SCMP_CMP_MASKED_EQ")' <<<"$output" >/dev/null
  jq -e '.linux.seccomp.archs | index("SCMP_ARCH_X86_64")' <<<"$output" >/dev/null
}

@test "features: mount options include the propagation and recursive forms" {
  run "$RUNTIME" features
  check_status 0
  for o in bind rbind ro nosuid nodev noexec rprivate rshared rslave; do
    jq -e --arg o "$o" '.mountOptions | index($o)' <<<"$output" >/dev/null || fail "no $o"
  done
}

@test "features: agentrt supports time namespaces and spec 1.2 or later" {
  requires agentrt
  run "$RUNTIME" features
  check_status 0
  jq -e '.linux.namespaces | index("time")' <<<"$output" >/dev/null
  [[ $(jq -r .ociVersionMax <<<"$output") =~ ^1\.(2|3)\. ]]
}
