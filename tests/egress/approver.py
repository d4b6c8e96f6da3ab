#!/usr/bin/env python3
"""A scripted approver for tests/egress/ask.sh: listens on a unix socket
(the policy's egress.ask socket, here launch.py --approver connects to it
as the runtime does), writes every line a sidecar sends to LOG, and
answers each question by its rules:
  approver.py SOCKET LOG [HOST:PORT=ACTION ...]
ACTION: allow-once, allow-always, deny (answered at once), wait (never
answered: the sidecar's timeout decides; the default) or close (the
approver closes that sidecar's connection: it has gone away).  Hostile
approvers, for the sidecar to withstand: forge (answers allow-always for
question ids it was not asked, never the one it was), late (answers
allow-always for the previous question about that destination, never
the current one), twice (deny, then allow-always, for the same
question), split (allow-once, sent in two writes, the first without its
newline) and huge (a line of 3000 bytes without a newline)."""
import json
import os
import selectors
import socket
import sys
import time


def main():
    path, log_path = sys.argv[1], sys.argv[2]
    rules = dict(r.split("=", 1) for r in sys.argv[3:])
    if os.path.exists(path):
        os.unlink(path)
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsock.bind(path)
    lsock.listen(16)
    log = open(log_path, "a", buffering=1)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ)
    bufs = {}
    last_qid = {}
    while True:
        for key, _ in sel.select():
            s = key.fileobj
            if s is lsock:
                conn, _ = lsock.accept()
                bufs[conn] = b""
                sel.register(conn, selectors.EVENT_READ)
                continue
            data = s.recv(65536)
            if not data:
                sel.unregister(s)
                s.close()
                continue
            bufs[s] += data
            while b"\n" in bufs[s]:
                line, bufs[s] = bufs[s].split(b"\n", 1)
                log.write(line.decode() + "\n")
                msg = json.loads(line)
                if msg["type"] != "question":
                    continue
                dest = "%s:%d" % (msg["host"], msg["port"])
                action = rules.get(dest, "wait")
                qid, before = msg["qid"], last_qid.get((s, dest))
                last_qid[(s, dest)] = qid
                if action == "close":
                    sel.unregister(s)
                    s.close()
                    break
                if action == "forge":
                    s.sendall(answer(qid + 1000, "allow-always") + answer(0, "allow-always"))
                elif action == "late" and before is not None:
                    s.sendall(answer(before, "allow-always"))
                elif action == "twice":
                    s.sendall(answer(qid, "deny") + answer(qid, "allow-always"))
                elif action == "split":
                    line = answer(qid, "allow-once")
                    s.sendall(line[:10])
                    time.sleep(0.3)
                    s.sendall(line[10:])
                elif action == "huge":
                    s.sendall(b" " * 3000)
                elif action not in ("wait", "late"):
                    s.sendall(answer(qid, action))


def answer(qid, action):
    return json.dumps({"qid": qid, "answer": action}).encode() + b"\n"


if __name__ == "__main__":
    main()
