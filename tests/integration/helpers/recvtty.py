#!/usr/bin/env python3
"""recvtty: the receiving end of --console-socket, for the terminal tests.

recvtty.py SOCKET OUTFILE [INPUT]
Listens on the unix socket SOCKET, accepts one connection, takes the pty
master the runtime sends with SCM_RIGHTS, writes INPUT (with \\n escapes
expanded) to it, and copies everything the container writes to OUTFILE
until the last slave closes.  Exits 0 on success, 1 if no fd arrived.
"""
import os
import socket
import sys


def main():
    path, outfile = sys.argv[1], sys.argv[2]
    data = sys.argv[3].encode().decode("unicode_escape") if len(sys.argv) > 3 else ""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    conn, _ = srv.accept()
    _, fds, _, _ = socket.recv_fds(conn, 4096, 4)
    conn.close()
    srv.close()
    if len(fds) != 1:
        print(f"recvtty: expected 1 fd, got {len(fds)}", file=sys.stderr)
        return 1
    master = fds[0]
    if data:
        os.write(master, data.encode())
    with open(outfile, "wb", buffering=0) as out:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every slave is closed
                break
            if not chunk:
                break
            out.write(chunk)
    return 0


if __name__ == "__main__":
    sys.exit(main())
