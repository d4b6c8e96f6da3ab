#!/usr/bin/env python3
"""hack/bench/table.py KV: the summary table at the end of hack/bench.sh.
KV holds the `key value` lines summary.py and egress.py wrote.  Each row
is one figure next to its target (docs/benchmarks.md); the last column
says whether this run met it.  Nothing here fails: the figures of a noisy
or --quick run are information, not a verdict."""
import sys

# key, what it is, target (text), test (None: no target, shown for context)
ROWS = [
    ("load.run", "load average at the start of `run`", "", None),
    ("run.floor.total.ms", "kernel floor (unshare ... /bin/true), ms", "", None),
    ("run.runc.total.ms", "runc run /bin/true, ms", "", None),
    ("run.crun.total.ms", "crun run /bin/true, ms", "", None),
    ("run.agentrt.total.ms", "agentrt run /bin/true (hardening off), ms", "", None),
    ("run.crun/runc.total", "crun / runc", "", None),
    ("run.agentrt/runc.total", "agentrt / runc", "", None),
    ("run.agentrt/crun.total", "agentrt / crun", "<= 1.0", lambda v: v <= 1.0),
    ("run.agentrt/floor.total", "agentrt / kernel floor", "<= 4.0", lambda v: v <= 4.0),
    ("run.agentrt/crun.total.cpu", "agentrt / crun, CPU time", "", None),
    ("run.agentrt/floor.total.cpu", "agentrt / kernel floor, CPU time", "", None),
    ("run.agentrt-hard-none-agentrt.total.ms", "hardening adds (no sidecar), ms", "< 2",
     lambda v: v < 2.0),
    ("run.agentrt-hard-none-agentrt.total.cpu_ms", "hardening adds, CPU ms", "", None),
    ("run.agentrt-hard-agentrt-hard-none.total.ms",
     "egress adds to run (its sidecar armed, never started), ms", "", None),
    ("run.agentrt-hard-agentrt-hard-none.total.cpu_ms", "egress adds to run, CPU ms",
     "", None),
    ("run.agentrt-hard-conn1-agentrt-hard.total.ms",
     "a first request through the proxy adds (the sidecar starts), ms", "", None),
    ("run.agentrt-hard-conn1-agentrt-hard.total.cpu_ms",
     "a first request through the proxy adds, CPU ms", "", None),
    ("run.agentrt-hard-conn2-agentrt-hard-conn1.total.ms",
     "a second request adds (the sidecar runs), ms", "", None),
    ("run.agentrt-hard-conn1-baseline-hard-conn1.total.ms",
     "first request: agentrt - AGENTRT_BASELINE, ms", "", None),
    ("run.agentrt-hard-agentrt.total.ms", "hardening + sidecar add to run, ms", "", None),
    ("run.agentrt-hard/crun.total", "agentrt hardened + sidecar / crun", "", None),
    ("run.baseline-hard/crun.total", "AGENTRT_BASELINE hardened + sidecar / crun", "", None),
    ("load.lifecycle", "load average at the start of `lifecycle`", "", None),
    ("lifecycle.runc.total.ms", "runc create+start+delete, ms", "", None),
    ("lifecycle.crun.total.ms", "crun create+start+delete, ms", "", None),
    ("lifecycle.agentrt.total.ms", "agentrt create+start+delete (off), ms", "", None),
    ("lifecycle.agentrt/runc.total", "agentrt / runc (create+start+delete)", "", None),
    ("lifecycle.agentrt/crun.total", "agentrt / crun (create+start+delete)", "<= 1.0",
     lambda v: v <= 1.0),
    ("lifecycle.agentrt-hard-none-agentrt.total.ms", "hardening adds to the lifecycle, ms",
     "", None),
    ("lifecycle.agentrt-hard-path-agentrt-hard-none-path.create.ms",
     "the sidecar adds to create (netns by path), ms", "<= 1.5", lambda v: v <= 1.5),
    ("lifecycle.agentrt-hard-agentrt-hard-none.create.ms",
     "egress adds to create (vs egress=none's own netns), ms", "", None),
    ("lifecycle.agentrt-hard-agentrt-hard-none.total.ms",
     "the sidecar adds to the lifecycle, ms", "", None),
] + [row for e in ("docker", "podman") for v in (e, e + "-full") for row in (
    ("run.agentrt-hard-%s/crun-%s.total" % (v, v),
     "%s bundle: agentrt hardened + sidecar / crun" % v, "<= 1.0", lambda x: x <= 1.0),
    ("run.baseline-hard-%s/crun-%s.total" % (v, v),
     "%s bundle: AGENTRT_BASELINE hardened + sidecar / crun" % v, "", None),
    ("run.agentrt-%s/crun-%s.total" % (v, v), "%s bundle: agentrt (off) / crun" % v, "", None),
    ("run.agentrt-hard-%s-agentrt-%s.total.ms" % (v, v),
     "%s bundle: hardening + sidecar add, ms" % v, "<= 2", lambda x: x <= 2.0),
    ("run.crun-%s-crun.total.ms" % v, "%s bundle: the profile adds to crun, ms" % v, "", None),
    ("run.agentrt-hard-%s-agentrt-hard.total.ms" % v,
     "%s bundle: the profile adds to agentrt hardened, ms" % v, "", None),
    ("run.agentrt-hard-%s-baseline-hard-%s.total.ms" % (v, v),
     "%s bundle: agentrt hardened - AGENTRT_BASELINE, ms" % v, "", None),
)] + [row for e in ("docker", "podman") for row in (
    ("lifecycle.agentrt-hard-%s-full/crun-%s-full.total" % (e, e),
     "%s-full create+start+delete: agentrt hardened / crun" % e, "<= 1.0",
     lambda x: x <= 1.0),
    ("lifecycle.agentrt-hard-%s-full-agentrt-%s-full.total.ms" % (e, e),
     "%s-full create+start+delete: hardening adds, ms" % e, "", None),
    ("lifecycle.agentrt-hard-%s-full-agentrt-hard-%s-full-nouserns.create.cpu_ms" % (e, e),
     "%s-full: the user namespace adds to create, CPU ms" % e, "<= 2", lambda x: x <= 2.0),
)] + [
    ("load.parallel", "load average at the start of `parallel`", "", None),
] + [row for e in ("docker", "podman") for row in (
    ("parallel.%s-full.crun.per_s" % e, "%s-full, N at once: crun containers/s" % e, "", None),
    ("parallel.%s-full.agentrt-hard.per_s" % e,
     "%s-full, N at once: agentrt hardened containers/s" % e, "", None),
    ("parallel.%s-full.agentrt-hard/crun.create_start" % e,
     "%s-full, N at once: agentrt hardened / crun (time)" % e, "<= 1.0", lambda x: x <= 1.0),
)] + [
    ("load.podman", "load average at the start of `podman`", "", None),
    ("podman.podman-crun.total.ms", "podman run --rm with crun, ms", "", None),
    ("podman.podman-runc.total.ms", "podman run --rm with runc, ms", "", None),
    ("podman.podman-agentrt-hard.total.ms", "podman run --rm with agentrt hardened, ms", "",
     None),
    ("podman.podman-agentrt-hard/podman-crun.total", "podman: agentrt hardened / crun",
     "<= 1.0", lambda x: x <= 1.0),
    ("podman.podman-agentrt-hard/podman-runc.total", "podman: agentrt hardened / runc",
     "<= 1.0", lambda x: x <= 1.0),
    ("podman.podman-agentrt/podman-crun.total", "podman: agentrt (off) / crun", "", None),
    ("load.egress", "load average at the start of `egress`", "", None),
    ("egress.netbench.direct.MiBps", "direct loopback download, MiB/s", "", None),
    ("egress.netbench.agentrt-egress/direct", "agentrt-egress throughput / direct", ">= 0.6",
     lambda v: v >= 0.6),
    ("egress.netbench.tinyproxy/direct", "tinyproxy throughput / direct", "", None),
    ("egress.netbench.sidecar/direct", "sidecar (from a container) / direct", ">= 0.6",
     lambda v: v >= 0.6),
    ("egress.curl.sidecar/direct", "curl in a container via sidecar / curl direct", "", None),
    ("egress.curl.tinyproxy/direct", "curl via tinyproxy / curl direct", "", None),
    ("egress.netbench.agentrt-egress.cpu_s_per_GiB", "agentrt-egress CPU, s/GiB", "<= 0.8",
     lambda v: v <= 0.8),
    ("egress.netbench.sidecar.cpu_s_per_GiB", "sidecar CPU, s/GiB", "<= 0.8",
     lambda v: v <= 0.8),
    ("egress.netbench.tinyproxy.cpu_s_per_GiB", "tinyproxy CPU, s/GiB", "", None),
    ("egress.conn.direct.us", "new connection direct, us", "", None),
    ("egress.conn.agentrt-egress.added_ms", "agentrt-egress adds per connection, ms", "<= 0.15",
     lambda v: v <= 0.15),
    ("egress.conn.sidecar.added_ms", "sidecar adds per connection (from a container), ms",
     "<= 0.15", lambda v: v <= 0.15),
    ("egress.conn.tinyproxy.added_ms", "tinyproxy adds per connection, ms", "", None),
    ("egress.conn.agentrt-egress/tinyproxy.added", "agentrt-egress adds / tinyproxy adds",
     "<= 0.6", lambda v: v <= 0.6),
    ("egress.conn.sidecar/tinyproxy.added", "sidecar adds / tinyproxy adds", "<= 0.6",
     lambda v: v <= 0.6),
    ("egress.conn.minimal-relay.added_ms", "a minimal relay adds per connection, ms", "", None),
    ("egress.conn.egress-no-poll.added_ms", "the same, never polling, adds per connection, ms",
     "", None),
    ("egress.conn.agentrt-egress.cpu_us", "agentrt-egress CPU per connection, us", "", None),
    ("egress.conn.egress-no-poll.cpu_us", "the same, never polling, CPU per connection, us",
     "", None),
    ("egress.sparse.agentrt-egress.cpu_us", "agentrt-egress CPU per sparse connection, us", "",
     None),
    ("egress.sparse.egress-no-poll.cpu_us", "never polling, CPU per sparse connection, us", "",
     None),
    ("egress.mem.agentrt-egress.rss_idle_KiB", "agentrt-egress RSS idle, KiB", "", None),
    ("egress.mem.agentrt-egress.pss_idle_KiB", "agentrt-egress PSS idle, KiB", "< 2048",
     lambda v: v < 2048),
    ("egress.mem.sidecar.pss_idle_KiB", "sidecar PSS idle, KiB", "< 2048", lambda v: v < 2048),
    ("egress.mem.agentrt-egress.rss_hold_KiB", "agentrt-egress RSS, N tunnels, KiB", "", None),
    ("egress.mem.agentrt-egress.pss_hold_KiB", "agentrt-egress PSS, N tunnels, KiB", "< 8192",
     lambda v: v < 8192),
    ("egress.mem.sidecar.pss_hold_KiB", "sidecar PSS, N tunnels, KiB", "< 8192",
     lambda v: v < 8192),
    ("egress.mem.tinyproxy.pss_hold_KiB", "tinyproxy PSS, N tunnels, KiB", "", None),
    ("egress.hold", "N (tunnels held open)", "", None),
    # the transparent path (issue 14): a container's programs connecting
    # straight to the server's address, the DNS stub's cached answer
    ("egress.netbench.transparent/direct", "transparent path (from a container) / direct",
     ">= 0.6", lambda v: v >= 0.6),
    ("egress.curl.transparent/direct", "curl in a container, no proxy / curl direct", "", None),
    ("egress.netbench.transparent.cpu_s_per_GiB", "sidecar CPU, transparent, s/GiB", "<= 0.8",
     lambda v: v <= 0.8),
    ("egress.conn.transparent.added_ms", "the transparent path adds per connection, ms",
     "<= 0.15", lambda v: v <= 0.15),
    ("egress.conn.transparent.cpu_us", "sidecar CPU per transparent connection, us", "", None),
    ("egress.mem.transparent.pss_hold_KiB", "sidecar PSS, N transparent connections, KiB",
     "< 8192", lambda v: v < 8192),
    ("egress.dns.cached.us", "DNS stub, cached answer, us", "< 1000", lambda v: v < 1000),
    ("egress.dns.cached.p99_us", "DNS stub, cached answer, p99, us", "", None),
]


def main():
    kv = {}
    with open(sys.argv[1]) as f:
        for line in f:
            k, v = line.split()
            kv[k] = v
    print("  %-52s %10s  %-8s %s" % ("figure", "value", "target", ""))
    for key, what, target, test in ROWS:
        if key not in kv:
            continue
        verdict = ""
        if test is not None:
            verdict = "met" if test(float(kv[key])) else "MISSED"
        print("  %-52s %10s  %-8s %s" % (what, kv[key], target, verdict))


if __name__ == "__main__":
    main()
