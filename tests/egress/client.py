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
  client.py hold PORT N           opens N connections that send the start
                                  of a request, then one more, and prints
                                  the extra one's reply
  client.py idle PORT             connects, sends the start of a request
                                  and then nothing, prints how long the
                                  proxy took to close
(The listeners use TCP_DEFER_ACCEPT: a client that sends nothing at all is
held by the kernel and never reaches the proxy.)"""
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


def hold(port, n):
    conns = [connect(port) for _ in range(n)]
    for c in conns:
        c.sendall(b"GET ")
    time.sleep(0.5)
    extra = connect(port)
    extra.sendall(b"GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\n\r\n")
    extra.settimeout(5)
    print(read_all(extra).split(b"\r\n")[0].decode())
    for c in conns:
        c.close()


def idle(port):
    s = connect(port)
    s.sendall(b"GET ")
    s.settimeout(30)
    t0 = time.time()
    read_all(s)
    print("closed after %.0f s" % (time.time() - t0))


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "raw":
        raw(port, sys.argv[3])
    elif mode == "socks":
        socks(port, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
    elif mode == "socks-auth":
        socks_auth(port)
    elif mode == "hold":
        hold(port, int(sys.argv[3]))
    elif mode == "idle":
        idle(port)


if __name__ == "__main__":
    main()
