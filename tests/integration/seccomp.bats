#!/usr/bin/env bats
# seccomp: linux.seccomp filters are installed and enforced: errno with
# errnoRet, kill, argument conditions, default actions.

load helpers

# seccomp_rules JQ-ARRAY [DEFAULT]: a filter for x86 (64 and 32 bit) whose
# syscalls are the jq expression JQ-ARRAY.
seccomp_rules ()
{
  local rules
  rules=$(jq -nc "$1") || return 1
  update_config '.linux.seccomp = {defaultAction: $d,
      architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
      syscalls: $r}' --argjson r "$rules" --arg d "${2:-SCMP_ACT_ALLOW}"
}

@test "seccomp: the filter is installed (Seccomp: 2)" {
  requires root seccomp
  seccomp_rules '[]'
  run_ct grep -E '^Seccomp:' /proc/self/status
  check_status 0
  [[ $(awk '{ print $2 }' <<<"$output") == 2 ]]
}

@test "seccomp: SCMP_ACT_ERRNO with errnoRet" {
  requires root seccomp
  # EACCES (13) so that the message proves errnoRet was used.
  seccomp_rules '[{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 13}]'
  run_ct sh -c 'mkdir /dev/shm/d; echo "mkdir=$?"; touch /dev/shm/f && echo touch-ok'
  has_line mkdir=1
  has_line touch-ok
  [[ $output == *"Permission denied"* ]] || fail "$output"
}

@test "seccomp: SCMP_ACT_ERRNO without errnoRet gives EPERM" {
  requires root seccomp
  seccomp_rules '[{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO"}]'
  run_ct sh -c 'mkdir /dev/shm/d; echo "mkdir=$?"'
  has_line mkdir=1
  [[ $output == *"Operation not permitted"* ]] || fail "$output"
}

@test "seccomp: SCMP_ACT_KILL kills the process with SIGSYS" {
  requires root seccomp seccomp_action_SCMP_ACT_KILL
  seccomp_rules '[{names: ["getcwd"], action: "SCMP_ACT_KILL"}]'
  # /bin/pwd (not the shell builtin) calls getcwd.
  run_ct /bin/pwd
  check_status 159
}

@test "seccomp: SCMP_ACT_KILL_PROCESS" {
  requires root seccomp seccomp_action_SCMP_ACT_KILL_PROCESS
  seccomp_rules '[{names: ["getcwd"], action: "SCMP_ACT_KILL_PROCESS"}]'
  run_ct /bin/pwd
  check_status 159
}

@test "seccomp: an argument condition (kill with SIGUSR1 only)" {
  requires root seccomp
  seccomp_rules '[{names: ["kill"], action: "SCMP_ACT_ERRNO", errnoRet: 1,
      args: [{index: 1, value: 10, op: "SCMP_CMP_EQ"}]}]'
  run_ct sh -c 'kill -USR1 $$ 2>/dev/null; echo "usr1=$?"; kill -0 $$; echo "zero=$?"'
  has_line usr1=1
  has_line zero=0
}

@test "seccomp: SCMP_CMP_MASKED_EQ on flags" {
  requires root seccomp
  # Deny openat with O_CREAT (0100) set; plain opens still work.
  seccomp_rules '[{names: ["openat", "open"], action: "SCMP_ACT_ERRNO", errnoRet: 1,
      args: [{index: 2, value: 64, valueTwo: 64, op: "SCMP_CMP_MASKED_EQ"}]},
    {names: ["open"], action: "SCMP_ACT_ERRNO", errnoRet: 1,
      args: [{index: 1, value: 64, valueTwo: 64, op: "SCMP_CMP_MASKED_EQ"}]}]'
  run_ct sh -c 'grep -q ^root: /etc/passwd && echo read-ok; echo x 2>&- > /dev/shm/new; echo "create=$?"'
  has_line read-ok
  has_line create=1
}

@test "seccomp: a deny-by-default filter with an allow list" {
  requires root seccomp
  # Enough for busybox sh to run; mkdir is not allowed.
  seccomp_rules '[{names: ["execve", "brk", "arch_prctl", "set_tid_address", "set_robust_list",
      "rseq", "prlimit64", "mprotect", "mmap", "munmap", "readlink", "readlinkat", "getuid",
      "geteuid", "getpid", "write", "writev", "exit", "exit_group", "futex", "rt_sigaction",
      "rt_sigprocmask", "rt_sigreturn", "fstat", "newfstatat", "statx", "close", "fcntl",
      "capget", "capset", "prctl", "getppid", "setgroups", "setgid", "setuid", "setresuid",
      "setresgid", "sigaltstack", "getrandom", "ioctl", "dup2", "dup3", "openat", "read",
      "close_range", "fchdir", "chdir", "getcwd", "gettid", "tgkill", "getdents64", "stat",
      "lstat", "access", "faccessat", "faccessat2", "epoll_pwait", "epoll_ctl", "wait4",
      "nanosleep", "clock_nanosleep", "clone", "clone3", "fork", "vfork", "pipe2", "poll",
      "pselect6", "sched_getaffinity", "getpgid", "setpgid", "getgid", "getegid", "umask",
      "fstatfs", "statfs", "mount_setattr", "pidfd_open", "pidfd_send_signal", "keyctl",
      "seccomp", "setsid", "sched_yield", "times", "sysinfo", "lseek", "getpgrp",
      "rt_sigsuspend", "epoll_create1", "epoll_wait", "socketpair", "kill", "madvise",
      "mremap", "getrlimit", "setrlimit"],
      action: "SCMP_ACT_ALLOW"}]' SCMP_ACT_ERRNO
  run_ct sh -c 'echo allowed; mkdir /dev/shm/d 2>&-; echo "mkdir=$?"'
  has_line allowed
  has_line mkdir=1
}

