#!/usr/bin/env bats
# help: `agentrt help CMD` and `agentrt CMD --help` print each command's
# usage, and every option a usage lists is one its command accepts.

load helpers

# commands: the verbs `--help` lists.
commands ()
{
  runtime --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

@test "help: every command has a usage, the same from help CMD and CMD --help" {
  requires agentrt
  local cmd n=0
  for cmd in $(commands); do
    run runtime help "$cmd"
    check_status 0
    [[ ${lines[0]} == "usage: agentrt $cmd"* ]] || fail "help $cmd: ${lines[0]}"
    local text=$output
    for flag in --help -h; do
      run runtime "$cmd" "$flag"
      check_status 0
      [[ $output == "$text" ]] || fail "$cmd $flag differs from help $cmd: $output"
    done
    n=$((n + 1))
  done
  ((n >= 17)) || fail "only $n commands listed"
}

@test "help: every option a usage lists is accepted by its command" {
  requires agentrt
  local cmd line flag short arg checked=0
  for cmd in $(commands); do
    local verb=("$cmd")
    [[ $cmd == policy ]] && verb=(policy explain)
    while IFS= read -r line; do
      [[ $line =~ ^\ \ (--[a-z-]+)(,\ (--?[a-z-]+))?(\ ([A-Za-z|:\[\]=.]+))? ]] || continue
      flag=${BASH_REMATCH[1]} short=${BASH_REMATCH[3]} arg=${BASH_REMATCH[5]}
      for f in "$flag" $short; do
        # a value when the usage shows one; the id of no container
        if [[ -n $arg ]]; then
          rt "${verb[@]}" "$f" 1 no-such-container
        else
          rt "${verb[@]}" "$f" no-such-container
        fi
        [[ $output != *"unknown option"* && $output != *"needs a value"* ]] \
          || fail "$cmd $f (usage: '$line'): $output"
        checked=$((checked + 1))
      done
    done < <(runtime help "$cmd")
  done
  ((checked >= 50)) || fail "only $checked options checked"
  [[ -z $(ls -A "$ROOT") ]] || fail "left in the root: $(ls -A "$ROOT")"
}

@test "help: an unknown command is one line naming it, exit 1" {
  requires agentrt
  rt help no-such-command
  check_status 1
  [[ ${#lines[@]} -eq 1 && $output == *"no-such-command"* ]] || fail "$output"
}

@test "help: -h after the id belongs to the process, not to exec" {
  requires agentrt root
  start_ct
  rt exec "$CT_ID" echo -h
  check_status 0
  [[ $output == "-h" ]] || fail "$output"
}

@test "help: a global option without its value says so" {
  requires agentrt
  for opt in --root --log --log-format --policy; do
    run "$RUNTIME" "$opt"
    [[ $status -eq 1 && $output == *"\`$opt\` needs a value"* ]] || fail "$opt: $output"
  done
}
