#!/usr/bin/env bats
# hack/try.sh, the first command README.md gives: from a checkout it
# installs what is missing (hack/deps.sh, the step hack/test.sh shares),
# shows in a few lines what the hardening changed in its busybox bundle,
# runs the command hardened and exits with its status, leaving nothing
# behind; --demo plays an agent's work and attacks in one sandbox, each
# blocked under agentrt and getting through under runc (the control).

load helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
TRY=$TOP/hack/try.sh

# try ARGS...: hack/try.sh against the runtime under test, its temporary
# files in this test's directory (the busybox rootfs from the suite's cache).
try ()
{
  try_with RUNTIME="$RUNTIME" "$TRY" "$@"
}

# try_with VAR=VALUE... ARGS...: the same with more environment.
try_with ()
{
  local cache
  cache=$(rootfs_cache) || return 1
  run env AGENTRT_ROOTFS_CACHE="${cache%/rootfs}" TMPDIR="$BATS_TEST_TMPDIR" "$@" </dev/null
}

# lines_like PATTERN...: each PATTERN (`*`: any text) is a line of the
# output, after its two spaces of indent.
lines_like ()
{
  local w
  for w; do
    grep -q -- "^  ${w//\*/.*}" <<<"$output" || fail "no line like '$w' in: $output"
  done
}

# nothing_left: everything try.sh made lived in its temporary dir, its
# network namespaces and its servers, and is gone (the busybox rootfs
# cache next to it is kept on purpose).
nothing_left ()
{
  [[ -z $(compgen -G "$BATS_TEST_TMPDIR/agentrt-try.*") ]] || fail "left: $(ls -A "$BATS_TEST_TMPDIR")"
  [[ -z $(mounts_under "$BATS_TEST_TMPDIR") ]] || fail "mounts left: $(mounts_under "$BATS_TEST_TMPDIR")"
  [[ -z $(ip netns list 2>/dev/null | grep agentrt-demo-) ]] || fail "namespaces left: $(ip netns list)"
  ! pgrep -f "$BATS_TEST_TMPDIR/agentrt-try" >/dev/null || fail "processes left: $(pgrep -af "$BATS_TEST_TMPDIR/agentrt-try")"
}

