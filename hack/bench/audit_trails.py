#!/usr/bin/env python3
"""hack/bench/audit_trails.py: trails for hack/bench/audit-summary.sh.
  audit_trails.py DIR N [--seed S]
Writes N trails DIR/cNNNNN.jsonl shaped like what agentrt writes for an
engine's jobs: a create line with the directives and the changes of a
bundle with a bound home (secrets removed, credential stores and sockets
masked, tmpfs, capabilities, limits: about 3 kB), an exec now and then,
egress lines (a few allowed hosts, a tail of denied ones, 0 to 40 a
container), limits and incidents for a few, an exit.  5% run with the
hardening off, 2% loosened, 1% carry a damaged line, 2% are still
running.  Prints `trails N bytes B lines L`."""
import argparse
import json
import os
import random
import time

ALLOWED = ["pypi.org", "files.pythonhosted.org", "registry.npmjs.org",
           "github.com", "api.github.com", "objects.githubusercontent.com",
           "proxy.golang.org", "crates.io", "static.crates.io",
           "deb.debian.org"]
SECRETS = [("GITHUB_TOKEN", "known credential variable"),
           ("OPENAI_API_KEY", "known credential variable"),
           ("ANTHROPIC_API_KEY", "known credential variable"),
           ("AWS_ACCESS_KEY_ID", "known credential variable"),
           ("AWS_SECRET_ACCESS_KEY", "known credential variable"),
           ("NPM_TOKEN", "known credential variable"),
           ("DATABASE_URL", "value is a URL with a password"),
           ("SENTRY_DSN", "name matches *DSN"),
           ("STRIPE_KEY", "name matches *_KEY (a key with a qualifier)"),
           ("CI_JOB_JWT", "value looks like a JWT")]
MASKS = [(".ssh", "credential path .ssh in the bind mount /home/dev"),
         (".aws", "credential path .aws in the bind mount /home/dev"),
         (".kube", "credential path .kube in the bind mount /home/dev"),
         (".docker/config.json", "credential path .docker/config.json in the bind mount /home/dev"),
         (".config/gh", "credential path .config/gh in the bind mount /home/dev"),
         (".netrc", "credential path .netrc in the bind mount /home/dev"),
         ("run/agent.sock", "a unix socket in a bind mount")]
CAPS = ["CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_SYS_PTRACE",
        "CAP_SYS_MODULE", "CAP_MKNOD", "CAP_AUDIT_WRITE", "CAP_SETFCAP"]


def ts(t):
    """RFC 3339 with nanoseconds, as create writes it."""
    s = int(t)
    return "%s.%09dZ" % (time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)),
                         int((t - s) * 1e9))


def ts_ms(t):
    """RFC 3339 with milliseconds, as the sidecar writes it."""
    s = int(t)
    return "%s.%03dZ" % (time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)),
                         int((t - s) * 1e3))


