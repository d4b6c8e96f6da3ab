#!/usr/bin/env bats
# hack/try.sh, the first command README.md gives: from a checkout with
# nothing installed it shows what the hardening changes in its busybox
# bundle, runs the command hardened and exits with its status, leaving
# nothing behind.

load helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
TRY=$TOP/hack/try.sh

@test "hack/try.sh: policy explain, then the command, hardened, with its exit status" {
  requires agentrt root
  run env RUNTIME="$RUNTIME" TMPDIR="$BATS_TEST_TMPDIR" "$TRY" sh -c \
    'id -u; grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status; touch /bin/x 2>&1; exit 3' </dev/null
  check_status 3
  # policy explain: the changes, then the directives for the runtime
  has_line "changes:"
  [[ $output == *'"rootfs": "readonly"'* ]] || fail "no policy explain in: $output"
  [[ $output == *"seccomp: $TOP/seccomp-profiles/agent-default.json"* ]] || fail "not the source tree's profile: $output"
  # the command ran hardened
  [[ $output == *$'NoNewPrivs:\t1'* && $output == *$'Seccomp:\t2'* ]] || fail "$output"
  [[ $output == *"Read-only file system"* ]] || fail "the root was writable: $output"
  # everything it made lived in its temporary dir, and is gone (the
  # busybox rootfs cache next to it is kept on purpose)
  [[ -z $(compgen -G "$BATS_TEST_TMPDIR/agentrt-try.*") ]] || fail "left: $(ls -A "$BATS_TEST_TMPDIR")"
  [[ -z $(mounts_under "$BATS_TEST_TMPDIR") ]] || fail "mounts left: $(mounts_under "$BATS_TEST_TMPDIR")"
}
