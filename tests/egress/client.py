#!/usr/bin/env python3
"""Raw clients for tests/egress/run.sh, run inside the agent namespace.
  client.py raw PORT REQUEST      sends REQUEST (Python escapes such as
                                  \\r\\n allowed) to 127.0.0.1:PORT and
                                  prints the reply head's first line and
                                  any X-Agentrt-* field
  client.py socks PORT CMD ATYP ADDR DPORT
                                  SOCKS5 greeting and request (ATYP 1, 3
                                  or 4); prints "reply N"
  client.py socks-auth PORT       offers only username/password auth
  client.py hold PORT N [mute]    opens N connections that send the start
                                  of a request (mute: nothing), then one
                                  more, and prints the extra one's reply
  client.py idle PORT [mute]      connects, sends the start of a request
                                  (mute: nothing) and then nothing, prints
                                  how long the proxy took to close
  client.py tunnel PORT READY     CONNECTs to web.test:22 (an echo server
                                  that speaks first: a banner line),
                                  checks an echo, creates the file READY,
                                  then waits (up to 20 s) for the proxy to
                                  close the tunnel: prints how long it took
  client.py garbage HTTP_PORT SOCKS_PORT SECONDS
                                  sends mutated requests (random bytes,
                                  cuts, byte-at-a-time, resets) for SECONDS
The transparent path's clients ignore every proxy: they resolve through
whatever DNS server they are told (the agent's rules send the query to the
stub whatever the address) and connect straight to the address:
  client.py dns SERVER NAME TYPE [tcp]
                                  one query (TYPE A, AAAA, TXT... or a
                                  number; `garbage` sends malformed ones);
                                  prints "rcode R tc T answers A,B ttl T"
  client.py resolve SERVER NAME   the first A address, or "none rcode R"
  client.py send ADDR PORT DATA   connects, sends DATA (escapes allowed),
                                  prints the reply's first line, "echo"
                                  when the reply is DATA itself, "reset"
                                  or "closed"
  client.py tls ADDR PORT SNI     sends a real ClientHello naming SNI
                                  (the echo server returns it): "echo",
                                  "reset" or "closed"
  client.py banner ADDR PORT      connects and sends nothing: prints the
                                  server's first line, "reset" or "closed"
  client.py wait ADDR PORT        connects and sends nothing: prints how
                                  long until the connection was closed
An intercepted connection (injected credentials), through the proxy:
  client.py mitm PORT HOST CAFILE SNI REQUEST
                                  CONNECTs to HOST:443, speaks TLS naming
                                  SNI (the chain checked against CAFILE,
                                  the name not: SNI may differ), sends
                                  REQUEST (escapes allowed: two requests
                                  for keep-alive) and prints what comes
                                  back until the proxy closes, then
                                  "closed"; "tls-refused" when the
                                  handshake fails
"""
import random
import socket
import struct
import sys
import time


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def read_all(s, ends=socket.timeout):
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except ends:
        pass
    return data


def tunnel_open(port, target):
    """A CONNECT to target (bytes, HOST:PORT) through the proxy: the
    socket once the proxy's answer is read, None when it closed first."""
    s = connect(port)
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target))
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            return None
        head += b
    return s


def raw(port, request):
    s = connect(port)
    s.sendall(request.encode("latin-1").decode("unicode_escape").encode("latin-1"))
    s.settimeout(5)
    data = read_all(s)
    lines = data.split(b"\r\n")
    print(lines[0].decode("latin-1"))
    for line in lines[1:]:
        if line.lower().startswith(b"x-agentrt-"):
            print(line.decode("latin-1"))


def socks(port, cmd, atyp, addr, dport):
    s = connect(port)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        print("greeting refused")
        return
    if atyp == 1:
        a = socket.inet_pton(socket.AF_INET, addr)
    elif atyp == 4:
        a = socket.inet_pton(socket.AF_INET6, addr)
    else:
        a = bytes([len(addr)]) + addr.encode()
    s.sendall(bytes([5, cmd, 0, atyp]) + a + struct.pack("!H", dport))
    reply = s.recv(10)
    print("reply %d" % reply[1] if len(reply) > 1 else "closed")


def socks_auth(port):
    s = connect(port)
    s.sendall(b"\x05\x01\x02")
    print("method %d" % s.recv(2)[1])


def hold(port, n, first=b"GET "):
    conns = [connect(port) for _ in range(n)]
    for c in conns:
        c.sendall(first)
    time.sleep(0.5)
    extra = connect(port)
    extra.sendall(b"GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\n\r\n")
    extra.settimeout(5)
    print(read_all(extra).split(b"\r\n")[0].decode())
    for c in conns:
        c.close()


