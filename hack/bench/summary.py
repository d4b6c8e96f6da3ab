#!/usr/bin/env python3
"""hack/bench/summary.py: medians and ratios from hack/bench/runloop output.
  summary.py RAW [--step STEP] [--prefix P] [--ratio A/B ...] [--diff A:B ...]
RAW holds `VARIANT STEP ROUND WALL-NS CPU-NS` lines.  A variant's time in
a round is the sum of its steps (or only STEP).  Prints per variant the
median wall time with its interquartile range and the median CPU time,
then each ratio of medians and each paired difference (the median over
rounds of A - B measured in the same round: on a shared machine the noise
cancels best this way), for wall and CPU time.  Appends the figures as
`key value` lines to RAW.kv for the summary table."""
import argparse
import collections
import statistics


def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 4:
        return xs[0], statistics.median(xs), xs[-1]
    q = statistics.quantiles(xs, n=4)
    return q[0], q[1], q[2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("raw")
    p.add_argument("--ratio", action="append", default=[], help="A/B")
    p.add_argument("--diff", action="append", default=[], help="A:B")
    p.add_argument("--step")
    p.add_argument("--prefix", default="")
    a = p.parse_args()

    wall = collections.defaultdict(lambda: collections.defaultdict(float))
    cpu = collections.defaultdict(lambda: collections.defaultdict(float))
    order = []
    with open(a.raw) as f:
        for line in f:
            variant, step, rnd, ns, cpu_ns = line.split()
            if a.step and step != a.step:
                continue
            if variant not in order:
                order.append(variant)
            wall[variant][int(rnd)] += float(ns) / 1e6
            cpu[variant][int(rnd)] += float(cpu_ns) / 1e6
    label = a.step or "total"
    kv = []

    def key(*parts):
        return a.prefix + ".".join(parts)

    for v in order:
        lo, med, hi = quartiles(wall[v].values())
        c = statistics.median(cpu[v].values())
        print("  %-18s %-6s %8.2f ms wall (IQR %.2f-%.2f, n=%d)  %6.2f ms CPU"
              % (v, label, med, lo, hi, len(wall[v]), c))
        kv += [(key(v, label, "ms"), "%.2f" % med), (key(v, label, "cpu_ms"), "%.2f" % c)]
    for r in a.ratio:
        x, y = r.split("/")
        rw = statistics.median(wall[x].values()) / statistics.median(wall[y].values())
        rc = statistics.median(cpu[x].values()) / statistics.median(cpu[y].values())
        print("  %-36s ratio %.2f wall, %.2f CPU" % (r, rw, rc))
        kv += [(key(r, label), "%.2f" % rw), (key(r, label, "cpu"), "%.2f" % rc)]
    for d in a.diff:
        x, y = d.split(":")
        rounds = sorted(set(wall[x]) & set(wall[y]))
        lo, med, hi = quartiles([wall[x][i] - wall[y][i] for i in rounds])
        c = statistics.median([cpu[x][i] - cpu[y][i] for i in rounds])
        print("  %-36s adds %+.2f ms wall (paired, IQR %+.2f..%+.2f), %+.2f ms CPU"
              % ("%s - %s" % (x, y), med, lo, hi, c))
        kv += [(key("%s-%s" % (x, y), label, "ms"), "%+.2f" % med),
               (key("%s-%s" % (x, y), label, "cpu_ms"), "%+.2f" % c)]
    with open(a.raw + ".kv", "a") as f:
        for k, v in kv:
            f.write("%s %s\n" % (k, v))


if __name__ == "__main__":
    main()
