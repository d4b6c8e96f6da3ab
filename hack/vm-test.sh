#!/bin/bash
# hack/vm-test.sh: agentrt on a real pure cgroup v2 kernel and under a
# real systemd, in qemu (software emulation unless VM_ACCEL says so).
#
# The cgroup v2 VM boots Debian's kernel (package linux-image-amd64,
# downloaded into the cache and unpacked there: never installed, the
# host's /boot is not touched) with an initramfs holding agentrt,
# agentrt-egress and their libraries, busybox, bash, a bundle rootfs and
# tests/vm/ (copied onto a blank ext4 disk: idmapped mounts, as on a real
# machine); the guest mounts cgroup2 with every controller and runs
# tests/vm/cgroup-v2.sh (lifecycle, memory/pids/cpu limits enforced,
# pause/resume, update, eBPF devices, the hardening that rests on
# cgroups).  The systemd VM boots the same kernel and initramfs into a
# small Debian with systemd as init (debootstrap, built once and cached as
# an ext4 image; the VM writes to a snapshot) and runs tests/vm/systemd.sh
# (`--systemd-cgroup` scopes for the podman, docker and kubelet paths).
# Both run side by side.  Results come back on a second serial port; the
# summary lines decide the exit status.  See docs/vm-testing.md.
#
#   hack/vm-test.sh [OPTIONS]
#     --only v2|systemd  one of the two suites (default: both, side by side)
#     --rebuild-image   build the systemd image again
#     --verbose         every guest test's trace, not only the failures'
#     --keep            keep the work directory (logs, initramfs)
#     --no-deps         do not apt-get anything
#     -h, --help
# Environment: AGENTRT_BUILD_DIR (agentrt and agentrt-egress; built when
# missing), AGENTRT_VM_CACHE (default /var/cache/agentrt-vm: the kernel
# and the image), AGENTRT_VM_MIRROR and AGENTRT_VM_SUITE (for debootstrap;
# default deb.debian.org and the host's release), VM_ACCEL (tcg; kvm where
# it works), VM_CPUS (2), VM_MEM (MiB, 1024), VM_TIMEOUT (seconds for the
# v2 VM, 280), VM_SYSTEMD_TIMEOUT (seconds for the systemd VM, 600).
# Exit status: 0 when every test passed, or when qemu or the kernel cannot
# be installed here (a line starting with SKIP says so; likewise for the
# systemd image alone); 1 otherwise.
set -euo pipefail

SELF=$(readlink -f "$0")
# shellcheck source=lib.sh
. "$(dirname "$SELF")/lib.sh"
# shellcheck source=vm/lib.sh
. "$AGENTRT_TOP/hack/vm/lib.sh"

: "${VM_TIMEOUT:=280}"
: "${VM_SYSTEMD_TIMEOUT:=600}"

usage ()
{
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"
  exit "${1:-0}"
}

keep=0 deps=1 v2=1 systemd=1 rebuild=0 VM_APPEND=
while [[ $# -gt 0 ]]; do
  case $1 in
    --only)
      case ${2:-} in
        v2) systemd=0 ;;
        systemd) v2=0 ;;
        *) usage 2 >&2 ;;
      esac
      shift 2 ;;
    --rebuild-image) rebuild=1; shift ;;
    --verbose) VM_APPEND+=" agentrt.verbose=1"; shift ;;
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

# install_packages PKG...: install what is missing; 1 (with the reason)
# when that is impossible here (not root, no apt, no mirror).
install_packages ()
{
  have_packages "$@" && return 0
  if ((!deps)); then
    echo "missing packages ($*) and --no-deps" >&2
    return 1
  fi
  if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "missing packages ($*); run as root on Debian to install them" >&2
    return 1
  fi
  vm_log "installing $*"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"; } >/dev/null 2>&1; then
    echo "cannot install $* with apt-get" >&2
    return 1
  fi
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

# run_vm WORK NAME TIMEOUT APPEND QEMU-ARGS...: boot one VM for the guest
# suite NAME (its logs in WORK/NAME); 0 when the suite passed.
run_vm ()
{
  local work=$1 name=$2 timeout=$3 append=$4 t0 t1 rc=0
  shift 4
  mkdir -p "$work/$name"
  t0=$(date +%s)
  vm_qemu "$work/$name" "$timeout" "agentrt.test=$name$append$VM_APPEND" \
    -initrd "$work/initramfs.cpio" "$@" || rc=$?
  t1=$(date +%s)
  vm_log "$name VM: $((t1 - t0)) s from start to power-off (qemu status $rc)"
  ((rc != 124)) || echo "vm: the $name VM ran out of time ($timeout s)" >&2
  vm_verdict "$work/$name"
}

# systemd_image: the cached image, built when missing; 0 when there is
# one, 2 when it cannot be built here (the suite is then skipped).
systemd_image ()
{
  local rc=0
  install_packages debootstrap e2fsprogs || return 2
  if ((rebuild)); then
    vm_systemd_image_path && rm -f "$VM_IMAGE"
  fi
  vm_systemd_image || rc=$?
  ((rc != 2)) || echo "SKIP: vm-test: cannot build the systemd image here" \
    "(root, debootstrap and $AGENTRT_VM_MIRROR are needed)" >&2
  return $rc
}

main ()
{
  local work rc=0 v2_pid='' sd_rc
  install_packages qemu-system-x86 busybox-static jq || skip "qemu or busybox cannot be installed"
  command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found"
  [[ -x $BUSYBOX ]] || skip "$BUSYBOX not found (busybox-static)"
  if [[ $EUID -ne 0 && $AGENTRT_VM_CACHE == /var/cache/agentrt-vm ]]; then
    AGENTRT_VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/agentrt-vm
  fi
  vm_kernel || { (($? == 2)) && skip "cannot download linux-image-amd64 with apt-get"; return 1; }
  build_agentrt
  work=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-vm.XXXXXX")
  vm_initramfs "$work/initramfs.cpio" "$AGENTRT_BUILD_DIR/agentrt" "$AGENTRT_BUILD_DIR/agentrt-egress" \
    || { rm -rf "$work"; return 1; }
  # The two VMs run side by side (the image is built meanwhile if needed).
  if ((v2)); then
    install_packages e2fsprogs && vm_scratch_disk || { rm -rf "$work"; return 1; }
    vm_log "booting $(basename "$(dirname "$VM_KERNEL")") ($VM_ACCEL, $VM_CPUS cpu, ${VM_MEM} MiB): cgroup v2 suite"
    run_vm "$work" cgroup-v2 "$VM_TIMEOUT" " cgroup_no_v1=all agentrt.disk=/dev/vda" \
      -drive "file=$VM_SCRATCH,if=virtio,format=raw,snapshot=on" &
    v2_pid=$!
  fi
  if ((systemd)); then
    sd_rc=0
    systemd_image || sd_rc=$?
    if ((sd_rc == 0)); then
      vm_log "booting $(basename "$VM_IMAGE") (systemd as init): systemd suite"
      run_vm "$work" systemd "$VM_SYSTEMD_TIMEOUT" " agentrt.root=/dev/vda" \
        -drive "file=$VM_IMAGE,if=virtio,format=raw,snapshot=on" || rc=1
    elif ((sd_rc != 2)); then
      rc=1
    fi
  fi
  if [[ -n $v2_pid ]]; then
    wait "$v2_pid" || rc=1
  fi
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