def idle(port, first=b"GET "):
    s = connect(port)
    s.sendall(first)
    s.settimeout(30)
    t0 = time.time()
    read_all(s)
    print("closed after %.0f s" % (time.time() - t0))


def tunnel(port, ready):
    s = tunnel_open(port, b"web.test:22")
    if s is None:
        print("refused")
        return
    s.sendall(b"ping")
    got = b""  # after the banner line web.test:22 speaks first
    while not got.endswith(b"ping"):
        b = s.recv(64)
        if not b or len(got) > 256:
            print("no echo")
            return
        got += b
    open(ready, "w").close()
    s.settimeout(20)
    t0 = time.time()
    try:
        while s.recv(4096):
            pass
        print("tunnel closed after %.0f s" % (time.time() - t0))
    except OSError as e:
        print("tunnel %s after %.0f s" % (e.__class__.__name__, time.time() - t0))


SEEDS = [
    b"GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\n\r\n",
    b"CONNECT web.test:443 HTTP/1.1\r\nHost: web.test:443\r\n\r\nping",
    b"POST http://web.test/echo HTTP/1.1\r\nHost: web.test\r\nTransfer-Encoding: chunked\r\n"
    b"\r\n5\r\nhello\r\n0\r\n\r\n",
    b"\x05\x01\x00\x05\x01\x00\x03\x08web.test\x00\x50",
    b"\x05\x01\x00\x05\x01\x00\x01\xcb\x00\x71\x0a\x01\xbb",
]


def mutate(b):
    b = bytearray(b)
    for _ in range(random.randint(0, 6)):
        op, i = random.random(), random.randrange(len(b) + 1)
        if op < 0.3 and b:
            b[random.randrange(len(b))] = random.randrange(256)
        elif op < 0.5:
            b[i:i] = bytes(random.randrange(256) for _ in range(random.randint(1, 8)))
        elif op < 0.7 and b:
            del b[i:i + random.randint(1, 8)]
        elif op < 0.8:
            b[i:i] = b[:random.randint(0, len(b))]
        else:
            b = b[:i]
    return bytes(b)


def garbage(http_port, socks_port, seconds):
    random.seed(seconds)
    end, n = time.time() + seconds, 0
    while time.time() < end:
        seed = random.choice(SEEDS)
        data = mutate(seed)
        try:
            s = connect(socks_port if seed[0] == 5 else http_port)
            if random.random() < 0.5:
                s.sendall(data)
            else:
                for i in range(0, len(data), 3):
                    s.sendall(data[i:i + 3])
            if random.random() < 0.3:
                s.shutdown(socket.SHUT_WR)
            s.settimeout(0.3)
            try:
                s.recv(65536)
            except OSError:
                pass
            if random.random() < 0.5:  # close with a reset
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        except OSError:
            pass
        n += 1
    print("sent %d" % n)


def mute(rest):
    """`mute` after the arguments: the client sends nothing at all."""
    return [b""] if rest == ["mute"] else []


TYPES = {"A": 1, "NS": 2, "CNAME": 5, "MX": 15, "TXT": 16, "AAAA": 28, "HTTPS": 65}


def dns_query(name, qtype, qid=0x4242):
    q = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    return q + b"\0" + struct.pack("!HH", qtype, 1)


def dns_exchange(server, msg, tcp):
    fam = socket.AF_INET6 if ":" in server else socket.AF_INET
    if tcp:
        s = socket.create_connection((server, 53), timeout=5)
        s.sendall(struct.pack("!H", len(msg)) + msg)
        data = b""
        while len(data) < 2 or len(data) < 2 + struct.unpack("!H", data[:2])[0]:
            b = s.recv(4096)
            if not b:
                break
            data += b
        return data[2:]
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(5)
    s.connect((server, 53))
    s.send(msg)
    return s.recv(4096)


def dns_answers(reply):
    """rcode, tc, [(address, ttl)] of an answer (owner: a pointer)."""
    qid, flags, qd, an = struct.unpack("!HHHH", reply[:8])
    pos = 12
    for _ in range(qd):
        while reply[pos]:
            pos += 1 + reply[pos]
        pos += 5
    out = []
    for _ in range(an):
        pos += 2  # the owner: a pointer to the question
        rtype, _, ttl, rdlen = struct.unpack("!HHIH", reply[pos:pos + 10])
        rdata = reply[pos + 10:pos + 10 + rdlen]
        fam = socket.AF_INET if rtype == 1 else socket.AF_INET6
        out.append((socket.inet_ntop(fam, rdata), ttl))
        pos += 10 + rdlen
    return flags & 0xF, (flags >> 9) & 1, out


