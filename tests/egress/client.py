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
  client.py tunnel PORT READY     CONNECTs to web.test:22 (an echo server),
                                  checks an echo, creates the file READY,
                                  then waits (up to 20 s) for the proxy to
                                  close the tunnel: prints how long it took
  client.py garbage HTTP_PORT SOCKS_PORT SECONDS
                                  sends mutated requests (random bytes,
                                  cuts, byte-at-a-time, resets) for SECONDS
"""
import random
import socket
import struct
import sys
import time


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def read_all(s):
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except socket.timeout:
        pass
    return data


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
    s = connect(port)
    s.sendall(b"CONNECT web.test:22 HTTP/1.1\r\nHost: web.test:22\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            print("refused")
            return
        head += b
    s.sendall(b"ping")
    if s.recv(4) != b"ping":
        print("no echo")
        return
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


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "raw":
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
