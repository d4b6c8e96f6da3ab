#!/usr/bin/env python3
"""Starts agentrt-egress the way the runtime does, for tests/egress/run.sh:
listening sockets created inside a network namespace (--listen-netns, a
name under /run/netns, or the current one), the proxy itself exec'd in the
current namespace with the fds inherited, a pidfd of the watched process,
an audit file opened O_APPEND.  Extra arguments go to the proxy."""
import argparse
import ctypes
import os
import socket
import sys

CLONE_NEWNET = 0x40000000


def setns(fd):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def listeners(netns, addr, ports):
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    if netns:
        target = os.open("/run/netns/" + netns, os.O_RDONLY)
        setns(target)
        os.close(target)
    try:
        socks = []
        for port in ports:
            fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
            s = socket.socket(fam, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((addr, port))
            s.listen(512)
            socks.append(s)
        return socks
    finally:
        setns(own)
        os.close(own)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True)
    p.add_argument("--listen-netns", default="")
    p.add_argument("--listen-addr", default="127.0.0.1")
    p.add_argument("--http-port", type=int, default=3128)
    p.add_argument("--socks-port", type=int, default=1080)
    p.add_argument("--watch-pid", type=int, required=True)
    p.add_argument("--audit", required=True)
    p.add_argument("--hosts")
    p.add_argument("--resolv-conf")
    p.add_argument("--id", default="test")
    p.add_argument("--allow", default="")
    args, extra = p.parse_known_args()

    http, socks = listeners(args.listen_netns, args.listen_addr,
                            [args.http_port, args.socks_port])
    pidfd = os.pidfd_open(args.watch_pid)
    audit = os.open(args.audit, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    fds = {"--http-fd": http.fileno(), "--socks-fd": socks.fileno(),
           "--init-pidfd": pidfd, "--audit-fd": audit}
    if args.hosts:
        fds["--hosts-fd"] = os.open(args.hosts, os.O_RDONLY)
    if args.resolv_conf:
        fds["--resolv-conf-fd"] = os.open(args.resolv_conf, os.O_RDONLY)
    argv = [args.proxy, "--id", args.id, "--allow", args.allow]
    for opt, fd in fds.items():
        os.set_inheritable(fd, True)
        argv += [opt, str(fd)]
    argv += [a for a in extra if a != "--"]
    # A stray inherited fd, as a careless runtime might leak one: the proxy
    # must close it (tests/egress/run.sh checks).
    stray = os.open(os.path.dirname(args.audit) or ".", os.O_RDONLY | os.O_DIRECTORY)
    os.set_inheritable(stray, True)
    sys.stdout.flush()
    os.execv(args.proxy, argv)


if __name__ == "__main__":
    main()
