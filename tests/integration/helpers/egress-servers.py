#!/usr/bin/env python3
"""egress-servers: the test "internet" of the egress bats tests, run inside
the servers' network namespace (helpers/egress.bash starts it).

  egress-servers.py READY-FILE UDP-LOG NAME=ADDR...

One process serves, on every address of the namespace:
  - HTTP on port 80: GET / answers "hello from NAME" (NAME is the one given
    for the address the client reached), GET /bytes/N sends N bytes,
    GET /stream announces 1 TiB and sends 64 KiB every 0.1 s until the
    client goes away,
    POST /echo sends the body back;
  - a TCP echo on ports 22 and 443 (it first says "echo NAME");
  - UDP on port 9999: every datagram is logged to UDP-LOG (the tests show
    that none arrives).
When every socket listens it writes READY-FILE.
"""
import http.server
import socket
import socketserver
import sys
import threading
import time

NAMES = {}


def name_of(sock):
    addr = sock.getsockname()[0]
    if addr.startswith("::ffff:"):
        addr = addr[7:]
    return NAMES.get(addr, addr)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, body, ctype="text/plain"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/":
            self.send_body(("hello from %s\n" % name_of(self.connection)).encode())
        elif self.path.startswith("/bytes/"):
            self.send_body(b"x" * int(self.path[7:]), "application/octet-stream")
        elif self.path == "/stream":
            # a length it never reaches: a cut transfer is an error for
            # the client, not a normal end
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(1 << 40))
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"s" * 65536)
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
            self.close_connection = True
        else:
            self.send_error(404)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.send_body(self.rfile.read(n))


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        try:
            self.request.sendall(("echo %s\n" % name_of(self.request)).encode())
            while True:
                data = self.request.recv(65536)
                if not data:
                    break
                self.request.sendall(data)
        except OSError:
            pass


class Dual(socketserver.ThreadingMixIn, socketserver.TCPServer):
    """Both families on one socket."""
    address_family = socket.AF_INET6
    allow_reuse_address = True
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def udp_log(s, path):
    with open(path, "a") as log:
        while True:
            data, peer = s.recvfrom(65536)
            log.write("%s %d bytes\n" % (peer[0], len(data)))
            log.flush()


def main():
    ready, udp_path = sys.argv[1], sys.argv[2]
    for arg in sys.argv[3:]:
        name, addr = arg.split("=", 1)
        NAMES[addr] = name
    servers = [Dual(("::", 80), Handler), Dual(("::", 22), Echo),
               Dual(("::", 443), Echo)]
    udp = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    udp.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    udp.bind(("::", 9999))
    threading.Thread(target=udp_log, args=(udp, udp_path), daemon=True).start()
    for srv in servers:
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    with open(ready, "w") as f:
        f.write("ready\n")
    threading.Event().wait()


if __name__ == "__main__":
    main()
