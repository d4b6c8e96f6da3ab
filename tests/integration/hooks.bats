#!/usr/bin/env bats
# hooks: all six kinds, their order, the state on stdin, args/env, timeouts;
# a failing create-time hook aborts create and leaves nothing behind.

load helpers

# A host-side hook: appends "KIND <state JSON>" to LOG.
setup ()
{
  setup_bundle
  LOG=$BATS_TEST_TMPDIR/hooks.log
  HOOK=$BATS_TEST_TMPDIR/hook.sh
  : >"$LOG"
  cat >"$HOOK" <<HOOK_EOF
#!/bin/sh
echo "\$1 \$(cat)" >> "$LOG"
HOOK_EOF
  chmod +x "$HOOK"
}

# host_hook KIND: a hook entry (JSON) that logs as KIND.
host_hook ()
{
  jq -nc --arg p "$HOOK" --arg k "$1" '{path: $p, args: ["hook", $k]}'
}

# log_kinds: the kinds in LOG, in order, one line.
log_kinds ()
{
  awk '{ printf "%s ", $1 }' "$LOG"
}

@test "hooks: create-time hooks run during create, in order" {
  requires root
  update_config '.hooks = {prestart: [$pre], createRuntime: [$cr], createContainer: [$cc]}' \
    --argjson pre "$(host_hook prestart)" --argjson cr "$(host_hook createRuntime)" \
    --argjson cc "$(host_hook createContainer)"
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  [[ $(log_kinds) == "prestart createRuntime createContainer " ]] || fail "after create: $(log_kinds)"
}

@test "hooks: startContainer runs in the container before the process, poststop at delete" {
  requires root
  MARKS=$(host_dir marks)
  add_bind "$MARKS" /marks
  # startContainer runs in the container: its path resolves in the rootfs.
  update_config '.hooks = {
      startContainer: [{path: "/bin/sh", args: ["sh", "-c", "echo startContainer \"$(cat)\" >> /marks/log"]}],
      poststop: [$pst]}' --argjson pst "$(host_hook poststop)"
  set_cmd sh -c 'echo process >> /marks/log; exec sleep inf'
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  [[ ! -e $MARKS/log ]] || fail "startContainer ran at create"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" running
  for ((i = 0; i < 50; i++)); do
    [[ $(wc -l <"$MARKS/log" 2>/dev/null) -ge 2 ]] && break
    sleep 0.1
  done
  [[ $(awk '{ printf "%s ", $1 }' "$MARKS/log") == "startContainer process " ]] || fail "in container: $(cat "$MARKS/log")"
  [[ -z $(log_kinds) ]]
  rt_ok delete --force "$CT_ID"
  [[ $(log_kinds) == "poststop " ]] || fail "after delete: $(log_kinds)"
}

@test "hooks: all six kinds in the lifecycle's order (poststart only after start)" {
  requires root
  unsupported_by runc "runc 1.1.5 runs poststart hooks during create, before start (runtime-spec: after the user process has started)"
  update_config '.hooks = {
      prestart: [$pre], createRuntime: [$cr], createContainer: [$cc],
      startContainer: [{path: "/bin/true", args: ["true"]}],
      poststart: [$ps], poststop: [$pst]}' \
    --argjson pre "$(host_hook prestart)" --argjson cr "$(host_hook createRuntime)" \
    --argjson cc "$(host_hook createContainer)" --argjson ps "$(host_hook poststart)" \
    --argjson pst "$(host_hook poststop)"
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  [[ $(log_kinds) == "prestart createRuntime createContainer " ]] || fail "after create: $(log_kinds)"
  rt_ok start "$CT_ID"
  [[ $(log_kinds) == "prestart createRuntime createContainer poststart " ]] || fail "after start: $(log_kinds)"
  rt_ok delete --force "$CT_ID"
  [[ $(log_kinds) == "prestart createRuntime createContainer poststart poststop " ]] || fail "after delete: $(log_kinds)"
}

@test "hooks: each hook gets the container state on stdin" {
  requires root
  update_config '.hooks = {createRuntime: [$cr], poststart: [$ps], poststop: [$pst]}' \
    --argjson cr "$(host_hook createRuntime)" --argjson ps "$(host_hook poststart)" \
    --argjson pst "$(host_hook poststop)"
  start_ct
  pid=$(ct_pid "$CT_ID")
  rt_ok delete --force "$CT_ID"
  while read -r kind state; do
    [[ $kind == poststop ]] && want_pid=any || want_pid=$pid
    jq -e --arg id "$CT_ID" --arg b "$BUNDLE" --arg pid "$want_pid" '
      .id == $id and .bundle == $b and (.ociVersion | startswith("1."))
      and (.status | type == "string" and length > 0)
      and ($pid == "any" or (.pid | tostring) == $pid)' <<<"$state" >/dev/null \
      || fail "$kind: $state (expected id $CT_ID, bundle $BUNDLE, pid $want_pid)"
  done <"$LOG"
  [[ $(wc -l <"$LOG") -eq 3 ]]
}

