#!/usr/bin/env python3
"""hack/bench/scale.py: the long-lived driver of hack/scale.sh and of
hack/bench.sh's `parallel` section.
  scale.py -n N --prefix P --bundle DIR --kv FILE [--rounds R] [--ratio A/B ...]
           --runtime NAME=ROOT=COMMAND ... (e.g. agentrt=R="agentrt --root R --policy F")
For each runtime, in this one process: N containers created concurrently
(detached, the bundle's process), then started concurrently, then listed,
killed and deleted concurrently.  With --rounds R, R such cycles per
runtime, the runtimes in rotating order (A B C, B C A, ...); the figures
written to --kv are medians over the rounds, and each --ratio A/B is
A's create+start time over B's (medians).  While they run it measures what the
runtime leaves per container (the PSS of every process it started other
than the container's own: after create the init waiting to exec plus the
monitor and sidecar, after start the monitor and sidecar), and the
kernel's memory growth.  Afterwards it checks that nothing is left: no
state dir, cgroup, mount, network namespace, runtime process, nor any fd
of its own that was not open before.  Prints the figures and writes them
as `key value` lines to --kv; exits 1 if something was left behind."""
import argparse
import concurrent.futures
import glob
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def own_fds():
    fds = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds[int(fd)] = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            pass  # the directory listing's own fd
    return fds


def smaps(pid):
    """(RSS, PSS) in KiB, or None once the process is gone."""
    rss = pss = 0
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        return None
    return rss, pss


def proc_stat(pid):
    """(state, start time) of a process, None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[19])


def start_time(pid):
    st = proc_stat(pid)
    return st[1] if st else None


def alive(pid, started):
    """The same process (not a reused pid), and not a zombie: a zombie
    holds nothing but its pid until its parent (here often pid 1) reaps it."""
    st = proc_stat(pid)
    return st is not None and st[1] == started and st[0] != "Z"


def meminfo(*keys):
    vals = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            vals[k] = int(v.split()[0])
    return sum(vals[k] for k in keys)


def netns_of(pid):
    try:
        return os.readlink("/proc/%d/ns/net" % pid)
    except OSError:
        return None


def netns_refs():
    """Every network namespace something still holds (a process's own, an
    open fd, a bind mount of nsfs), with everyone who holds it."""
    refs = {}
    for d in glob.glob("/proc/[0-9]*"):
        who = d.rsplit("/", 1)[1]
        try:
            refs.setdefault(os.readlink(d + "/ns/net"), []).append(who)
            fds = os.listdir(d + "/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink("%s/fd/%s" % (d, fd))
            except OSError:
                continue
            if link.startswith("net:["):
                refs.setdefault(link, []).append("fd of " + who)
    for ns, point in nsfs_mounts():
        refs.setdefault(ns, []).append("mount " + point)
    return refs


def nsfs_mounts():
    """(namespace, mount point) of every network namespace bind-mounted in
    our mount namespace (`ip netns add` makes such mounts)."""
    with open("/proc/self/mountinfo") as f:
        return {(line.split()[3], line.split()[4]) for line in f
                if " - nsfs " in line and line.split()[3].startswith("net:[")}


def new_holder(who, ns, since, mounts):
    """Whether `PID`, `fd of PID` or `mount POINT` (of namespace `ns`) came
    after the cycle began to kill its containers: a process started after
    `since` (CLOCK_BOOTTIME seconds), a mount not among `mounts`
    (nsfs_mounts() then).  Every process the runtime made for them was
    running before then (tracked() lists them after start), and a
    namespace's inode number is free for another namespace only once the
    namespace is gone, i.e. after the kill: a newcomer that holds one of these numbers holds a new
    namespace of other work on the machine, which makes namespaces all the
    time (another developer's sidecar started during the deletes, and an
    `ip netns add` after them, were taken for leftovers)."""
    if who.startswith("mount "):
        return (ns, who.split(" ", 1)[1]) not in mounts
    st = start_time(int(who.split()[-1]))
    return st is not None and st / os.sysconf("SC_CLK_TCK") > since


class Runtime:
    def __init__(self, name, command, root):
        self.name, self.cmd, self.root = name, shlex.split(command), root

    def run(self, args, log):
        """One command, stdio to LOG (a detached container keeps its
        stdout: a pipe would never reach EOF)."""
        with open(log, "ab") as out:
            r = subprocess.run(self.cmd + args, stdin=subprocess.DEVNULL, stdout=out,
                               stderr=out)
        return r.returncode


def concurrently(fn, items):
    """fn(item) for all items at once; returns (seconds, failures)."""
    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(items)) as pool:
        codes = list(pool.map(fn, items))
    return time.perf_counter() - t0, [i for i, c in zip(items, codes) if c != 0]


def residue(rt, ids, stage):
    """PSS and RSS summed over the runtime's own processes per container:
    the init while it waits to exec (stage create), monitor and sidecar."""
    pids = []
    for cid in ids:
        try:
            with open(os.path.join(rt.root, cid, "state.json")) as f:
                st = json.load(f)
        except (OSError, ValueError):
            st = {}
        for key in ("monitorPid", "sidecarPid"):
            if st.get(key):
                pids.append(st[key])
        if stage == "create":  # agentrt's state has "pid", runc's "init_process_pid"
            pid = st.get("pid") or st.get("init_process_pid")
            if pid:
                pids.append(pid)
    rss = pss = 0
    for pid in pids:
        m = smaps(pid)
        if m:
            rss += m[0]
            pss += m[1]
    return len(pids), rss, pss


def tracked(rt, ids):
    """(pid, start time) of every process the runtime made per container,
    and the network namespaces they live in (other than ours)."""
    procs, nets, ours = [], set(), netns_of(os.getpid())
    for cid in ids:
        try:
            with open(os.path.join(rt.root, cid, "state.json")) as f:
                st = json.load(f)
        except (OSError, ValueError):
            continue
        for key in ("pid", "init_process_pid", "monitorPid", "sidecarPid"):
            pid = st.get(key)
            if pid:
                procs.append((pid, start_time(pid)))
                ns = netns_of(pid)
                if ns and ns != ours:
                    nets.add(ns)
    return procs, nets


def leftovers(rt, prefix, procs, nets, mounts_before, since, ns_mounts):
    left = []
    if os.path.isdir(rt.root):
        left += ["state dir " + e for e in os.listdir(rt.root) if e.startswith(prefix)]
    for d in glob.glob("/sys/fs/cgroup/*/"):
        left += ["cgroup " + p for p in glob.glob(d + "**/" + prefix + "*", recursive=True)]
    with open("/proc/self/mountinfo") as f:
        mounts = [line for line in f if prefix in line or rt.root in line]
    left += ["mount " + m.split()[4] for m in mounts if m not in mounts_before]
    # Processes die asynchronously after kill: give them a few seconds.
    deadline = time.monotonic() + 5
    while any(alive(p, st) for p, st in procs) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid, st in procs:
        if alive(pid, st):
            left += ["process %d (%s)" % (pid, open("/proc/%d/comm" % pid).read().strip())]
    refs = netns_refs()
    for n in sorted(nets & set(refs)):
        holders = [w for w in refs[n] if not new_holder(w, n, since, ns_mounts)]
        if holders:
            left.append("netns %s (held by %s)" % (n, "; ".join(describe(w) for w in holders)))
    return left


def describe(who):
    """`PID` or `fd of PID` with the process's name, parent and age."""
    pid = who.split()[-1]
    try:
        with open("/proc/%s/stat" % pid) as f:
            head, rest = f.read().rsplit(")", 1)
        fields = rest.split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return "%s: %s, state %s, parent %s, %.1f s old" % (
            who, head.split("(", 1)[1], fields[0], fields[1], age)
    except (OSError, ValueError, IndexError):
        return who


