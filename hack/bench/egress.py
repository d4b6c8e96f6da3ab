#!/usr/bin/env python3
"""hack/bench/egress.py: the egress section of hack/bench.sh.
  egress.py --netbench BIN --netns /run/netns/NAME --port SERVER_PORT
            --server-pid PID --proxy NAME:PORT:PID ... [--container NAME:SIDECAR_PID
            --exec "agentrt ... exec ID" [--transparent NAME:ADDR]
            [--dns-name NAME --dns-queries N]] --bytes N --rounds R
            --conn-rounds K --conns N --hold N --sparse-rounds K
            --sparse-conns N --sparse-gap-us US --kv FILE
Targets: `direct` (netbench/curl in the namespace, straight to the
server), each --proxy (reached with CONNECT on 127.0.0.1:PORT in the
namespace; PID is the process whose CPU and memory count), the
--container, whose processes (started with --exec) reach the server
through their sidecar on 127.0.0.1:3128, and with --transparent the same
processes connecting straight to ADDR:SERVER_PORT (the server's address
as the container sees it), which the nftables rules of the container's
namespace send to the sidecar's transparent listener.  --dns-name: the
container's DNS stub answering NAME from its cache, N queries in a row
(the first, which the sidecar resolves, not counted).  Every measurement is repeated
in rounds that visit the targets in a rotating order; medians are taken
over rounds (throughput) or over all samples (new connections).
Figures go to stdout and, as `key value` lines, to --kv."""
import argparse
import shlex
import statistics
import subprocess

GIB = 1 << 30
SIDECAR_PORT = 3128


# Single-threaded by construction: their CPU time is read exactly.
SINGLE_THREADED = ("agentrt-egress", "netbench")


def cpu_seconds(pid):
    """CPU time of process PID: exact (schedstat, ns) for agentrt-egress
    and netbench; else from /proc/PID/stat in USER_HZ ticks, which also
    counts threads that have exited (tinyproxy starts one per client)."""
    with open("/proc/%d/comm" % pid) as f:
        single = f.read().strip() in SINGLE_THREADED
    if single:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0]) / 1e9
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def memory_kib(pid):
    """RSS and PSS (KiB) from smaps_rollup."""
    rss = pss = 0
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    return rss, pss


class Target:
    """Where a client runs (PREFIX: nsenter or agentrt exec), which proxy
    port it goes through (VIA, 0: none) and whose CPU and memory count."""

    def __init__(self, name, via, pid, prefix, netbench_path, addr=None):
        self.name, self.via, self.pid = name, via, pid
        self.prefix, self.netbench_path, self.addr = prefix, netbench_path, addr

    def cmd(self, argv):
        return self.prefix + argv

    def dest(self, port):
        """netbench's DEST: the server's port, at addr when given."""
        return "%s:%d" % (self.addr, port) if self.addr else str(port)

    def url(self, port, path):
        return "http://%s:%d/%s" % (self.addr or "127.0.0.1", port, path)


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def rotate(items, k):
    k %= len(items)
    return items[k:] + items[:k]


def measure_cpu(t, fn):
    c0 = cpu_seconds(t.pid) if t.pid else 0
    out = fn()
    return out, (cpu_seconds(t.pid) - c0) if t.pid else None


def throughput(a, targets, kv, tool):
    """One download of a.bytes per target and round, with netbench or curl."""
    times = {t.name: [] for t in targets}
    cpus = {t.name: [] for t in targets}
    server = {t.name: [] for t in targets}
    for r in range(a.rounds):
        for t in rotate(targets, r):
            if tool == "netbench":
                argv = t.cmd([t.netbench_path, "get", str(t.via or "-"), t.dest(a.port),
                              str(a.bytes)])
            else:
                # --noproxy "": the container's NO_PROXY names 127.0.0.1;
                # "*": no proxy at all (the transparent path)
                argv = t.cmd(["curl", "-sS", "--noproxy", "" if t.via else "*", "-o",
                              "/dev/null", "-w", "%{time_total}"]
                             + (["-x", "http://127.0.0.1:%d" % t.via] if t.via else [])
                             + [t.url(a.port, a.bytes)])
            s0 = cpu_seconds(a.server_pid)
            out, cpu = measure_cpu(t, lambda: run(argv))
            server[t.name].append(cpu_seconds(a.server_pid) - s0)
            times[t.name].append(float(out.split()[-1]))
            if cpu is not None:
                cpus[t.name].append(cpu)
    direct = statistics.median(times["direct"])
    print("  throughput, %s, %d round(s) of %d MiB:" % (tool, a.rounds, a.bytes >> 20))
    for t in targets:
        med = statistics.median(times[t.name])
        mibs = a.bytes / med / (1 << 20)
        line = "    %-16s %7.0f MiB/s  %.2fx direct  server CPU %.2f s/GiB" % (
            t.name, mibs, direct / med, statistics.median(server[t.name]) / (a.bytes / GIB))
        kv.append(("egress.%s.%s.MiBps" % (tool, t.name), "%.0f" % mibs))
        if t.name != "direct":
            kv.append(("egress.%s.%s/direct" % (tool, t.name), "%.2f" % (direct / med)))
        if cpus[t.name]:
            per_gib = statistics.median(cpus[t.name]) / (a.bytes / GIB)
            line += "  proxy CPU %.2f s/GiB" % per_gib
            kv.append(("egress.%s.%s.cpu_s_per_GiB" % (tool, t.name), "%.2f" % per_gib))
        print(line)


