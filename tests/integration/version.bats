#!/usr/bin/env bats
# --version: runc's layout (name and version, commit, spec version).

load helpers

@test "--version: name version, commit and spec lines" {
  run "$RUNTIME" --version
  check_status 0
  [[ ${lines[0]} =~ ^[a-z]+\ version\ [0-9]+\.[0-9]+ ]]
  printf '%s\n' "${lines[@]}" | grep -q '^commit: .'
  printf '%s\n' "${lines[@]}" | grep -Eq '^spec: 1\.[0-9]+\.[0-9]+'
}

@test "--version: agentrt prints exactly three lines" {
  requires agentrt
  run "$RUNTIME" --version
  check_status 0
  [[ ${#lines[@]} -eq 3 ]]
  [[ ${lines[0]} =~ ^agentrt\ version\ [0-9]+\.[0-9]+\.[0-9]+ ]]
  [[ ${lines[1]} =~ ^commit:\ [0-9a-f]{7,40}|^commit:\ unknown ]]
  [[ ${lines[2]} =~ ^spec:\ 1\.[23]\.[0-9]+ ]]
}

@test "an unknown command is an error" {
  run "$RUNTIME" no-such-command
  [[ $status -ne 0 ]]
}