def cycle(rt, a, rnd):
    """One cycle; returns (ok, figures)."""
    ids = ["%s-%s-r%d-%d" % (a.prefix, rt.name, rnd, i) for i in range(a.n)]
    logdir = os.path.join(a.logs, rt.name)
    os.makedirs(logdir, exist_ok=True)
    log = lambda cid: os.path.join(logdir, cid + ".log")
    with open("/proc/self/mountinfo") as f:
        mounts_before = [line for line in f if a.prefix in line or rt.root in line]
    kern0 = meminfo("Slab", "PageTables", "KernelStack")
    shmem0 = meminfo("Shmem")
    avail0 = meminfo("MemAvailable")

    t_create, bad = concurrently(
        lambda c: rt.run(["create", "--bundle", a.bundle, c], log(c)), ids)
    n_cr, rss_cr, pss_cr = residue(rt, ids, "create")
    t_start, bad2 = concurrently(lambda c: rt.run(["start", c], log(c)), ids)
    bad += bad2
    time.sleep(1)  # let the containers' first steps settle before measuring
    n_run, rss_run, pss_run = residue(rt, ids, "start")
    kern = meminfo("Slab", "PageTables", "KernelStack") - kern0
    shmem = meminfo("Shmem") - shmem0
    avail = avail0 - meminfo("MemAvailable")
    procs, nets = tracked(rt, ids)

    t0 = time.perf_counter()
    out = subprocess.run(rt.cmd + ["list", "--format", "json"], capture_output=True, text=True)
    t_list = time.perf_counter() - t0
    listed = json.loads(out.stdout or "[]") or []
    running = sum(1 for c in listed if c.get("id") in ids and c.get("status") == "running")
    # a process started or an nsfs mount made from now on holds none of
    # these containers' namespaces (new_holder)
    ns_mounts = nsfs_mounts()
    since = time.clock_gettime(time.CLOCK_BOOTTIME)
    t_kill, _ = concurrently(lambda c: rt.run(["kill", c, "KILL"], log(c)), ids)
    t_delete, bad3 = concurrently(lambda c: rt.run(["delete", "--force", c], log(c)), ids)
    bad += bad3
    time.sleep(0.5)
    left = leftovers(rt, a.prefix, procs, nets, mounts_before, since, ns_mounts)

    n = a.n
    print("  %s: %d containers%s" % (rt.name, n, " (round %d)" % (rnd + 1) if a.rounds > 1 else ""))
    print("    create %.2f s, start %.2f s: %.1f containers/s created+started"
          % (t_create, t_start, n / (t_create + t_start)))
    print("    list %.3f s (%d running), kill %.2f s, delete --force %.2f s"
          % (t_list, running, t_kill, t_delete))
    print("    left by the runtime per container after create: %.0f KiB PSS (%.0f KiB RSS,"
          " %d processes)" % (pss_cr / n, rss_cr / n, n_cr))
    print("    left by the runtime per running container: %.0f KiB PSS (%.0f KiB RSS,"
          " %d processes)" % (pss_run / n, rss_run / n, n_run))
    print("    per running container, whole machine (indicative): kernel (slab, page tables,"
          " stacks) %+.0f KiB, shmem %+.0f KiB, MemAvailable %+.0f KiB"
          % (kern / n, shmem / n, -avail / n))
    figures = {"per_s": n / (t_create + t_start), "create_start_s": t_create + t_start,
               "create_s": t_create, "start_s": t_start,
               "list_s": t_list, "delete_s": t_delete, "running": running,
               "pss_created_KiB": pss_cr / n, "pss_running_KiB": pss_run / n,
               "rss_running_KiB": rss_run / n, "procs_running": n_run,
               "kernel_KiB": kern / n, "shmem_KiB": shmem / n, "avail_KiB": avail / n,
               "failures": len(bad), "leftovers": len(left)}
    ok = True
    if bad:
        ok = False
        print("    FAILED: %d command(s), e.g. %s:" % (len(bad), bad[0]))
        with open(log(bad[0])) as f:
            print("      " + f.read().strip().replace("\n", "\n      "))
    if running != n:
        ok = False
        print("    FAILED: %d of %d listed as running" % (running, n))
    if left:
        ok = False
        print("    LEFT BEHIND (%d): %s" % (len(left), "; ".join(left[:10])))
    else:
        print("    nothing left behind (state dirs, cgroups, mounts, processes, netns)")
    return ok, figures


