# shellcheck shell=bash
# hack/vm/lib.sh: the host side of hack/vm-test.sh.  Debian's kernel
# (downloaded once with apt-get and unpacked into the cache, never
# installed: the host's /boot and boot loader are not touched), the
# initramfs (busybox, agentrt and agentrt-egress with their libraries,
# bash and jq, a busybox bundle rootfs, the guest tests of tests/vm/) and
# qemu with the kernel console on ttyS0 and the results on ttyS1.
# Source hack/lib.sh first.

: "${AGENTRT_VM_CACHE:=/var/cache/agentrt-vm}"
# No KVM on the development host (its /dev/kvm hangs the guest): software
# emulation unless told otherwise (VM_ACCEL=kvm).
: "${VM_ACCEL:=tcg}"
: "${VM_MEM:=1024}"
: "${VM_CPUS:=2}"

VM_HACK_DIR=$AGENTRT_TOP/hack/vm
VM_TESTS_DIR=$AGENTRT_TOP/tests/vm

# The systemd guest's disk: Debian (the host's release) from this mirror.
: "${AGENTRT_VM_MIRROR:=http://deb.debian.org/debian}"
: "${AGENTRT_VM_SUITE:=$( (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}") || true)}"
# Bump when the image's content changes: a new name makes a new image.
VM_IMAGE_LAYOUT=3
VM_IMAGE_PACKAGES=systemd,systemd-sysv,libyajl2,libseccomp2,libcap2,libselinux1

# The kernel modules the guests load (dependencies are added in order).
VM_MODULES_V2=(overlay)
VM_MODULES_DISK=(virtio_pci virtio_blk crc32c_generic ext4)
# Both guests: what the transparent egress rules need (runtime/netns_rules.c);
# crc32c_generic first: libcrc32c (nf_conntrack's) asks the crypto API for
# crc32c when it loads (a softdep, which the closure does not follow).
VM_MODULES_NET=(crc32c_generic nf_tables nft_chain_nat nft_redir nft_reject_inet)

vm_log ()
{
  printf '==> vm: %s\n' "$*" >&2
}

# vm_kernel_package: the name and version of the kernel package that
# linux-image-amd64 points at, as NAME=VERSION; fails when apt knows none.
vm_kernel_package ()
{
  local pkg ver
  pkg=$(apt-cache depends --important linux-image-amd64 2>/dev/null \
    | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
  [[ -n $pkg ]] || return 1
  ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null | awk '$1 == "Version:" { print $2; exit }')
  [[ -n $ver ]] || return 1
  printf '%s=%s\n' "$pkg" "$ver"
}

# _module_deps KO: the `depends=` names of a module file.
_module_deps ()
{
  tr '\0' '\n' <"$1" | sed -n 's/^depends=//p' | tr ',' ' '
}

# _module_closure MODDIR NAME...: the .ko paths (relative to MODDIR) of
# NAME... and their dependencies, dependencies first, each once.
_module_closure ()
{
  local moddir=$1 name path dep
  shift
  for name in "$@"; do
    [[ " ${_seen_modules:-} " == *" $name "* ]] && continue
    _seen_modules="${_seen_modules:-} $name"
    path=$(grep -E "/${name//_/[-_]}\.ko$" "$moddir/modules.order" | head -n 1)
    if [[ -z $path ]]; then
      grep -qE "/${name//_/[-_]}\.ko$" "$moddir/modules.builtin" && continue
      echo "vm: kernel module $name not found" >&2
      return 1
    fi
    for dep in $(_module_deps "$moddir/$path"); do
      _module_closure "$moddir" "$dep" || return 1
    done
    printf '%s\n' "$path"
  done
}

