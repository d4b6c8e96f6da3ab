#!/usr/bin/env python3
"""A git server over HTTPS for tests/egress/run.sh: `git http-backend`
(smart HTTP, CGI) behind a small server that asks for HTTP Basic
credentials and lets a request through only when the password is
$EXPECT_TOKEN (any user name); the repositories are under ROOT.
  git_server.py ADDR PORT ROOT   (certificate: $TLS_CERT, $TLS_KEY)"""
import base64
import os
import ssl
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def refuse(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="test"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def authorized(self):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Basic "):
            return False
        try:
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
        except ValueError:
            return False
        return password == os.environ["EXPECT_TOKEN"]

    def backend(self):
        if not self.authorized():
            return self.refuse()
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length", "0") or 0)
        body = self.rfile.read(length) if length else b""
        env = {"GIT_PROJECT_ROOT": sys.argv[3], "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": path, "QUERY_STRING": query, "REQUEST_METHOD": self.command,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": "agent",
               "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        gz = self.headers.get("Content-Encoding", "")
        if gz:
            env["HTTP_CONTENT_ENCODING"] = gz
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             capture_output=True).stdout
        head, _, data = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.split(b"\r\n"):
            name, _, value = line.decode().partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = backend
    do_POST = backend


def main():
    srv = ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.environ["TLS_CERT"], os.environ["TLS_KEY"])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
