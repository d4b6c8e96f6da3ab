#!/usr/bin/env python3
"""Starts agentrt-egress the way the runtime does, for tests/egress/run.sh:
listening sockets created inside a network namespace (--listen-netns, a
name under /run/netns, or the current one), the proxy itself exec'd in the
current namespace with the fds inherited, a pidfd of the watched process,
an audit file opened O_APPEND.  Extra arguments go to the proxy.

With --transparent-port P and --dns-stub it also creates the transparent
path's sockets there, as the runtime does (docs/egress.md, Command-line
contract): listening TCP sockets on 127.0.0.1:P and [::1]:P, a UDP socket
and a listening TCP socket on 127.0.0.1:53 and [::1]:53.  With --redirect
it sets that namespace up the way the runtime does (docs/egress.md, The
runtime's half; runtime/netns_rules.c), here with the `ip` and `nft`
commands: default routes out of lo, and nftables rules that REDIRECT every
DNS query (UDP and TCP port 53, any address) to the stub and every other
TCP connection to a non-loopback address to the transparent listener, and
drop every other packet that would leave lo.  With --approver PATH it
connects to that unix socket (the policy's egress.ask) as the runtime's
monitor does and passes the connection as --approver-fd.

With --ca FILE (what `agentrt-egress --make-ca` wrote: key, then
certificate) and one or more --credential NAME:HEADER:STANDIN:VALUE_FILE:
HOST[,HOST...] it hands the proxy the runtime's credential message
(runtime/egress/inject_wire.h) through a pipe, --credentials-fd, as the
runtime's monitor does.

With --as-uid N it switches to uid and gid N (no groups) just before the
exec, in --cwd DIR: the proxy then starts as the user it will run as, with
no change of ids of its own, as a rootless runtime starts it."""
import subprocess
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


def listeners(netns, specs):
    """specs: (address, port, type); sockets made inside netns."""
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    if netns:
        target = os.open("/run/netns/" + netns, os.O_RDONLY)
        setns(target)
        os.close(target)
    try:
        socks = []
        for addr, port, kind in specs:
            fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
            s = socket.socket(fam, kind)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((addr, port))
            if kind == socket.SOCK_STREAM:
                s.listen(512)
            socks.append(s)
        return socks
    finally:
        setns(own)
        os.close(own)


def ruleset(port):
    """The runtime's ruleset, the text runtime/netns_rules.c shows above
    its batch (tests/integration/egress-transparent.bats checks that the
    batch is that text), in its own table, redirecting to `port`."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "runtime", "netns_rules.c")
    lines, inside = [], False
    for line in open(src):
        text = line.rstrip("\n")[len(" *   "):]
        inside = inside or (line.startswith(" *   ") and text == "table inet agentrt {")
        if inside:
            lines.append(text)
            if text == "}":
                break
    rules = "\n".join(lines) + "\n"
    if not inside or "redirect to :15001\n" not in rules:
        sys.exit("launch.py: no ruleset in %s" % src)
    return rules.replace("table inet agentrt {", "table inet agentrt-test {") \
                .replace("redirect to :15001\n", "redirect to :%d\n" % port)


def redirect(netns, port):
    def run(*cmd, stdin=None):
        subprocess.run(["ip", "netns", "exec", netns] + list(cmd), input=stdin, check=True)
    run("ip", "route", "add", "default", "dev", "lo", "src", "127.0.0.1")
    run("ip", "-6", "route", "add", "default", "dev", "lo")
    run("nft", "-f", "-", stdin=ruleset(port).encode())


def record(tag, data):
    return b"%s %d\n%s\n" % (tag.encode(), len(data), data)


def credential_message(ca, creds):
    pem = open(ca, "rb").read()
    cut = pem.index(b"-----BEGIN CERTIFICATE-----")
    msg = record("ca-key", pem[:cut]) + record("ca-cert", pem[cut:])
    for spec in creds:
        name, header, standin, value_file, hosts = spec.split(":", 4)
        value = open(value_file, "rb").read().rstrip(b"\n")
        msg += record("name", name.encode()) + record("header", header.encode())
        msg += record("standin", standin.encode()) + record("value", value)
        for h in hosts.split(","):
            msg += record("host", h.encode())
    r, w = os.pipe()
    os.write(w, msg)
    os.close(w)
    return r


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
    p.add_argument("--transparent-port", type=int)
    p.add_argument("--dns-stub", action="store_true")
    p.add_argument("--redirect", action="store_true")
    p.add_argument("--ca")
    p.add_argument("--credential", action="append", default=[])
    p.add_argument("--approver")
    p.add_argument("--as-uid", type=int)
    p.add_argument("--cwd")
    args, extra = p.parse_known_args()

    tcp, udp = socket.SOCK_STREAM, socket.SOCK_DGRAM
    specs = [(args.listen_addr, args.http_port, tcp), (args.listen_addr, args.socks_port, tcp)]
    names = ["--http-fd", "--socks-fd"]
    if args.transparent_port:
        specs += [("127.0.0.1", args.transparent_port, tcp), ("::1", args.transparent_port, tcp)]
        names += ["--transparent-fd", "--transparent6-fd"]
    if args.dns_stub:
        specs += [("127.0.0.1", 53, udp), ("127.0.0.1", 53, tcp), ("::1", 53, udp), ("::1", 53, tcp)]
        names += ["--dns-udp-fd", "--dns-tcp-fd", "--dns-udp6-fd", "--dns-tcp6-fd"]
    socks = listeners(args.listen_netns, specs)
    if args.redirect:
        redirect(args.listen_netns, args.transparent_port)
    pidfd = os.pidfd_open(args.watch_pid)
    audit = os.open(args.audit, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    fds = dict(zip(names, (s.fileno() for s in socks)))
    fds.update({"--init-pidfd": pidfd, "--audit-fd": audit})
    if args.hosts:
        fds["--hosts-fd"] = os.open(args.hosts, os.O_RDONLY)
    if args.resolv_conf:
        fds["--resolv-conf-fd"] = os.open(args.resolv_conf, os.O_RDONLY)
    if args.approver:
        approver = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        approver.connect(args.approver)
        fds["--approver-fd"] = approver.fileno()
    if args.ca:
        fds["--credentials-fd"] = credential_message(args.ca, args.credential)
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
    if args.cwd:
        os.chdir(args.cwd)
    if args.as_uid is not None:
        os.setgroups([])
        os.setresgid(args.as_uid, args.as_uid, args.as_uid)
        os.setresuid(args.as_uid, args.as_uid, args.as_uid)
    os.execv(args.proxy, argv)


if __name__ == "__main__":
    main()
