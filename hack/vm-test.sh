#!/bin/bash
# hack/vm-test.sh: agentrt on a real pure cgroup v2 kernel, in qemu.
# Boots Debian's kernel (package linux-image-amd64, downloaded into the
# cache and unpacked there: never installed, the host's /boot is not
# touched) with an initramfs holding agentrt, agentrt-egress, their
# libraries, busybox, bash, jq, a bundle rootfs and tests/vm/; the guest
# mounts cgroup2 with every controller and runs tests/vm/cgroup-v2.sh
# (lifecycle, memory/pids/cpu limits enforced, pause/resume, update, eBPF
# devices, the hardening that rests on cgroups).  Results come back on a
# second serial port; the summary decides the exit status.
#
#   hack/vm-test.sh [OPTIONS]
#     --keep            keep the work directory (logs, initramfs)
#     --no-deps         do not apt-get anything
#     -h, --help
# Environment: AGENTRT_BUILD_DIR (agentrt and agentrt-egress; built when
# missing), AGENTRT_VM_CACHE (default /var/cache/agentrt-vm: the kernel),
# VM_ACCEL (tcg; kvm where it works), VM_CPUS (2), VM_MEM (MiB, 1024),
# VM_TIMEOUT (seconds per VM, default 280).
# Exit status: 0 when every test passed, or when qemu or the kernel cannot
# be installed here (a line starting with SKIP says so); 1 otherwise.
set -euo pipefail

SELF=$(readlink -f "$0")
# shellcheck source=lib.sh
. "$(dirname "$SELF")/lib.sh"
# shellcheck source=vm/lib.sh
. "$AGENTRT_TOP/hack/vm/lib.sh"

: "${VM_TIMEOUT:=280}"

usage ()
{
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"
  exit "${1:-0}"
}

keep=0 deps=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --keep) keep=1; shift ;;
    --no-deps) deps=0; shift ;;
    -h|--help) usage 0 ;;
    *) usage 2 >&2 ;;
  esac
done

skip ()
{
  echo "SKIP: vm-test: $*" >&2
  exit 0
}

# have_packages PKG...: 0 when dpkg lists every one as installed.
have_packages ()
{
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || return 1
  done
}

# vm_deps PKG...: install what is missing; skip the whole run when that is
# impossible here (not root, no apt, no mirror).
vm_deps ()
{
  have_packages "$@" && return 0
  ((deps)) || skip "missing packages ($*) and --no-deps"
  [[ $EUID -eq 0 ]] || skip "missing packages ($*); run as root to install them"
  command -v apt-get >/dev/null || skip "missing packages ($*) and no apt-get"
  vm_log "installing $*"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"; } >/dev/null 2>&1 \
    || skip "cannot install $* with apt-get"
}

# build_agentrt: agentrt and agentrt-egress in AGENTRT_BUILD_DIR, built or
# brought up to date.
build_agentrt ()
{
  if [[ ! -f $AGENTRT_BUILD_DIR/Makefile ]]; then
    (cd "$AGENTRT_TOP" && { [[ -x configure ]] || ./autogen.sh >/dev/null; })
    mkdir -p "$AGENTRT_BUILD_DIR"
    (cd "$AGENTRT_BUILD_DIR" && "$AGENTRT_TOP/configure" -q)
  fi
  make -C "$AGENTRT_BUILD_DIR" -s -j"$(nproc)" agentrt agentrt-egress
}

# run_v2 WORK: the cgroup v2 suite; 0 when it passed.
run_v2 ()
{
  local work=$1 t0 t1 rc=0
  mkdir -p "$work/v2"
  vm_log "initramfs"
  vm_initramfs "$work/v2/initramfs.cpio" "$AGENTRT_BUILD_DIR/agentrt" "$AGENTRT_BUILD_DIR/agentrt-egress" \
    || return 1
  vm_log "booting $(basename "$(dirname "$VM_KERNEL")") ($VM_ACCEL, $VM_CPUS cpu, ${VM_MEM} MiB): cgroup v2 suite"
  t0=$(date +%s)
  vm_qemu "$work/v2" "$VM_TIMEOUT" "agentrt.test=cgroup-v2 cgroup_no_v1=all" \
    -initrd "$work/v2/initramfs.cpio" || rc=$?
  t1=$(date +%s)
  vm_log "cgroup v2 VM: $((t1 - t0)) s (qemu status $rc)"
  ((rc != 124)) || echo "vm: the VM ran out of time (VM_TIMEOUT=$VM_TIMEOUT)" >&2
  vm_verdict "$work/v2"
}

main ()
{
  local work rc=0
  if ((deps)); then
    vm_deps qemu-system-x86 busybox-static jq
  fi
  command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found"
  [[ -x $BUSYBOX ]] || skip "$BUSYBOX not found (busybox-static)"
  if [[ $EUID -ne 0 && $AGENTRT_VM_CACHE == /var/cache/agentrt-vm ]]; then
    AGENTRT_VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/agentrt-vm
  fi
  vm_kernel || { (($? == 2)) && skip "cannot download linux-image-amd64 with apt-get"; return 1; }
  build_agentrt
  work=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-vm.XXXXXX")
  run_v2 "$work" || rc=1
  if ((keep || rc)); then
    vm_log "logs kept in $work"
  else
    rm -rf "$work"
  fi
  if ((rc)); then
    vm_log "FAILED"
  else
    vm_log "all VM tests passed"
  fi
  return $rc
}

main
