#!/usr/bin/env bats
# The errors a newcomer meets first, as agentrt prints them: one line that
# names the layer and the field, then what to do (runtime/cli/cli_hint.c).  A
# reworded message that loses its fix fails here.

load helpers
load helpers/hardening

# one_error NEEDLE...: the last command failed (status 1) with one line,
# holding every NEEDLE.
one_error ()
{
  check_status 1
  [[ ${#lines[@]} -eq 1 ]] || fail "not one line: $output"
  local n
  for n in "$@"; do
    [[ $output == *"$n"* ]] || fail "no '$n' in: $output"
  done
}

@test "errors: not root: run it as root" {
  requires agentrt root
  hardening_policy
  run setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$RUNTIME" --root "$BATS_TEST_TMPDIR/state-nobody" --policy "$POLICY" run --bundle "$BUNDLE" "$CT_ID"
  one_error "Permission denied" "; as a user other than root agentrt runs bundles with a user namespace" \
    "agentrt spec --rootless" "run it as root"
}

@test "errors: the seccomp profile is not where the policy says: make install, or seccomp.profile" {
  requires agentrt
  hardening_policy '.seccomp.profile = "/nonexistent/agent-default.json"'
  rt run --bundle "$BUNDLE" "$CT_ID"
  one_error "agent seccomp profile: open seccomp profile \`/nonexistent/agent-default.json\`: No such file or directory" \
    "; \`make install\` (or the Debian package) puts agentrt's profile in /" \
    "seccomp-profiles/agent-default.json in the policy's seccomp.profile"
}

@test "errors: a bundle without its root filesystem: root.path, unpack an image there" {
  requires agentrt root
  hardening_policy
  update_config '.root.path = "no-such-rootfs"'
  rt run --bundle "$BUNDLE" "$CT_ID"
  one_error "root.path: \`$BUNDLE/no-such-rootfs\`: No such file or directory" "unpack an image there"
}

@test "errors: a directory without config.json: --bundle, agentrt spec" {
  requires agentrt
  hardening_policy
  mkdir -p "$BATS_TEST_TMPDIR/empty"
  rt run --bundle "$BATS_TEST_TMPDIR/empty" "$CT_ID"
  one_error "config.json\`: No such file or directory" "--bundle DIR names the directory holding config.json" \
    "\`agentrt spec\` writes a default one"
}

@test "errors: a policy typo names the field and the one meant" {
  requires agentrt
  hardening_policy '.limits.memroy = "1g"'
  rt policy explain --bundle "$BUNDLE"
  one_error "admin policy: $POLICY: limits.memroy: unknown field (did you mean memory?)" \
    "man agentrt-policy lists the fields"
  hardening_policy '.limts = {}'
  rt policy explain --bundle "$BUNDLE"
  one_error "limts: unknown field (did you mean limits?)"
}

@test "errors: an annotation typo names it and the one meant" {
  requires agentrt
  hardening_policy
  add_annotation run.agentrt.egres none
  rt policy explain --bundle "$BUNDLE"
  one_error "hardening: unknown annotation \`run.agentrt.egres\` (did you mean run.agentrt.egress?)" \
    "man agentrt-policy lists the run.agentrt.* annotations"
}

@test "errors: --policy names a file that is not there: what agentrt does without one, the example" {
  requires agentrt
  use_policy "$BATS_TEST_TMPDIR/etc/agentrt/policy.json"
  rt policy explain --bundle "$BUNDLE"
  one_error "admin policy: open policy \`$BATS_TEST_TMPDIR/etc/agentrt/policy.json\`: No such file or directory" \
    "without --policy agentrt reads /etc/agentrt/policy.json when it exists, else uses its built-in defaults" \
    "/policy.example.json"
}

@test "errors: the sidecar is not installed: make install, or no egress" {
  requires agentrt root
  [[ ! -e $(strings "$RUNTIME" | grep -m 1 '/libexec/agentrt$')/agentrt-egress ]] \
    || skip "an agentrt-egress is installed where agentrt looks first"
  hardening_policy
  # agentrt alone, without the agentrt-egress that is next to it in the build
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  cp "$RUNTIME" "$BATS_TEST_TMPDIR/bin/agentrt"
  run "$BATS_TEST_TMPDIR/bin/agentrt" --root "$ROOT" --policy "$POLICY" run --bundle "$BUNDLE" "$CT_ID" </dev/null
  one_error "start the egress sidecar: agentrt-egress not found" "agentrt-egress is neither in /" \
    "run.agentrt.egress=none needs none"
}

@test "errors: a container that is there already, or not at all; an unknown option" {
  requires agentrt root
  hardening_policy
  start_ct
  rt create --bundle "$BUNDLE" "$CT_ID"
  one_error "container with id exists: $CT_ID" "\`agentrt delete --force ID\` removes the old one"
  rt state no-such-container
  one_error "container \`no-such-container\` does not exist" "\`agentrt list\` shows the containers under --root"
  rt exec --bogus "$CT_ID" true
  one_error "exec: unknown option \`--bogus\`" "\`agentrt help exec\` lists its options"
  rt no-such-command
  one_error "unknown command \`no-such-command\` (\`agentrt help\` lists them)"
}
