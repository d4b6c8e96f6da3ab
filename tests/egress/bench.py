#!/usr/bin/env python3
"""Quick loopback benchmark of agentrt-egress against a direct connection:
throughput of one large download through CONNECT, CPU seconds the proxy
spends per GiB, latency added per new connection (CONNECT + one round
trip), and the proxy's RSS idle and with many open connections.
  bench.py --proxy-pid PID --http HOST:PORT --socks HOST:PORT
           --sink HOST:PORT --echo HOST:PORT [--bytes N] [--conns N]
The sink and echo servers are tests/egress/server.py `sink` and `echo`;
the proxy's allowlist must let it reach both."""
import argparse
import os
import socket
import time

CHUNK = 4 << 20


def hostport(s):
    h, p = s.rsplit(":", 1)
    return h, int(p)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def connect_via(proxy, target):
    s = socket.create_connection(proxy)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    t = "%s:%d" % target
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (t, t)).encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):  # the proxy sends nothing after it
        b = s.recv(4096)
        if not b:
            raise RuntimeError("proxy closed: %r" % head)
        head += b
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError("proxy refused: %r" % head)
    return s


def download(sock, n):
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    sock.sendall(b"%d\n" % n)
    got = 0
    t0 = time.perf_counter()
    while got < n:
        k = sock.recv_into(view)
        if not k:
            raise RuntimeError("short download")
        got += k
    return time.perf_counter() - t0


def throughput(args):
    d = socket.create_connection(args.sink)
    direct = download(d, args.bytes)
    d.close()
    p = connect_via(args.http, args.sink)
    cpu0 = cpu_seconds(args.proxy_pid)
    proxied = download(p, args.bytes)
    cpu = cpu_seconds(args.proxy_pid) - cpu0
    p.close()
    gib = args.bytes / (1 << 30)
    print("throughput direct  %.0f MiB/s" % (args.bytes / direct / (1 << 20)))
    print("throughput proxied %.0f MiB/s (%.2fx direct)"
          % (args.bytes / proxied / (1 << 20), direct / proxied))
    print("proxy cpu %.2f s per GiB" % (cpu / gib))


def latency(args, n=1000):
    def once(make):
        t0 = time.perf_counter()
        for _ in range(n):
            s = make()
            s.sendall(b"x")
            s.recv(1)
            s.close()
        return time.perf_counter() - t0

    def direct():
        s = socket.create_connection(args.echo)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    once(direct)  # warm up
    d = once(direct)
    p = once(lambda: connect_via(args.http, args.echo))
    print("new connection direct %.3f ms, via CONNECT %.3f ms, added %.3f ms"
          % (d / n * 1e3, p / n * 1e3, (p - d) / n * 1e3))


def memory(args):
    print("rss idle %d KiB" % rss_kib(args.proxy_pid))
    conns = [connect_via(args.http, args.echo) for _ in range(args.conns)]
    for s in conns:
        s.sendall(b"y" * 100)
    for s in conns:
        s.recv(100)
    print("rss with %d open connections %d KiB" % (len(conns), rss_kib(args.proxy_pid)))
    for s in conns:
        s.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy-pid", type=int, required=True)
    p.add_argument("--http", type=hostport, required=True)
    p.add_argument("--sink", type=hostport, required=True)
    p.add_argument("--echo", type=hostport, required=True)
    p.add_argument("--bytes", type=int, default=1 << 30)
    p.add_argument("--conns", type=int, default=500)
    args = p.parse_args()
    memory(args)
    throughput(args)
    latency(args)


if __name__ == "__main__":
    main()
