#!/usr/bin/env python3
"""Test servers for tests/egress/run.sh.
  server.py http ADDR PORT   HTTP/1.1 with keep-alive:
      GET /bytes/N    N bytes with Content-Length
      GET /chunked/N  N bytes, chunked
      GET /close/N    N bytes, no length, connection closed after
      POST /echo      echoes the body (Content-Length or chunked)
      anything else   "hello from NAME\\n" (NAME = $SERVER_NAME or ADDR)
  server.py https ADDR PORT  the same over TLS ($TLS_CERT, $TLS_KEY), and
      GET /api        "real token received" when Authorization is
                      "Bearer $EXPECT_TOKEN", else "got: " and what came
                      (never the real token back: the client must not
                      learn it from the answer)
      GET /session    "session reused: True" when this connection
                      resumed a TLS session (else False)
      $TLS_MAX=1.2    no TLS 1.3
  server.py echo ADDR PORT   TCP echo
  server.py banner ADDR PORT TCP echo that speaks first (an SSH-like
                             banner line), as servers of SSH, SMTP or
                             MySQL do"""
import os
import socket
import socketserver
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAME = os.environ.get("SERVER_NAME", "")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, body, ctype="text/plain"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        if self.path.split("?")[0] == "/api":
            got = self.headers.get("Authorization", "")
            want = "Bearer " + os.environ.get("EXPECT_TOKEN", "-")
            return self.send_body(b"real token received\n" if got == want
                                  else ("got: %s\n" % got).encode())
        if self.path == "/session":
            return self.send_body(("session reused: %s\n" % self.connection.session_reused).encode())
        parts = self.path.split("/")
        if len(parts) == 3 and parts[2].isdigit():
            n = int(parts[2])
            if parts[1] == "bytes":
                return self.send_body(b"x" * n)
            if parts[1] == "chunked":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                left = n
                while left:
                    k = min(left, 1000)
                    self.wfile.write(b"%x\r\n%s\r\n" % (k, b"y" * k))
                    left -= k
                self.wfile.write(b"0\r\n\r\n")
                return
            if parts[1] == "close":
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b"z" * n)
                self.close_connection = True
                return
        self.send_body(("hello from %s\n" % (NAME or self.server.server_address[0])).encode())

    do_HEAD = do_GET

    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_body(body, "application/octet-stream")


class V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class TCPServer(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


class EchoHandler(socketserver.BaseRequestHandler):
    def handle(self):
        try:
            while True:
                data = self.request.recv(65536)
                if not data:
                    return
                self.request.sendall(data)
        except ConnectionResetError:
            pass  # the proxy resets what it refuses


class BannerHandler(EchoHandler):
    def handle(self):
        self.request.sendall(b"SSH-2.0-agentrt-test\r\n")
        super().handle()


def main():
    kind, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if kind in ("http", "https"):
        cls = V6Server if ":" in addr else ThreadingHTTPServer
        cls.daemon_threads = True
        srv = cls((addr, port), Handler)
        if kind == "https":
            import ssl
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(os.environ["TLS_CERT"], os.environ["TLS_KEY"])
            if os.environ.get("TLS_MAX") == "1.2":
                ctx.maximum_version = ssl.TLSVersion.TLSv1_2
            srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        srv.serve_forever()
    if kind not in ("echo", "banner"):
        sys.exit("server.py: KIND is http, echo or banner")
    if ":" in addr:
        TCPServer.address_family = socket.AF_INET6
    TCPServer((addr, port), BannerHandler if kind == "banner" else EchoHandler).serve_forever()


if __name__ == "__main__":
    main()
