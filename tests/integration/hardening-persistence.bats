#!/usr/bin/env bats
# hardening-persistence: in a writable bind, what the host user's own tools
# run later stays read-only to the agent: a home's startup files (also the
# ones it lacks), dot directories (autostart, systemd units), bin, and in
# git repositories the config, hooks (also when missing) and those of
# submodules; a bound host system directory is read-only.  The agent can
# still work there: write project files and commit.  Each attack runs again
# under the control runtime (runc), where it must work.

load helpers
load helpers/hardening

setup ()
{
  hardening_setup
  new_canary
}

teardown ()
{
  teardown_bundle
}

# user_home DIR: a home with startup files, config directories, a bin and
# a project that is a git repository (with a submodule), but no
# .bash_profile and no .zshenv.
user_home ()
{
  local h=$1
  fake_home "$h" || return 1
  printf 'PATH=$HOME/bin:$PATH\n' >"$h/.bashrc"
  printf '. ~/.bashrc\n' >"$h/.profile"
  mkdir -p "$h/.config/systemd/user" "$h/bin" "$h/.local/bin" \
    "$h/project/.git/hooks" "$h/project/.git/objects" "$h/project/.git/refs/heads" \
    "$h/project/.git/modules/lib/hooks" "$h/project/plain/.git/objects" || return 1
  printf 'ref: refs/heads/main\n' >"$h/project/.git/HEAD"
  printf '[core]\n\tbare = false\n' >"$h/project/.git/config"
  printf '[core]\n' >"$h/project/.git/modules/lib/config"
  printf 'ref: refs/heads/main\n' >"$h/project/plain/.git/HEAD"
  printf '[core]\n' >"$h/project/plain/.git/config"
  printf 'old index\n' >"$h/project/.git/index"
}

# The attacks on a home mounted at /root, one line each.
PERSIST_ATTACKS='
a () { printf "%s: " "$1"; shift; attack "$@"; }
a bashrc openw /root/.bashrc
a bash_profile create /root/.bash_profile
a zshenv create /root/.zshenv
a autostart mkdir /root/.config/autostart
a unit create /root/.config/systemd/user/evil.service
a bin create /root/bin/ls
a localbin create /root/.local/bin/git
a authorized_keys create /root/.ssh/authorized_keys
a git-config openw /root/project/.git/config
a pre-commit create /root/project/.git/hooks/pre-commit
a submodule-hook create /root/project/.git/modules/lib/hooks/post-checkout
mkdir -p /root/project/plain/.git/hooks 2>/dev/null
a missing-hooks create /root/project/plain/.git/hooks/pre-commit
'

# What the agent's ordinary work does there: new project files and what
# `git commit` writes (a lock file renamed over the index, objects, refs).
WORK='
a () { printf "%s: " "$1"; shift; attack "$@"; }
a project-file create /root/project/new.py
a index-lock create /root/project/.git/index.lock
a index rename /root/project/.git/index.lock /root/project/.git/index
a objects mkdir /root/project/.git/objects/ab
a object create /root/project/.git/objects/ab/cdef
a ref create /root/project/.git/refs/heads/feature
a notes create /root/notes-new.txt
'

@test "hardening: a writable home keeps startup files, dot dirs, bin and git hooks and config read-only" {
  requires_control
  local h=$BATS_TEST_TMPDIR/home
  user_home "$h"
  add_bind "$h" /root rbind rw

  run_ct sh -c "$PERSIST_ATTACKS"
  for what in bashrc bash_profile zshenv autostart unit bin localbin authorized_keys \
    git-config pre-commit submodule-hook missing-hooks; do
    grep -q "^$what: ATTACK-BLOCKED" <<<"$output" || fail "$what: $output"
  done
  # nothing was planted on the host
  [[ ! -e $h/.bash_profile && ! -e $h/.zshenv && ! -e $h/bin/ls ]] || fail "planted on the host"
  [[ -d $h/project/plain/.git/hooks && -z $(ls -A "$h/project/plain/.git/hooks") ]] \
    || fail "the missing hooks directory was not made empty"
  audit_events create | jq -e '[.changes[] | select(.kind == "path-readonly") | .what]
      | index("/root/project/.git/config") and index("/root/project/.git/hooks")
        and any(startswith("/root (its top level"))' >/dev/null \
    || fail "not recorded: $(audit_events create)"

  control_run sh -c "$PERSIST_ATTACKS"
  # (the control has no masks: .ssh is an ordinary directory there)
  [[ $(grep -c ATTACK-OK <<<"$output") -eq 12 ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: the agent can still work in a writable home: project files, git commit" {
  local h=$BATS_TEST_TMPDIR/home
  user_home "$h"
  add_bind "$h" /root rbind rw

  run_ct sh -c "$WORK"
  for what in project-file index-lock index objects object ref; do
    grep -q "^$what: ATTACK-OK" <<<"$output" || fail "$what: $output"
  done
  # a new file at the home's top level is not possible
  grep -q '^notes: ATTACK-BLOCKED' <<<"$output" || fail "notes: $output"
  [[ -f $h/project/new.py && -f $h/project/.git/objects/ab/cdef ]]
  [[ $(<"$h/project/.git/index") == planted ]]
}

@test "hardening: on a host whose mounts are shared (systemd's), nothing mounted over a bind reaches the host" {
  local h before
  h=$(host_dir home)
  user_home "$h"
  mount --bind "$h" "$h"
  cleanup_add "umount -l $h"
  mount --make-shared "$h"
  before=$(grep -c " $h" /proc/self/mountinfo)
  add_bind "$h" /root rw
  run_ct sh -c 'grep -c " /root" /proc/self/mountinfo'
  check_status 0
  # the read-only startup files, the masked .ssh... are mounts inside only
  [[ $output -gt 1 ]] || fail "no protection mounted: $output"
  [[ $(grep -c " $h" /proc/self/mountinfo) -eq $before ]] \
    || fail "on the host: $(grep " $h" /proc/self/mountinfo)"
}

@test "hardening: a writable bind of a host system directory is read-only" {
  requires_control
  add_bind /etc /hostetc rbind rw
  local script='printf "hostname: "; attack openw /hostetc/hostname'

  run_ct sh -c "$script"
  blocked_with "Read-only file system"

  control_run sh -c "$script"
  attack_worked
}

@test "hardening: only the policy turns the protection off (binds.protectPersistence), recorded" {
  local h=$BATS_TEST_TMPDIR/home
  user_home "$h"
  add_bind "$h" /root rbind rw
  hardening_policy '.binds.protectPersistence = false'
  # an annotation cannot
  add_annotation run.agentrt.binds.protectPersistence false
  rt run --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 && $output == *run.agentrt.binds.protectPersistence* ]] \
    || fail "the annotation was accepted: $output"
  update_config 'del(.annotations["run.agentrt.binds.protectPersistence"])'

  run_ct sh -c 'printf "bashrc: "; attack openw /root/.bashrc'
  has_line "bashrc: ATTACK-OK open for writing"
  audit_events create | jq -e '[.changes[] | select(.kind == "path-readonly") | .why]
      | any(contains("binds.protectPersistence"))' >/dev/null \
    || fail "the loosening was not recorded: $(audit_events create)"
}