# How each figure is written to --kv (failures and leftovers: the worst
# round; the rest: the median).
FORMATS = {"per_s": "%.1f", "create_start_s": "%.2f", "create_s": "%.2f", "start_s": "%.2f",
           "list_s": "%.3f", "delete_s": "%.2f", "running": "%d", "pss_created_KiB": "%.0f",
           "pss_running_KiB": "%.0f", "rss_running_KiB": "%.0f", "procs_running": "%d",
           "kernel_KiB": "%.0f", "shmem_KiB": "%.0f", "avail_KiB": "%.0f",
           "failures": "%d", "leftovers": "%d"}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-n", type=int, default=200)
    p.add_argument("--prefix", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--logs", required=True)
    p.add_argument("--kv", required=True)
    p.add_argument("--runtime", action="append", required=True, help="NAME=ROOT=COMMAND")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--ratio", action="append", default=[], help="A/B")
    a = p.parse_args()
    # N children at once, each with a log file: the soft fd limit up to the
    # hard one.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    fds_before = own_fds()
    kv, ok = [], True
    runtimes = []
    for spec in a.runtime:
        name, root, command = spec.split("=", 2)
        runtimes.append(Runtime(name, command, root))
    results = {rt.name: [] for rt in runtimes}
    for rnd in range(a.rounds):
        for i in range(len(runtimes)):
            rt = runtimes[(rnd + i) % len(runtimes)]
            good, figures = cycle(rt, a, rnd)
            ok = ok and good
            results[rt.name].append(figures)
    for rt in runtimes:
        for k, fmt in FORMATS.items():
            vals = [f[k] for f in results[rt.name]]
            v = max(vals) if k in ("failures", "leftovers") else statistics.median(vals)
            kv.append(("scale.%s.%s" % (rt.name, k), fmt % v))
    if a.rounds > 1:
        for rt in runtimes:
            print("  %s, median of %d rounds: %.1f containers/s created+started (%s)"
                  % (rt.name, a.rounds, statistics.median(f["per_s"] for f in results[rt.name]),
                     ", ".join("%.2f s" % f["create_start_s"] for f in results[rt.name])))
    for r in a.ratio:
        x, y = r.split("/")
        ratio = (statistics.median(f["create_start_s"] for f in results[x])
                 / statistics.median(f["create_start_s"] for f in results[y]))
        print("  %s: create+start time ratio %.2f" % (r, ratio))
        kv.append(("scale.%s.create_start" % r, "%.2f" % ratio))
    fds_after = own_fds()
    extra = {fd: t for fd, t in fds_after.items() if fds_before.get(fd) != t}
    if extra:
        ok = False
        print("  FAILED: the driver holds %d fd(s) it did not hold before: %s"
              % (len(extra), extra))
    else:
        print("  the driver's fds after all cycles are the ones it had before (%d)"
              % len(fds_before))
    kv.append(("scale.driver_extra_fds", str(len(extra))))
    with open(a.kv, "w") as f:
        for k, v in kv:
            f.write("%s %s\n" % (k, v))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
