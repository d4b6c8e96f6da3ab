# shellcheck shell=bash
# hack/try-demo.bash: `hack/try.sh --demo`, sourced by try.sh (which set
# tmp, id, rt, RUNTIME, runtime_name, CLEANUP and the exit trap).  One
# sandbox shaped like an engine's agent job; hack/try-agent.sh runs in it.
#
#   netns UP (the bundle's, where agentrt's sidecar runs)   netns SRV
#   10.87.0.1/24 ─────────────── veth ─────────────── 10.87.0.2 (allowlisted)
#   no other route                                     10.87.0.3 (not)
#                                                      busybox httpd on :80
#
# Both namespaces, the veth and the addresses are the demo's own: nothing
# leaves them.  Everything is registered in CLEANUP as it is made.

DEMO_NET=10.87.0
DEMO_ALLOWED=http://$DEMO_NET.2/
DEMO_DENIED=http://$DEMO_NET.3/
# The fork bomb stops here, well above agentrt's default pids limit (1024):
# under a runtime without a limit it must not take the host's pids.
DEMO_BOMB_CAP=1200

# demo_net: the two namespaces, the veth, the addresses, the web server.
demo_net ()
{
  local up=agentrt-demo-up-$$ srv=agentrt-demo-srv-$$
  DEMO_NETNS=/run/netns/$up
  ip netns add "$up"
  CLEANUP+=("ip netns del $up")
  ip netns add "$srv"
  CLEANUP+=("ip netns del $srv")
  ip link add "adu$$" netns "$up" type veth peer name "ads$$" netns "$srv"
  ip -n "$up" link set lo up
  ip -n "$srv" link set lo up
  ip -n "$up" addr add "$DEMO_NET.1/24" dev "adu$$"
  ip -n "$srv" addr add "$DEMO_NET.2/24" dev "ads$$"
  ip -n "$srv" addr add "$DEMO_NET.3/24" dev "ads$$"
  ip -n "$up" link set "adu$$" up
  ip -n "$srv" link set "ads$$" up

  mkdir -p "$tmp/www"
  echo "hello from the test server" >"$tmp/www/index.html"
  ip netns exec "$srv" busybox httpd -f -p 80 -h "$tmp/www" </dev/null >/dev/null 2>&1 &
  CLEANUP+=("kill $!")
  local tries=50
  until ip netns exec "$up" timeout 2 busybox wget -q -O /dev/null "$DEMO_ALLOWED" 2>/dev/null; do
    ((--tries > 0)) || { echo "try.sh --demo: the test server did not start" >&2; return 1; }
    sleep 0.1
  done
}

# demo_socket: a unix socket at $tmp/run/docker.sock, answering like the
# Docker engine's /_ping.
demo_socket ()
{
  mkdir -p "$tmp/run"
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
while True:
    c, _ = s.accept()
    c.recv(4096)
    c.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nOK\n")
    c.close()
' "$tmp/run/docker.sock" </dev/null >/dev/null 2>&1 &
  CLEANUP+=("kill $!")
  local tries=50
  until [[ -S $tmp/run/docker.sock ]]; do
    ((--tries > 0)) || { echo "try.sh --demo: the docker.sock server did not start" >&2; return 1; }
    sleep 0.1
  done
}

# demo_home: the user's home, with the credentials an agent should never read.
demo_home ()
{
  local h=$tmp/home
  mkdir -p "$h/.ssh" "$h/.aws" "$h/project"
  printf '%s\n' '-----BEGIN OPENSSH PRIVATE KEY-----' 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ (a demo key)' \
    '-----END OPENSSH PRIVATE KEY-----' >"$h/.ssh/id_ed25519"
  printf '%s\n' '[default]' 'aws_access_key_id = AKIADEMODEMODEMODEMO' \
    'aws_secret_access_key = demo/demo/demo/demo/demo/demo/demo/demo0' >"$h/.aws/credentials"
  chmod 0600 "$h/.ssh/id_ed25519" "$h/.aws/credentials"
  echo "notes for the agent: make the tests pass" >"$h/project/notes.txt"
}

