#!/usr/bin/python3
"""tests/clients/http_server.py ADDRESS PORT DIR: the engine suites' test
server, python's SimpleHTTPRequestHandler serving DIR.  Each request is
logged on stderr as `CLIENT-ADDRESS - - [date] "REQUEST" STATUS SIZE`, the
address it came from first.  Unlike `python3 -m http.server` it does not
look its own name up when it binds (in a network namespace without a
resolver that lookup waits for its timeout)."""

import functools
import http.server
import socketserver
import sys


class Server(http.server.ThreadingHTTPServer):
    def server_bind(self):
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


def main():
    address, port, directory = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=directory)
    with Server((address, port), handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