def line(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"


def create(cid, t, rnd, hardened, loosened):
    if not hardened:
        return line({"time": ts(t), "id": cid, "event": "create", "hardened": False,
                     "reason": "hardening is off in the admin policy"})
    changes = []
    for name, why in rnd.sample(SECRETS, rnd.randint(2, 6)):
        changes.append({"kind": "env-removed", "what": name, "why": why})
    changes.append({"kind": "env-set", "what": "HTTP_PROXY=http://127.0.0.1:3128",
                    "why": "egress goes through the sidecar proxy"})
    for path, why in rnd.sample(MASKS, rnd.randint(2, 6)):
        changes.append({"kind": "path-masked", "what": "/home/dev/" + path, "why": why})
    changes.append({"kind": "mount-dropped", "what": "/var/run/docker.sock (source /run/docker.sock)",
                    "why": "the source is a unix socket"})
    for where, size in (("/tmp", "512m"), ("/run", "64m"), ("/dev/shm", "64m")):
        changes.append({"kind": "tmpfs", "what": "%s (size=%s)" % (where, size),
                        "why": "scratch space on a read-only root"})
    changes.append({"kind": "rootfs", "what": "root.readonly = true", "why": "read-only root"})
    for cap in CAPS:
        changes.append({"kind": "capability", "what": cap + " removed", "why": "not in the safe set"})
    changes.append({"kind": "no-new-privileges", "what": "process.noNewPrivileges = true",
                    "why": "no privilege gain through exec"})
    changes.append({"kind": "limit", "what": "pids.limit = 1024", "why": "the bundle sets none"})
    changes.append({"kind": "limit", "what": "memory.limit = 4g, memory.swap = 4g",
                    "why": "the bundle sets none"})
    changes.append({"kind": "lifetime", "what": "86400 s", "why": "policy limits.lifetime"})
    changes.append({"kind": "seccomp", "what": "/usr/share/agentrt/agent-default.json",
                    "why": "the agent profile is stacked on the bundle's filter"})
    directives = {"rootfs": "writable" if loosened else "readonly",
                  "seccompProfile": "/usr/share/agentrt/agent-default.json",
                  "lifetime": 86400, "egress": "proxy",
                  "egressAllow": ",".join(ALLOWED[:4]), "egressAllowBroad": False,
                  "network": {"bundle": "new", "sharedAgentNamespace": False,
                              "hooks": False, "egress": True, "userNamespace": False,
                              "localMonitor": False, "uplink": "auto", "agent": "own",
                              "outside": "runtime", "maker": "monitor"},
                  "envKeep": ["GPG_KEY"] if loosened else [],
                  "sidecarUid": 65534, "sidecarGid": 65534,
                  "sidecarBusyPollMicroseconds": 100, "auditDir": "/var/log/agentrt",
                  "requiredMasks": ["/home/dev/.ssh"], "protectedPaths": [],
                  "protectedDirs": []}
    return line({"time": ts(t), "id": cid, "event": "create", "hardened": True,
                 "directives": directives, "changes": changes})


def trail(cid, t, rnd):
    hardened = rnd.random() >= 0.05
    loosened = hardened and rnd.random() < 0.02
    out = [create(cid, t, rnd, hardened, loosened)]
    life = rnd.lognormvariate(5, 1.5)  # seconds: a median of 2.5 min
    if rnd.random() < 0.3:
        out.append(line({"time": ts(t + 1), "id": cid, "event": "exec", "program": "sh",
                         "changes": [{"kind": "env-removed", "what": "GITHUB_TOKEN",
                                      "why": "known credential variable"}]}))
    if hardened:
        for _ in range(rnd.randint(0, 40)):
            at = t + rnd.random() * life
            if rnd.random() < 0.9:
                host, decision, reason = rnd.choice(ALLOWED), "allow", "ok"
            else:
                host = "x%d.example" % rnd.randint(0, 500)
                decision, reason = "deny", rnd.choice(["not-allowlisted", "address-metadata",
                                                       "address-private"])
            out.append(line({"time": ts_ms(at), "event": "egress", "id": cid,
                             "proto": "connect", "host": host, "port": 443,
                             "addr": "192.0.2.1" if decision == "allow" else None,
                             "decision": decision, "reason": reason,
                             "bytes_up": rnd.randint(0, 10**6),
                             "bytes_down": rnd.randint(0, 10**7),
                             "duration_ms": rnd.randint(1, 30000)}))
    if rnd.random() < 0.01:
        out.append('{"time":"%s","event":"egress","dec' % ts_ms(t + 2) + "\n")
    kind = None
    if hardened and rnd.random() < 0.03:
        kind = rnd.choice(["oom", "pids", "lifetime"])
        out.append(line({"time": ts(t + life), "id": cid, "event": "limit", "limit": kind,
                         "detail": "limit reached"}))
    if hardened and rnd.random() < 0.98:
        exit_ = {"time": ts(t + life), "id": cid, "event": "exit"}
        if kind:
            exit_["signal"] = 9
        else:
            exit_["status"] = rnd.choice([0] * 8 + [1, 2])
        exit_["lifetime_ms"] = int(life * 1000)
        out.append(line(exit_))
    return "".join(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("n", type=int)
    p.add_argument("--seed", type=int, default=17)
    a = p.parse_args()
    rnd = random.Random(a.seed)
    start = 1796000000.0  # 2026-11-29
    total = lines = 0
    for i in range(a.n):
        cid = "c%05d" % i
        text = trail(cid, start + i * 30 + rnd.random(), rnd)
        path = os.path.join(a.dir, cid + ".jsonl")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, text.encode())
        os.close(fd)
        total += len(text)
        lines += text.count("\n")
    print("trails %d bytes %d lines %d" % (a.n, total, lines))


if __name__ == "__main__":
    main()