def dns(server, name, qtype, tcp):
    if qtype == "garbage":
        # malformed queries: each must get FORMERR/NOTIMP or nothing, and
        # the stub must still answer the good one that follows
        for bad in [b"\0" * 5, dns_query(name, 1)[:-3], b"\x12\x34\x01\x00\x00\x01" + b"\0" * 6
                    + b"\xc0\x0c\x00\x01\x00\x01", b"\x12\x34\x79\x00" + b"\0" * 8,
                    bytes(random.getrandbits(8) for _ in range(300))]:
            try:
                dns_exchange(server, bad, tcp)
            except (socket.timeout, OSError):
                pass
        qtype = "A"
    t = TYPES.get(qtype) or int(qtype)
    rcode, tc, answers = dns_answers(dns_exchange(server, dns_query(name, t), tcp))
    print("rcode %d tc %d answers %s ttl %s" % (rcode, tc, ",".join(a for a, _ in answers) or "-",
                                                 min((t for _, t in answers), default="-")))


def resolve(server, name):
    rcode, _, answers = dns_answers(dns_exchange(server, dns_query(name, 1), False))
    print(answers[0][0] if answers else "none rcode %d" % rcode)


def outcome(s, sent):
    s.settimeout(5)
    data = b""
    try:
        while len(data) < max(len(sent), 1) and b"\n" not in data:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        pass
    if sent and data == sent:
        return "echo"
    if not data:
        return "closed"
    return data.split(b"\r\n")[0].decode("latin-1")


def send(addr, port, data):
    s = socket.create_connection((addr, port), timeout=5)
    raw_bytes = data.encode("latin-1").decode("unicode_escape").encode("latin-1")
    try:
        s.sendall(raw_bytes)
    except (ConnectionResetError, BrokenPipeError):
        print("reset")  # refused before it could send
        return
    print(outcome(s, raw_bytes if not raw_bytes.startswith(b"GET ") else b""))


def tls(addr, port, sni):
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, outg = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, outg, server_hostname=sni)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outg.read()
    s = socket.create_connection((addr, port), timeout=5)
    try:
        s.sendall(hello)
    except (ConnectionResetError, BrokenPipeError):
        print("reset")
        return
    print(outcome(s, hello))


def mitm(port, host, cafile, sni, request):
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(cafile)
    s = tunnel_open(port, b"%s:443" % host.encode())
    if s is None:
        print("closed before the tunnel")
        return
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
    except (ssl.SSLError, OSError):
        print("tls-refused")
        return
    t.sendall(request.encode("latin-1").decode("unicode_escape").encode("latin-1"))
    t.settimeout(5)
    # a timeout, or an end without close_notify
    sys.stdout.write(read_all(t, OSError).decode("latin-1"))
    print("closed")


def banner(addr, port):
    s = socket.create_connection((addr, port), timeout=5)
    print(outcome(s, b""))


def wait(addr, port):
    s = socket.create_connection((addr, port), timeout=30)
    start = time.monotonic()
    try:
        s.recv(1)
    except OSError:
        pass
    print("closed after %d s" % round(time.monotonic() - start))


def refused(fn, *args):
    """Runs a transparent-path client; a reset wherever it comes (connect,
    send, receive) prints "reset", any other error its text."""
    try:
        fn(*args)
    except (ConnectionResetError, BrokenPipeError):
        print("reset")
    except OSError as e:
        print("error: %s" % e)


def main():
    mode = sys.argv[1]
    if mode in ("send", "tls", "banner"):
        fn = {"send": send, "tls": tls, "banner": banner}[mode]
        refused(fn, sys.argv[2], int(sys.argv[3]), *sys.argv[4:])
        return
    if mode in ("dns", "resolve", "wait"):
        args = sys.argv[2:]
        if mode == "dns":
            dns(args[0], args[1], args[2], args[3:] == ["tcp"])
        elif mode == "resolve":
            resolve(args[0], args[1])
        else:
            wait(args[0], int(args[1]))
        return
    port = int(sys.argv[2])
    if mode == "mitm":
        mitm(port, *sys.argv[3:7])
    elif mode == "raw":
        raw(port, sys.argv[3])
    elif mode == "socks":
        socks(port, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
    elif mode == "socks-auth":
        socks_auth(port)
    elif mode == "hold":
        hold(port, int(sys.argv[3]), *mute(sys.argv[4:]))
    elif mode == "idle":
        idle(port, *mute(sys.argv[3:]))
    elif mode == "tunnel":
        tunnel(port, sys.argv[3])
    elif mode == "garbage":
        garbage(port, int(sys.argv[3]), int(sys.argv[4]))


if __name__ == "__main__":
    main()