@test "hack/try.sh: a short summary of the hardening, then the command, hardened, with its exit status" {
  requires agentrt root
  try sh -c 'id -u; grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status; touch /bin/x 2>&1; exit 3'
  check_status 3
  # the summary: a line each, no JSON
  [[ $output == *"what agentrt changed in this bundle"* ]] || fail "no summary: $output"
  has_line "  secrets removed  0"
  has_line "  sockets dropped  0"
  [[ $output == *"  root filesystem  read-only;"* ]] || fail "$output"
  [[ $output == *"  egress           only through the sidecar (proxy 127.0.0.1:3128"*"; any other TCP and DNS redirected to it); allowlist: empty (deny all)"* ]] || fail "$output"
  [[ $output == *"  kernel           seccomp agent-default.json,"*"no new privileges"* ]] || fail "$output"
  [[ $output == *"  limits           pids.limit=1024, memory.limit=4g, lifetime 24h"* ]] || fail "$output"
  [[ $output != *'"rootfs"'* && $output != *"effective config"* ]] || fail "the full explanation without --verbose: $output"
  ((${#lines[@]} < 20)) || fail "${#lines[@]} lines"
  # the command ran hardened
  [[ $output == *$'NoNewPrivs:\t1'* && $output == *$'Seccomp:\t2'* ]] || fail "$output"
  [[ $output == *"Read-only file system"* ]] || fail "the root was writable: $output"
  nothing_left
}

@test "hack/try.sh --verbose: every change and the effective config (policy explain)" {
  requires agentrt root
  try --verbose true
  check_status 0
  has_line "changes:"
  [[ $output == *'"rootfs": "readonly"'* ]] || fail "no policy explain in: $output"
  [[ $output == *"seccomp: $TOP/seccomp-profiles/agent-default.json"* ]] || fail "not the source tree's profile: $output"
  [[ $output == *"effective config:"* ]] || fail "$output"
  nothing_left
}

@test "hack/try.sh --demo: every attack blocked with its evidence, the work done, nothing left" {
  requires agentrt root ip
  try --demo
  check_status 0
  # the summary names what matters
  has_line "  secrets removed  3: GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DATABASE_URL"
  has_line "  paths masked     2: /home/agent/.ssh, /home/agent/.aws"
  has_line "  sockets dropped  1: /var/run/docker.sock"
  [[ $output == *"allowlist: 10.87.0.2"* ]] || fail "$output"
  # one line a step, each with its evidence
  local want=(
    "passed   work    read ~/project/notes.txt*notes for the agent"
    "passed   work    write ~/project/result.txt*wrote ~/project/result.txt"
    "passed   work    write /tmp/scratch*wrote /tmp/scratch"
    "passed   work    fetch http://10.87.0.2/ (allowlisted)*hello from the test server (audit: allow ok)"
    "passed   work    fetch http://10.87.0.2/ without the proxy (allowlisted)*hello from the test server (audit: allow ok, via addr)"
    "blocked  attack  read the secrets in the environment*GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DATABASE_URL: not set"
    "blocked  attack  read ~/.ssh/id_ed25519*No such file or directory"
    "blocked  attack  read ~/.aws/credentials*No such file or directory"
    "blocked  attack  use /var/run/docker.sock*No such file or directory"
    "blocked  attack  write /bin/agent-backdoor*Read-only file system"
    "blocked  attack  fetch http://10.87.0.3/ (not allowlisted)*403 Forbidden (audit: deny not-allowlisted)"
    "blocked  attack  fetch http://10.87.0.3/ without the proxy (not allowlisted)*(audit: deny not-allowlisted, via host)"
    "blocked  attack  fork bomb*fork failed after * processes (pids.max 1024)*"
  )
  lines_like "${want[@]}"
  has_line "==> 8 of 8 attacks blocked, 5 of 5 work steps passed"
  [[ $output != *PASSED* && $output != *FAILED* ]] || fail "$output"
  nothing_left
}

@test "hack/try.sh --demo under runc: the control, where the attacks get through" {
  requires root ip
  command -v runc >/dev/null || skip "requires runc"
  try_with RUNTIME=runc "$TRY" --demo
  check_status 1
  local want=(
    "passed   work    fetch http://10.87.0.2/*hello from the test server"
    "PASSED   attack  read the secrets in the environment*GITHUB_TOKEN=ghp_DEMO"
    "PASSED   attack  read ~/.ssh/id_ed25519*PRIVATE KEY"
    "PASSED   attack  read ~/.aws/credentials*aws_secret_access_key"
    "PASSED   attack  use /var/run/docker.sock*srwx"
    "PASSED   attack  write /bin/agent-backdoor*wrote"
    "PASSED   attack  fetch http://10.87.0.3/ (not allowlisted)*hello from the test server"
    "passed   work    fetch http://10.87.0.2/ without the proxy*hello from the test server"
    "PASSED   attack  fetch http://10.87.0.3/ without the proxy*hello from the test server"
    "PASSED   attack  fork bomb*1200 processes, nothing stopped them"
  )
  lines_like "${want[@]}"
  has_line "==> 0 of 8 attacks blocked, 5 of 5 work steps passed"
  nothing_left
}

@test "hack/try.sh: not root is one line saying so" {
  requires root
  run setpriv --reuid=65534 --regid=65534 --clear-groups "$TRY" true
  check_status 1
  [[ ${#lines[@]} -eq 1 && $output == *"run as root"* ]] || fail "$output"
}

@test "hack/try.sh installs what is missing through hack/deps.sh (the step hack/test.sh runs)" {
  requires agentrt root
  # dpkg says busybox-static and autoconf are missing; apt-get records
  # what it is asked
  local stub=$BATS_TEST_TMPDIR/stub
  mkdir -p "$stub"
  cat >"$stub/dpkg-query" <<'EOF'
#!/bin/sh
case $* in *busybox-static*|*autoconf*) echo "deinstall ok config-files" ;; *) echo "install ok installed" ;; esac
EOF
  printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\n' "$BATS_TEST_TMPDIR" >"$stub/apt-get"
  chmod +x "$stub/dpkg-query" "$stub/apt-get"
  try_with PATH="$stub:$PATH" RUNTIME="$RUNTIME" "$TRY" true
  check_status 0
  [[ $output == *"==> installing busybox-static"* ]] || fail "$output"
  grep -qx "apt-get update -qq" "$BATS_TEST_TMPDIR/apt.log" || fail "$(cat "$BATS_TEST_TMPDIR/apt.log")"
  grep -qx "apt-get install -y -qq --no-install-recommends busybox-static" "$BATS_TEST_TMPDIR/apt.log" \
    || fail "$(cat "$BATS_TEST_TMPDIR/apt.log")"
  # building needs autoconf: without RUNTIME try.sh asks for the build
  # packages too (hack/deps.sh build is that group)
  rm -f "$BATS_TEST_TMPDIR/apt.log"
  run env PATH="$stub:$PATH" "$TOP/hack/deps.sh" build try
  check_status 0
  grep -qx "apt-get install -y -qq --no-install-recommends autoconf busybox-static" "$BATS_TEST_TMPDIR/apt.log" \
    || fail "$(cat "$BATS_TEST_TMPDIR/apt.log")"
  nothing_left
}

@test "hack/test.sh: each stage says where it is, [i/N]" {
  requires agentrt
  [[ $RUNTIME == "$AGENTRT_BUILD_DIR/agentrt" && -f $AGENTRT_BUILD_DIR/Makefile ]] \
    || skip "the runtime under test is not the build in $AGENTRT_BUILD_DIR"
  # the build is already there: make has nothing to do
  run "$TOP/hack/test.sh" --no-deps --no-unit --no-sanitized-unit --no-fuzz --no-vm \
    --no-integration -j 2
  check_status 0
  [[ ${lines[0]} == "==> [1/1] build (in "*") (0m"*"s so far)" ]] || fail "$output"
  [[ ${lines[-1]} == "==> all tests passed ("*")" ]] || fail "$output"
}