def sequential_conns(a, targets, rounds, n, gap_us):
    """rounds x n sequential new connections per target (`netbench conns`,
    with gap_us between them), rotating the targets each round: each
    target's connection times (us) and its proxy's CPU per connection."""
    samples = {t.name: [] for t in targets}
    cpus = {t.name: 0.0 for t in targets}
    for r in range(rounds):
        for t in rotate(targets, r):
            argv = t.cmd([t.netbench_path, "conns", str(t.via or "-"), t.dest(a.port), str(n),
                          str(gap_us)])
            out, cpu = measure_cpu(t, lambda: run(argv))
            samples[t.name] += [float(x) for x in out.split()]
            cpus[t.name] += cpu or 0.0
    return samples, {name: cpu / (rounds * n) for name, cpu in cpus.items()}


def connections(a, targets, kv):
    """a.conn_rounds x a.conns new connections back to back per target (the
    references too): median, added time against direct and, as the issue
    set its target (0.15 ms where tinyproxy added about 0.25 ms), against
    what tinyproxy added in the same run."""
    for t in targets:  # warm up
        run(t.cmd([t.netbench_path, "conns", str(t.via or "-"), t.dest(a.port), "20"]))
    samples, cpu = sequential_conns(a, targets, a.conn_rounds, a.conns, 0)
    median = {name: statistics.median(xs) for name, xs in samples.items()}
    added = {name: m - median["direct"] for name, m in median.items()}
    tinyproxy = added.get("tinyproxy", 0)
    print("  new connection (connect, CONNECT, 1-byte round trip, close), %d per target:"
          % (a.conn_rounds * a.conns))
    for t in targets:
        q = statistics.quantiles(samples[t.name], n=4)
        line = "    %-16s median %6.0f us (IQR %.0f-%.0f)" % (t.name, median[t.name], q[0], q[2])
        kv.append(("egress.conn.%s.us" % t.name, "%.0f" % median[t.name]))
        if t.name != "direct":
            line += "  added %.3f ms" % (added[t.name] / 1e3)
            kv.append(("egress.conn.%s.added_ms" % t.name, "%.3f" % (added[t.name] / 1e3)))
        if t.name not in ("direct", "tinyproxy") and tinyproxy > 0:
            line += " (%.2fx tinyproxy's)" % (added[t.name] / tinyproxy)
            kv.append(("egress.conn.%s/tinyproxy.added" % t.name,
                       "%.2f" % (added[t.name] / tinyproxy)))
        if t.pid:
            line += "  proxy CPU %.0f us/conn" % (cpu[t.name] * 1e6)
            kv.append(("egress.conn.%s.cpu_us" % t.name, "%.0f" % (cpu[t.name] * 1e6)))
        print(line)


def sparse(a, targets, kv):
    """What polling costs when connections come apart: a.sparse_rounds x
    a.sparse_conns per target with a.sparse_gap_us between them."""
    samples, cpu = sequential_conns(a, targets, a.sparse_rounds, a.sparse_conns, a.sparse_gap_us)
    print("  sparse connections (the same, one every %d us), %d per target:"
          % (a.sparse_gap_us, a.sparse_rounds * a.sparse_conns))
    for t in targets:
        med = statistics.median(samples[t.name])
        line = "    %-16s median %6.0f us" % (t.name, med)
        kv.append(("egress.sparse.%s.us" % t.name, "%.0f" % med))
        if t.pid:
            line += "  proxy CPU %.0f us/conn" % (cpu[t.name] * 1e6)
            kv.append(("egress.sparse.%s.cpu_us" % t.name, "%.0f" % (cpu[t.name] * 1e6)))
        print(line)


