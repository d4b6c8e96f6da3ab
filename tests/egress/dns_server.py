#!/usr/bin/env python3
"""A tiny authoritative DNS responder for tests/egress/run.sh:
  dns_server.py ADDR NAME=IP[@TTL] [NAME=IP[@TTL]...]
answers A (and AAAA for IPv6 values) for the listed names (TTL 60 unless
given; NAME `*.zone` answers every name under zone), NODATA for the other
type, nothing at all for names starting with "drop", NXDOMAIN for anything
else.  Logs each question to stderr so
the test can check what the proxy asked."""
import socket
import struct
import sys


def parse_name(msg, pos):
    labels = []
    while msg[pos]:
        n = msg[pos]
        labels.append(msg[pos + 1:pos + 1 + n].decode().lower())
        pos += 1 + n
    return ".".join(labels), pos + 1


def main():
    addr = sys.argv[1]
    table = {}
    for item in sys.argv[2:]:
        name, ip = item.split("=", 1)
        ip, _, ttl = ip.partition("@")
        table.setdefault(name.lower(), []).append((ip, int(ttl or 60)))
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 53))
    while True:
        msg, peer = s.recvfrom(512)
        qid, flags = struct.unpack("!HH", msg[:4])
        name, pos = parse_name(msg, 12)
        qtype, = struct.unpack("!H", msg[pos:pos + 2])
        question = msg[12:pos + 4]
        sys.stderr.write("query %s %d from %s\n" % (name, qtype, peer[0]))
        sys.stderr.flush()
        answers = []
        if name.startswith("drop"):
            continue
        key = name if name in table else "*." + name.partition(".")[2]
        if key in table:
            for ip, ttl in table[key]:
                fam = socket.AF_INET6 if ":" in ip else socket.AF_INET
                if (qtype == 1 and fam == socket.AF_INET) or (qtype == 28 and fam == socket.AF_INET6):
                    rdata = socket.inet_pton(fam, ip)
                    answers.append(struct.pack("!HHHIH", 0xC00C, qtype, 1, ttl, len(rdata)) + rdata)
            rcode = 0
        else:
            rcode = 3
        head = struct.pack("!HHHHHH", qid, 0x8400 | 0x0100 | 0x80 | rcode, 1, len(answers), 0, 0)
        s.sendto(head + question + b"".join(answers), peer)


if __name__ == "__main__":
    main()