@test "hooks: args and env are the hook's own, cwd is the bundle" {
  requires root
  update_config '.hooks.prestart = [{path: "/bin/sh",
      args: ["sh", "-c", "echo \"$0|$1|$HOOKVAR|$(pwd)\" > \($log); env >> \($log)", "zero", "one"],
      env: ["HOOKVAR=from-config"]}]' --arg log "$LOG"
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  [[ $(head -n 1 "$LOG") == "zero|one|from-config|$BUNDLE" ]] || fail "got: $(<"$LOG")"
  # The container's environment is not the hook's.
  ! grep -q AGENTRT_TEST_TAG "$LOG"
}

@test "hooks: several hooks of one kind run in order" {
  requires root
  update_config '.hooks.createRuntime = [$a, $b, $c]' \
    --argjson a "$(host_hook first)" --argjson b "$(host_hook second)" --argjson c "$(host_hook third)"
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  [[ $(log_kinds) == "first second third " ]]
}

@test "hooks: createContainer runs in the container's namespaces" {
  requires root
  update_config '.hooks.createContainer = [{path: "/bin/sh",
      args: ["sh", "-c", "readlink /proc/self/ns/mnt /proc/self/ns/uts > \($log)"]}]' --arg log "$LOG"
  start_ct
  pid=$(ct_pid "$CT_ID")
  [[ $(sed -n 1p "$LOG") == "$(ns_id "$pid" mnt)" ]]
  [[ $(sed -n 2p "$LOG") == "$(ns_id "$pid" uts)" ]]
}

@test "hooks: createRuntime and poststop run in the runtime's namespaces" {
  requires root
  update_config '.hooks.createRuntime = [{path: "/bin/sh", args: ["sh", "-c", "readlink /proc/self/ns/mnt >> \($log)"]}]
    | .hooks.poststop = [{path: "/bin/sh", args: ["sh", "-c", "readlink /proc/self/ns/mnt >> \($log)"]}]' --arg log "$LOG"
  start_ct
  rt_ok delete --force "$CT_ID"
  [[ $(sort -u "$LOG") == "$(readlink /proc/self/ns/mnt)" ]]
}

@test "hooks: a failing createRuntime hook aborts create and leaves nothing" {
  requires root
  update_config '.hooks.createRuntime = [{path: "/bin/sh", args: ["sh", "-c", "exit 3"]}]
    | .linux.resources.pids = {limit: 100}'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hooks: a failing prestart hook aborts create and leaves nothing" {
  requires root
  update_config '.hooks.prestart = [{path: "/bin/false", args: ["false"]}]'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hooks: a failing createContainer hook aborts create and leaves nothing" {
  requires root
  update_config '.hooks.createContainer = [{path: "/bin/false", args: ["false"]}]'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hooks: a hook path that does not exist aborts create" {
  requires root
  update_config '.hooks.createRuntime = [{path: "/no/such/hook"}]'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hooks: a hook past its timeout is killed and create fails" {
  requires root
  # The tag lets no_leftovers see the hook process if it survives.
  update_config '.hooks.createRuntime = [{path: "/bin/sleep", args: ["sleep", "30"],
      env: ["AGENTRT_TEST_TAG=\($id)"], timeout: 1}]' --arg id "$CT_ID"
  SECONDS=0
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  ((SECONDS < 10)) || fail "create took ${SECONDS}s"
  no_leftovers "$CT_ID"
}

@test "hooks: a failing poststart hook fails start, stops the container and runs no later poststart hook" {
  requires root
  unsupported_by runc "runc 1.1.5 runs poststart hooks during create, which fails (runtime-spec: after the user process has started)"
  unsupported_before crun 1.27 "a failing poststart hook is only a warning"
  update_config '.hooks = {poststart: [$first, {path: "/bin/false", args: ["false"]}, $after]}' \
    --argjson first "$(host_hook first)" --argjson after "$(host_hook after)"
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt start "$CT_ID"
  [[ $status -ne 0 ]] || fail "start succeeded"
  [[ $(log_kinds) == "first " ]] || fail "hooks run: $(log_kinds)"
  # stopped (runc) or stopped and removed (runtime-spec 1.3, crun, agentrt)
  [[ $(ct_status "$CT_ID") == @(|stopped) ]] || fail "status: $(ct_status "$CT_ID")"
}

@test "hooks: after a failing poststart hook the container is removed and its poststop hooks run" {
  requires root agentrt
  update_config '.hooks = {poststart: [{path: "/bin/false", args: ["false"]}], poststop: [$pst]}' \
    --argjson pst "$(host_hook poststop)"
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  pid=$(ct_pid "$CT_ID")
  rt start "$CT_ID"
  [[ $status -ne 0 ]] || fail "start succeeded"
  [[ $output == *"poststart hook \`/bin/false\` exited with status 1"* ]] || fail "$output"
  [[ $(log_kinds) == "poststop " ]] || fail "hooks run: $(log_kinds)"
  pid_gone "$pid" || fail "the init $pid is still there"
  no_leftovers "$CT_ID"
}

@test "hooks: a failing poststop hook does not stop delete" {
  requires root
  update_config '.hooks.poststop = [{path: "/bin/false", args: ["false"]}]'
  start_ct
  rt delete --force "$CT_ID"
  check_status 0
  no_leftovers "$CT_ID"
}