def memory(a, targets, kv):
    print("  proxy memory, idle and with %d open tunnels (KiB):" % a.hold)
    for t in targets:
        if not t.pid:
            continue
        rss0, pss0 = memory_kib(t.pid)
        p = subprocess.Popen(t.cmd([t.netbench_path, "hold", str(t.via or "-"), t.dest(a.port),
                                    str(a.hold)]),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = p.stdout.readline().strip()
        rss1, pss1 = memory_kib(t.pid)
        p.stdin.close()
        if p.wait() != 0 or ready != "ready":
            raise SystemExit("egress.py: %s: holding %d tunnels failed" % (t.name, a.hold))
        print("    %-16s idle RSS %6d PSS %6d   %d tunnels RSS %6d PSS %6d"
              % (t.name, rss0, pss0, a.hold, rss1, pss1))
        for k, v in (("rss_idle", rss0), ("pss_idle", pss0), ("rss_hold", rss1),
                     ("pss_hold", pss1)):
            kv.append(("egress.mem.%s.%s_KiB" % (t.name, k), str(v)))
    kv.append(("egress.hold", str(a.hold)))


def dns_latency(a, t, kv):
    """The stub's cached answer: a.dns_queries A queries in a row from the
    container (to any server address: the rules send them to the stub)."""
    run(t.cmd([t.netbench_path, "dns", "9.9.9.9", a.dns_name, "1"]))  # resolved, cached
    samples = []
    for _ in range(a.rounds):
        out = run(t.cmd([t.netbench_path, "dns", "9.9.9.9", a.dns_name, str(a.dns_queries)]))
        samples += [float(x) for x in out.split()]
    med = statistics.median(samples)
    q = statistics.quantiles(samples, n=100)
    print("  DNS stub, cached answer (A %s), %d queries: median %.0f us, p99 %.0f us"
          % (a.dns_name, len(samples), med, q[98]))
    kv.append(("egress.dns.cached.us", "%.0f" % med))
    kv.append(("egress.dns.cached.p99_us", "%.0f" % q[98]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--netbench", required=True)
    p.add_argument("--netns", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--server-pid", type=int, required=True)
    p.add_argument("--proxy", action="append", default=[])
    # NAME:PORT:PID, measured for new connections only (one at a time)
    p.add_argument("--reference", action="append", default=[])
    p.add_argument("--container")
    p.add_argument("--exec", dest="exec_")
    p.add_argument("--transparent")
    p.add_argument("--dns-name")
    p.add_argument("--dns-queries", type=int, default=200)
    p.add_argument("--bytes", type=int, default=GIB)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--conn-rounds", type=int, default=8)
    p.add_argument("--conns", type=int, default=125)
    p.add_argument("--hold", type=int, default=500)
    p.add_argument("--sparse-rounds", type=int, default=4)
    p.add_argument("--sparse-conns", type=int, default=100)
    p.add_argument("--sparse-gap-us", type=int, default=1000)
    p.add_argument("--kv", required=True)
    a = p.parse_args()

    inns = ["nsenter", "--net=" + a.netns]
    targets = [Target("direct", 0, 0, inns, a.netbench)]
    for spec in a.proxy:
        name, port, pid = spec.split(":")
        targets.append(Target(name, int(port), int(pid), inns, a.netbench))
    if a.container:
        name, pid = a.container.split(":")
        targets.append(Target(name, SIDECAR_PORT, int(pid), shlex.split(a.exec_),
                              "/bin/netbench"))
        if a.transparent:
            tname, addr = a.transparent.split(":")
            targets.append(Target(tname, 0, int(pid), shlex.split(a.exec_), "/bin/netbench",
                                  addr))

    references = []
    for spec in a.reference:
        name, port, pid = spec.split(":")
        references.append(Target(name, int(port), int(pid), inns, a.netbench))

    kv = []
    memory(a, targets, kv)
    throughput(a, targets, kv, "netbench")
    throughput(a, targets, kv, "curl")
    connections(a, targets + references, kv)
    sparse(a, targets, kv)
    if a.container and a.dns_name:
        dns_latency(a, targets[-1], kv)
    with open(a.kv, "w") as f:
        for k, v in kv:
            f.write("%s %s\n" % (k, v))


if __name__ == "__main__":
    main()
