#!/usr/bin/env bats
# approve: asking a person (issue 18).  The policy's egress.ask names the
# socket of `agentrt approve`, run here in a terminal of its own (tmux):
# the agent's request to a name outside its allowlist is held while the
# question shows in that terminal; keys typed there (tmux send-keys)
# answer it: y lets that one through and the next asks again, a lets it
# through for the container's lifetime, n denies.  The container's audit
# trail holds every question, its answer and who answered.  Without an
# approver listening the create still works and records why nothing is
# asked; run.agentrt.egress.ask=off turns asking off.

load helpers
load helpers/hardening
load helpers/egress

setup_file ()
{
  egress_net_up
}

teardown_file ()
{
  egress_net_down
}

CURL=/host/usr/bin/curl

setup ()
{
  egress_setup web.test || return 1
  command -v tmux >/dev/null || skip "tmux is not installed"
  SOCK=$BATS_TEST_TMPDIR/approve.sock
  TMUX_S=agentrt-approve-$$-$RANDOM
  hardening_policy '.egress.ask = {socket: $s, timeout: 10}' --arg s "$SOCK" || return 1
}

teardown ()
{
  tmux kill-session -t "$TMUX_S" 2>/dev/null || true
  teardown_bundle
}

pane () { tmux capture-pane -p -J -S - -t "$TMUX_S"; }

# start_approver [ARGS...]: agentrt approve in a tmux terminal of its own.
start_approver ()
{
  tmux new-session -d -s "$TMUX_S" -x 200 -y 50 "$RUNTIME approve --socket $SOCK $*; sleep 60" \
    || return 1
  for _ in $(seq 100); do
    pane | grep -q "listening on $SOCK" && return 0
    sleep 0.1
  done
  fail "agentrt approve did not start: $(pane)"
}

# answer_prompts KEY...: waits for each prompt in turn, types its key.
answer_prompts ()
{
  local i=0 key
  for key in "$@"; do
    i=$((i + 1))
    for _ in $(seq 150); do
      [[ $(pane | grep -c 'allow? \[y\] once') -ge $i ]] && break
      sleep 0.1
    done
    tmux send-keys -t "$TMUX_S" "$key" Enter
  done
}

@test "approve: y allows once (the next asks again), a always, n denies; shown in the terminal, audited" {
  requires_curl
  start_approver
  answer_prompts y a n &
  run_ct sh -c "
    printf 'once: '; $CURL -sS http://other.test/
    printf 'again: '; $CURL -sS http://other.test/
    printf 'always: '; $CURL -sS http://other.test/
    $CURL -sS -i http://denied.test/ | tr -d '\r' | grep Denied"
  wait
  check_status 0
  has_line "once: hello from other"
  has_line "again: hello from other"
  has_line "always: hello from other"
  has_line "X-Agentrt-Denied: ask-denied"
  local screen
  screen=$(pane)
  for l in "[$CT_ID] connected" "[$CT_ID] asks: other.test:80 (http, name from proxy), asked 1 time" \
    "[$CT_ID] asks: other.test:80 (http, name from proxy), asked 2 times" \
    "[$CT_ID] other.test:80: allow-once (answered)" "[$CT_ID] other.test:80: allow-always (answered)" \
    "[$CT_ID] denied.test:80: deny (answered)"; do
    grep -qF -- "$l" <<<"$screen" || fail "not in the terminal: $l
$screen"
  done
  [[ $(grep -c "asks: other.test" <<<"$screen") -eq 2 ]] || fail "$screen"
  run audit_events ask
  [[ $(jq -s 'length' <<<"$output") -eq 3 ]] || fail "$output"
  jq -se 'map(select(.host == "other.test" and .answer == "allow-once" and .approver_uid == 0
    and .wait_ms >= 0 and .held == 1)) | length == 1' <<<"$output" || fail "$output"
  jq -se 'map(select(.host == "other.test" and .answer == "allow-always")) | length == 1' \
    <<<"$output" || fail "$output"
  jq -se 'map(select(.host == "denied.test" and .answer == "deny" and .port == 80)) | length == 1' \
    <<<"$output" || fail "$output"
  run audit_events egress
  jq -se 'map(select(.host == "other.test" and .decision == "allow")) | map(.ask) ==
    ["allow-once", "allow-always", "allow-always"]' <<<"$output" || fail "$output"
}

@test "approve: answers from a pipe, two in one write, are both taken" {
  requires_curl
  local fifo=$BATS_TEST_TMPDIR/answers
  mkfifo "$fifo"
  exec 7<>"$fifo"
  cleanup_add "exec 7>&-"
  tmux new-session -d -s "$TMUX_S" -x 200 -y 50 "$RUNTIME approve --socket $SOCK <$fifo; sleep 60"
  for _ in $(seq 100); do pane | grep -q "listening on $SOCK" && break; sleep 0.1; done
  (
    for _ in $(seq 150); do
      pane | grep -q '1 more waiting' && break
      sleep 0.1
    done
    printf 'y\na\n' >&7
  ) &
  run_ct sh -c "$CURL -sS http://other.test/ & $CURL -sS http://denied.test/ & wait"
  wait
  pane | grep -qF ": allow-once (answered)" || fail "$(pane)"
  pane | grep -qF ": allow-always (answered)" || fail "the second answer was not taken: $(pane)"
}

@test "approve: --allow-pattern and --auto-deny-after decide alone" {
  requires_curl
  start_approver --allow-pattern "'other.*:80'" --auto-deny-after 1
  run_ct sh -c "
    printf 'pattern: '; $CURL -sS http://other.test/
    $CURL -sS -i http://nobody-answers.test/ | tr -d '\r' | grep Denied"
  check_status 0
  has_line "pattern: hello from other"
  has_line "X-Agentrt-Denied: ask-denied"
  pane | grep -qF "other.test:80: allow-once (--allow-pattern)" || fail "$(pane)"
  pane | grep -qF "nobody-answers.test:80: deny (--auto-deny-after)" || fail "$(pane)"
}

@test "approve: no approver listening: created all the same, nothing asked, recorded" {
  requires_curl
  run_ct sh -c "$CURL -sS -i http://other.test/ | tr -d '\r' | grep Denied"
  has_line "X-Agentrt-Denied: not-allowlisted"
  run audit_events incident
  [[ $output == *"the approver at $SOCK cannot be reached"* ]] || fail "$output"
}

@test "approve: run.agentrt.egress.ask=off: never asked; =on refused" {
  requires_curl
  start_approver
  add_annotation run.agentrt.egress.ask off
  run_ct sh -c "$CURL -sS -i http://other.test/ | tr -d '\r' | grep Denied"
  has_line "X-Agentrt-Denied: not-allowlisted"
  ! pane | grep -q "asks:" || fail "$(pane)"
  add_annotation run.agentrt.egress.ask on
  run_ct true
  [[ $status -ne 0 && $output == *"asking is turned on only by the policy"* ]] || fail "$output"
}