# vm_kernel: sets VM_KERNEL (the vmlinuz) and VM_KMODS (a directory with
# the modules the guests need, and v2.list/disk.list giving their load
# order), downloading and unpacking the kernel package into
# $AGENTRT_VM_CACHE/kernel/NAME_VERSION the first time.  Returns 2 when the
# package cannot be had (no Debian apt, no mirror).
vm_kernel ()
{
  local nv dir tmp moddir list f mods names _seen_modules
  nv=$(vm_kernel_package) || return 2
  # the module lists are part of the name: another list, another download
  dir=$AGENTRT_VM_CACHE/kernel/${nv/=/_}-$(printf '%s\n' "${VM_MODULES_V2[@]}" \
    "${VM_MODULES_DISK[@]}" "${VM_MODULES_NET[@]}" | md5sum | cut -c1-8)
  VM_KMODS=$dir/modules
  if [[ -f $dir/complete ]]; then
    VM_KERNEL=$dir/vmlinux
    [[ -f $VM_KERNEL ]] || VM_KERNEL=$dir/vmlinuz
    return 0
  fi
  vm_log "downloading ${nv%=*} ${nv#*=} into $dir"
  mkdir -p "$AGENTRT_VM_CACHE/kernel" || return 1
  tmp=$(mktemp -d "$AGENTRT_VM_CACHE/kernel/tmp.XXXXXX") || return 1
  # _apt cannot write into the cache: download as the caller.
  if ! (cd "$tmp" && apt-get -q -o APT::Sandbox::User="$(id -un)" download "${nv%=*}=${nv#*=}" >/dev/null); then
    rm -rf "$tmp"
    return 2
  fi
  mkdir -p "$tmp/x" "$tmp/out/modules"
  dpkg-deb -x "$tmp"/*.deb "$tmp/x" || { rm -rf "$tmp"; return 1; }
  cp "$tmp"/x/boot/vmlinuz-* "$tmp/out/vmlinuz" && cp "$tmp"/x/boot/config-* "$tmp/out/config" \
    || { rm -rf "$tmp"; return 1; }
  _extract_vmlinux "$tmp/out/vmlinuz" "$tmp/out/vmlinux"
  moddir=$(echo "$tmp"/x/lib/modules/*)
  for list in v2 disk net; do
    case $list in
      v2) names=("${VM_MODULES_V2[@]}") ;;
      disk) names=("${VM_MODULES_DISK[@]}") ;;
      net) names=("${VM_MODULES_NET[@]}") ;;
    esac
    _seen_modules=
    mods=$(_module_closure "$moddir" "${names[@]}") && [[ -n $mods ]] || { rm -rf "$tmp"; return 1; }
    for f in $mods; do
      cp "$moddir/$f" "$tmp/out/modules/" || { rm -rf "$tmp"; return 1; }
      basename "$f" >>"$tmp/out/modules/$list.list"
    done
  done
  touch "$tmp/out/complete"
  rm -rf "$dir"
  mv -T "$tmp/out" "$dir" || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
  VM_KERNEL=$dir/vmlinux
  [[ -f $VM_KERNEL ]] || VM_KERNEL=$dir/vmlinuz
}

# _extract_vmlinux BZIMAGE OUT: the uncompressed ELF kernel inside an
# xz-compressed bzImage (Debian's).  qemu boots it through its PVH entry,
# which saves the guest decompressing the kernel under emulation.  Leaves
# no OUT when there is none.
_extract_vmlinux ()
{
  local off
  off=$(LC_ALL=C grep -abo $'\xfd7zXZ' "$1" | head -n 1 | cut -d: -f1)
  [[ -n $off ]] || return 0
  tail -c +$((off + 1)) "$1" | xz -dc >"$2" 2>/dev/null
  [[ $(head -c 4 "$2" | od -An -c | tr -d ' ') == 177ELF ]] || rm -f "$2"
}

# _copy_with_libs DEST FILE...: FILE (an executable) at DEST/DIR where
# DIR/NAME is where it goes, i.e. each argument is SRC:DESTPATH, plus every
# shared library ldd lists, at the same path.
_copy_with_libs ()
{
  local dest=$1 spec src to lib
  shift
  for spec in "$@"; do
    src=${spec%%:*} to=${spec#*:}
    install -D -m 0755 "$src" "$dest$to" || return 1
    for lib in $(ldd "$src" 2>/dev/null | grep -oE '/[^ ]+' ); do
      [[ -e $dest$lib ]] && continue
      install -D -m 0755 "$(readlink -f "$lib")" "$dest$lib" || return 1
    done
  done
}

# _config_template AGENTRT: `AGENTRT spec` made into the template the guest's
# mk_bundle fills in (tests/vm/lib.sh): no terminal, a cgroup namespace,
# the shared busybox root read-only, and placeholders for the process,
# cgroupsPath, resources, extra mounts and annotations.
_config_template ()
{
  local tmp rc=0
  tmp=$(mktemp -d) || return 1
  (cd "$tmp" && "$1" spec) && jq -c '.process.terminal = false
    | .process.args = "__ARGS__"
    | .root = {path: "/opt/agentrt/rootfs", readonly: true}
    | .linux.namespaces += [{type: "cgroup"}]
    | .linux.cgroupsPath = "__CGROUPSPATH__"
    | .linux.resources = "__RESOURCES__"
    | .mounts += ["__MOUNTS__"]
    | .annotations = "__ANNOTATIONS__"' "$tmp/config.json" || rc=1
  rm -rf "$tmp"
  return $rc
}

# vm_stage_tree DIR AGENTRT EGRESS: the files every guest gets: busybox
# with its applets, /init, bash, agentrt and agentrt-egress in
# /opt/agentrt/bin (with no-clone3, a test helper built here), the agent
# seccomp profile, the busybox bundle rootfs
# in /opt/agentrt/rootfs with the config template next to it, the guest
# tests in /opt/agentrt/tests and the kernel modules.
vm_stage_tree ()
{
  local s=$1 agentrt=$2 egress=$3 applet
  mkdir -p "$s"/{bin,sbin,etc,proc,sys,dev,run,tmp,root,lib/modules/agentrt} || return 1
  cp "$BUSYBOX" "$s/bin/busybox" || return 1
  for applet in $("$BUSYBOX" --list); do
    [[ $applet == busybox ]] || ln -s busybox "$s/bin/$applet"
  done
  install -m 0755 "$VM_HACK_DIR/init" "$s/init" || return 1
  _copy_with_libs "$s" "$(command -v bash):/usr/bin/bash" "$agentrt:/opt/agentrt/bin/agentrt" "$egress:/opt/agentrt/bin/agentrt-egress" || return 1
  ln -s /usr/bin/bash "$s/bin/bash"
  cc -static -O2 -Wall -o "$s/opt/agentrt/bin/no-clone3" "$VM_TESTS_DIR/no-clone3.c" || return 1
  # busybox again, for the systemd guest (its tools come after Debian's).
  mkdir -p "$s/opt/agentrt/bb"
  cp "$BUSYBOX" "$s/opt/agentrt/bb/busybox" || return 1
  for applet in $("$BUSYBOX" --list); do
    [[ $applet == busybox ]] || ln -s busybox "$s/opt/agentrt/bb/$applet"
  done
  install -D -m 0644 "$AGENTRT_TOP/seccomp-profiles/agent-default.json" \
    "$s/opt/agentrt/share/agent-default.json" || return 1
  mkrootfs "$s/opt/agentrt/rootfs" || return 1
  _config_template "$agentrt" >"$s/opt/agentrt/config-template.json" || return 1
  mkdir -p "$s/opt/agentrt/tests" && cp "$VM_TESTS_DIR"/*.sh "$s/opt/agentrt/tests/" || return 1
  cp "$VM_KMODS"/*.ko "$VM_KMODS"/*.list "$s/lib/modules/agentrt/" || return 1
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$s/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$s/etc/group"
}

# vm_initramfs OUT AGENTRT EGRESS: the initramfs (uncompressed newc cpio:
# under emulation unpacking gzip costs more than loading the bytes).
vm_initramfs ()
{
  local out=$1 s rc=0
  s=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-vm-initramfs.XXXXXX") || return 1
  vm_stage_tree "$s" "$2" "$3" \
    && (cd "$s" && find . -mindepth 1 | LC_ALL=C sort | "$BUSYBOX" cpio -o -H newc -R 0:0 2>/dev/null) >"$out" \
    || rc=1
  rm -rf "$s"
  return $rc
}

# _image_setup ROOT: make a debootstrapped tree boot quickly to the test
# unit under systemd: no logins, no timers, no fsck of the root.
_image_setup ()
{
  local r=$1 u
  printf '/dev/vda / ext4 rw,relatime 0 0\n' >"$r/etc/fstab"
  echo agentrt-vm >"$r/etc/hostname"
  ln -sf /lib/systemd/system/multi-user.target "$r/etc/systemd/system/default.target"
  for u in getty@tty1.service serial-getty@ttyS0.service apt-daily.timer apt-daily-upgrade.timer \
    dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer systemd-timesyncd.service; do
    ln -sf /dev/null "$r/etc/systemd/system/$u"
  done
  rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/*
}

# vm_systemd_image_path: sets VM_IMAGE to where the image is cached.
vm_systemd_image_path ()
{
  [[ -n $AGENTRT_VM_SUITE ]] || return 1
  VM_IMAGE=$AGENTRT_VM_CACHE/debian-$AGENTRT_VM_SUITE-systemd-v$VM_IMAGE_LAYOUT.ext4
}

# vm_systemd_image: sets VM_IMAGE, the cached ext4 image of a minimal
# Debian with systemd as init, building it the first time with debootstrap
# (root; a few minutes).  Returns 2 when it cannot be built here (no
# debootstrap, no mirror, no suite).
vm_systemd_image ()
{
  local tmp
  vm_systemd_image_path || return 2
  [[ -f $VM_IMAGE ]] && return 0
  command -v debootstrap >/dev/null && [[ $EUID -eq 0 ]] || return 2
  vm_log "building $VM_IMAGE (debootstrap $AGENTRT_VM_SUITE from $AGENTRT_VM_MIRROR)"
  mkdir -p "$AGENTRT_VM_CACHE" || return 1
  tmp=$(mktemp -d "$AGENTRT_VM_CACHE/image.XXXXXX") || return 1
  if ! debootstrap --variant=minbase --include="$VM_IMAGE_PACKAGES" \
    "$AGENTRT_VM_SUITE" "$tmp/root" "$AGENTRT_VM_MIRROR" >"$tmp/debootstrap.log" 2>&1; then
    tail -n 20 "$tmp/debootstrap.log" >&2
    rm -rf "$tmp"
    return 2
  fi
  _image_setup "$tmp/root" \
    && mkfs.ext4 -q -F -L agentrt-vm -d "$tmp/root" "$tmp/image.ext4" 2G >/dev/null \
    && mv "$tmp/image.ext4" "$VM_IMAGE" || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
}

# vm_scratch_disk: sets VM_SCRATCH, the cached blank ext4 image the cgroup
# v2 guest copies its initramfs onto (qemu keeps the guest's writes in a
# snapshot: the image stays blank).
vm_scratch_disk ()
{
  VM_SCRATCH=$AGENTRT_VM_CACHE/scratch-v1.ext4
  [[ -f $VM_SCRATCH ]] && return 0
  mkdir -p "$AGENTRT_VM_CACHE" || return 1
  mkfs.ext4 -q -F -L agentrt-scratch "$VM_SCRATCH.tmp" 1G >/dev/null \
    && mv "$VM_SCRATCH.tmp" "$VM_SCRATCH" || { rm -f "$VM_SCRATCH.tmp"; return 1; }
}

# vm_qemu LOGDIR TIMEOUT APPEND QEMU-ARGS...: boot VM_KERNEL with the
# kernel command line APPEND; the console goes to LOGDIR/console.log,
# the results port (ttyS1) to LOGDIR/results.log and to stdout, each line
# prefixed with [LOGDIR's name].  Returns
# qemu's status (124 when TIMEOUT seconds ran out).
vm_qemu ()
{
  local logdir=$1 timeout=$2 append=$3
  shift 3
  timeout -k 10 "$timeout" qemu-system-x86_64 \
    -accel "$VM_ACCEL" -cpu max -smp "$VM_CPUS" -m "$VM_MEM" \
    -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$VM_KERNEL" -append "console=ttyS0 panic=-1 quiet $append" \
    -serial "file:$logdir/console.log" \
    -chardev stdio,id=results,signal=off -serial chardev:results \
    "$@" </dev/null | tee "$logdir/results.log" | sed -u "s/^/[$(basename "$logdir")] /"
  return "${PIPESTATUS[0]}"
}

# vm_verdict LOGDIR: prints PASS or FAIL with the guest's counts; 0 when
# results.log ends with a summary line without failures.  A guest that
# never printed one failed: the console's tail says why.
vm_verdict ()
{
  local logdir=$1 name summary
  name=$(basename "$logdir")
  summary=$(grep -a '^VMTEST RESULT ' "$logdir/results.log" | tail -n 1)
  if [[ -z $summary ]]; then
    echo "vm: $name: FAIL: no result line from the guest (crash or timeout); console tail:" >&2
    tail -n 40 "$logdir/console.log" >&2
    return 1
  fi
  if [[ $summary != *" fail=0 "* ]]; then
    echo "vm: $name: FAIL (${summary#VMTEST RESULT })" >&2
    return 1
  fi
  echo "vm: $name: PASS (${summary#VMTEST RESULT })" >&2
}