# demo_bundle: the bundle, as an engine would hand it over.
demo_bundle ()
{
  mkbundle "$tmp/bundle" "$RUNTIME"
  cp "$HACK/try-agent.sh" "$tmp/bundle/rootfs/agent.sh"
  update_demo_config '
    .process.args = ["sh", "/agent.sh", $allowed, $denied, $cap]
    | .process.terminal = false
    | .process.env = ([.process.env[] | select(startswith("HOME=") | not)] + [
        "HOME=/home/agent",
        "GITHUB_TOKEN=ghp_DEMOdemoDEMOdemoDEMOdemoDEMOdemo1234",
        "AWS_SECRET_ACCESS_KEY=demo/demo/demo/demo/demo/demo/demo/demo0",
        "DATABASE_URL=postgres://app:s3cr3t-demo@db.internal:5432/app",
        "PROJECT=demo"])
    | .root.readonly = false
    | .mounts += [
        {destination: "/home/agent", type: "bind", source: $home, options: ["rbind", "rw"]},
        {destination: "/var/run/docker.sock", type: "bind", source: $sock, options: ["bind"]}]
    | .linux.namespaces |= map(if .type == "network" then .path = $netns else . end)
    | .annotations["run.agentrt.egress.allow"] = $ip' \
    --arg allowed "$DEMO_ALLOWED" --arg denied "$DEMO_DENIED" --arg cap "$DEMO_BOMB_CAP" \
    --arg home "$tmp/home" --arg sock "$tmp/run/docker.sock" --arg netns "$DEMO_NETNS" \
    --arg ip "$DEMO_NET.2"
}

update_demo_config ()
{
  local filter=$1
  shift
  jq "$@" "$filter" "$tmp/bundle/config.json" >"$tmp/config.json"
  mv "$tmp/config.json" "$tmp/bundle/config.json"
}

# demo_audit_egress ADDR proxy|transparent: the audit trail's last
# decision on ADDR through the proxy ("deny not-allowlisted"), or through
# the transparent path with how it named the destination ("allow ok, via
# addr"), or nothing (no trail: not agentrt).
demo_audit_egress ()
{
  local trail=$tmp/audit/$id.jsonl
  [[ -s $trail ]] || return 0
  jq -r --arg a "$1" --arg path "$2" '
    select(.event == "egress" and (.addr == $a or .host == $a)
           and (((.via // "proxy") == "proxy") == ($path == "proxy")))
    | "\(.decision) \(.reason)" + (if $path == "proxy" then "" else ", via \(.via)" end)' \
    "$trail" 2>/dev/null | tail -n 1
}

# demo_report AGENT-OUTPUT: one line a step (the egress ones with what the
# audit trail says); returns 1 if an attack got through or some work failed.
demo_report ()
{
  local tag kind rc what evidence verdict audit path bad=0 blocked=0 attacks=0 done_=0 work=0
  while IFS=$'\t' read -r tag kind rc what evidence; do
    [[ $tag == @demo ]] || continue
    if [[ $kind == work ]]; then
      work=$((work + 1))
      if ((rc == 0)); then verdict=passed done_=$((done_ + 1)); else verdict=FAILED bad=1; fi
    else
      attacks=$((attacks + 1))
      if ((rc == 0)); then verdict=PASSED bad=1; else verdict=blocked blocked=$((blocked + 1)); fi
    fi
    if [[ $what =~ http://([0-9.]+)/\  ]]; then
      path=proxy
      [[ $what != *"without the proxy"* ]] || path=transparent
      audit=$(demo_audit_egress "${BASH_REMATCH[1]}" "$path")
      [[ -z $audit ]] || evidence+=" (audit: $audit)"
    fi
    printf '  %-7s  %-6s  %-59s  %s\n' "$verdict" "$kind" "$what" "$evidence"
  done <"$1"
  if ((attacks + work < 13)); then
    echo "try.sh --demo: the agent reported $((attacks + work)) of 13 steps (its output: $1)" >&2
    sed -n '/^@demo/!p' "$1" >&2
    return 1
  fi
  log "$blocked of $attacks attacks blocked, $done_ of $work work steps passed"
  return "$bad"
}

try_demo ()
{
  local rc=0
  command -v ip >/dev/null || { echo "try.sh --demo: needs ip (apt-get install iproute2)" >&2; return 1; }
  demo_net
  demo_socket
  demo_home
  demo_bundle
  explain "$tmp/bundle"
  log "the agent's work and attacks, in one sandbox ($runtime_name)"
  "${rt[@]}" run --bundle "$tmp/bundle" "$id" </dev/null >"$tmp/agent.out" 2>&1 || rc=$?
  if ((verbose)) || ((rc != 0)); then
    sed -n '/^@demo/!p' "$tmp/agent.out"
  fi
  if ((rc != 0)); then
    echo "try.sh --demo: the sandbox exited with status $rc" >&2
    return 1
  fi
  if [[ ! -s $tmp/home/project/result.txt ]]; then
    echo "try.sh --demo: the result the agent wrote is not in the bound home" >&2
    rc=1
  fi
  demo_report "$tmp/agent.out" || rc=1
  return "$rc"
}