@test "seccomp: an unknown action is refused and leaves nothing" {
  requires root seccomp
  seccomp_rules '[{names: ["mkdir"], action: "SCMP_ACT_AGENTRT_NOPE"}]'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

# ---- the cache of compiled bundle filters (runtime/seccomp/seccomp_cache.h) ---------

# cache_entries: the entry files in the test root's seccomp cache.
cache_entries ()
{
  find "$ROOT/.seccomp-cache" -maxdepth 1 -name '*.bpf' -type f 2>/dev/null | sort
}

MKDIR_DENIED='[{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 13}]'
MKDIR_PROBE='mkdir /dev/shm/d 2>/dev/null; echo "mkdir=$?"'

@test "seccomp cache: the bundle's filter is compiled once, then read from the cache, and still enforced" {
  requires root seccomp agentrt
  seccomp_rules "$MKDIR_DENIED"
  set_cmd sh -c "$MKDIR_PROBE"
  rt --debug --log "$BATS_TEST_TMPDIR/log1" run --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  has_line mkdir=1
  grep -q 'linux.seccomp (compiled)' "$BATS_TEST_TMPDIR/log1" || fail "log: $(cat "$BATS_TEST_TMPDIR/log1")"
  [[ $(cache_entries | wc -l) -eq 1 ]] || fail "cache: $(ls -la "$ROOT/.seccomp-cache")"
  [[ $(stat -c %a "$ROOT/.seccomp-cache") == 700 && $(stat -c %a "$(cache_entries)") == 600 ]]
  rt --debug --log "$BATS_TEST_TMPDIR/log2" run --bundle "$BUNDLE" "$CT_ID-2"
  check_status 0
  has_line mkdir=1
  grep -q 'linux.seccomp (cached)' "$BATS_TEST_TMPDIR/log2" || fail "log: $(cat "$BATS_TEST_TMPDIR/log2")"
  [[ $(cache_entries | wc -l) -eq 1 ]]
}

@test "seccomp cache: the first container on a brand-new state root is cached too" {
  requires root seccomp agentrt
  seccomp_rules "$MKDIR_DENIED"
  set_cmd sh -c "$MKDIR_PROBE"
  ROOT=$BATS_TEST_TMPDIR/new/state
  rt run --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  has_line mkdir=1
  [[ $(cache_entries | wc -l) -eq 1 ]] || fail "cache: $(ls -la "$ROOT" "$ROOT/.seccomp-cache" 2>&1)"
}

@test "seccomp cache: an entry replaced by another profile's program is not used" {
  requires root seccomp agentrt
  local deny allow
  # B: a filter that denies nothing mkdir needs
  seccomp_rules '[{names: ["getcwd"], action: "SCMP_ACT_ERRNO", errnoRet: 13}]'
  run_ct sh -c "$MKDIR_PROBE"
  has_line mkdir=0
  allow=$(cache_entries)
  # A: mkdir denied
  seccomp_rules "$MKDIR_DENIED"
  run_ct sh -c "$MKDIR_PROBE"
  has_line mkdir=1
  deny=$(comm -13 <(echo "$allow") <(cache_entries))
  [[ -n $allow && -n $deny ]] || fail "entries: $(cache_entries)"
  # whoever can write the cache swaps A's entry for B's program
  cp -p "$allow" "$deny"
  run_ct sh -c "$MKDIR_PROBE"
  has_line mkdir=1
  # and the entry is A's again
  ! cmp -s "$allow" "$deny"
}

@test "seccomp cache: exec takes the bundle's filter from the cache, and it applies" {
  requires root seccomp agentrt
  seccomp_rules "$MKDIR_DENIED"
  start_ct
  [[ $(cache_entries | wc -l) -eq 1 ]]
  # a read marks the entry used (least recently used ones are evicted)
  touch -a -d '2000-01-01' "$(cache_entries)"
  rt exec "$CT_ID" sh -c "$MKDIR_PROBE"
  check_status 0
  has_line mkdir=1
  [[ $(stat -c %X "$(cache_entries)") -gt $(date -d '2001-01-01' +%s) ]] || fail "not read from the cache"
  [[ $(cache_entries | wc -l) -eq 1 ]]
}

@test "seccomp cache: a cache directory others can write is not used" {
  requires root seccomp agentrt
  mkdir -p "$ROOT/.seccomp-cache"
  chmod 0777 "$ROOT/.seccomp-cache"
  seccomp_rules "$MKDIR_DENIED"
  run_ct sh -c "$MKDIR_PROBE"
  check_status 0
  has_line mkdir=1
  [[ -z $(cache_entries) ]] || fail "written: $(cache_entries)"
}
