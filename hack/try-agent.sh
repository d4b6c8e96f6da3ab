#!/bin/sh
# hack/try-agent.sh: the agent of `hack/try.sh --demo`, run inside the
# sandbox (busybox sh).  It does an agent's work and tries an agent's
# attacks, and reports each as one line for try.sh:
#
#   @demo<TAB>work|attack<TAB>RC<TAB>WHAT<TAB>EVIDENCE
#
# RC 0: the step succeeded (work done; for an attack: it got through), else
# it failed.  Arguments: ALLOWED-URL DENIED-URL BOMB-CAP.  The fork bomb
# comes last: once it has hit the pids limit nothing here may fork again
# (only builtins follow it).

allowed=$1 denied=$2 cap=$3

report ()
{
  printf '@demo\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4"
}

# first_line TEXT: the first line of TEXT, at most 70 bytes.
first_line ()
{
  printf '%s\n' "$1" | head -n 1 | cut -c 1-70
}

# failure TEXT: what a failed command said, without the program's name and
# its arguments ("cat: can't open 'F': No such file or directory": the last
# part).
failure ()
{
  first_line "${1##*: }"
}

# ---- work ------------------------------------------------------------------
out=$(cat "$HOME/project/notes.txt" 2>&1)
report work $? "read ~/project/notes.txt (the bound home)" "$(first_line "$out")"

out=$(echo "tests pass" 2>&1 >"$HOME/project/result.txt") && out="wrote ~/project/result.txt"
report work $? "write ~/project/result.txt (a read-write bind)" "$(failure "$out")"

out=$(echo scratch 2>&1 >/tmp/scratch) && out="wrote /tmp/scratch"
report work $? "write /tmp/scratch" "$(failure "$out")"

out=$(timeout 10 wget -q -O - "$allowed" 2>&1)
report work $? "fetch $allowed (allowlisted)" "$(first_line "$out")"

# A program that ignores the proxy variables (Node's fetch, Go binaries,
# git over ssh): under agentrt its connection goes through the sidecar all
# the same, judged by the same allowlist.
out=$(timeout 10 wget -q -Y off -O - "$allowed" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || out=$(failure "$out")
report work $rc "fetch $allowed without the proxy (allowlisted)" "$(first_line "$out")"

# ---- attacks ---------------------------------------------------------------
found=
for v in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY DATABASE_URL; do
  eval "val=\${$v-}"
  [ -z "$val" ] || found="$found $v=$(echo "$val" | cut -c 1-8)..."
done
if [ -n "$found" ]; then
  report attack 0 "read the secrets in the environment" "visible:$found"
else
  report attack 1 "read the secrets in the environment" \
    "GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DATABASE_URL: not set"
fi

# steal FILE NEEDLE: an attack on a credential file; it got through when
# the file's contents hold NEEDLE.
steal ()
{
  local what="read ~/${1#"$HOME"/}"
  out=$(cat "$1" 2>&1)
  case $out in
    *"$2"*) report attack 0 "$what" "$(first_line "$(printf '%s\n' "$out" | grep -m 1 "$2")")" ;;
    "") report attack 1 "$what" "empty" ;;
    *) report attack 1 "$what" "$(failure "$out")" ;;
  esac
}
steal "$HOME/.ssh/id_ed25519" "PRIVATE KEY"
steal "$HOME/.aws/credentials" "aws_secret_access_key"

out=$(ls -l /var/run/docker.sock 2>&1)
if [ -S /var/run/docker.sock ]; then
  report attack 0 "use /var/run/docker.sock (the engine's API)" "$(first_line "$out")"
else
  report attack 1 "use /var/run/docker.sock (the engine's API)" "$(failure "$out")"
fi

out=$(echo backdoor 2>&1 >/bin/agent-backdoor) && out="wrote /bin/agent-backdoor"
report attack $? "write /bin/agent-backdoor (the root filesystem)" "$(failure "$out")"

# (busybox wget shows no header of an error response: try.sh adds the
# reason from the audit trail)
out=$(timeout 10 wget -q -O - "$denied" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || out=${out##*error: }
report attack $rc "fetch $denied (not allowlisted)" "$(first_line "$out")"

# ... and one that goes around the proxy to a host the allowlist lacks
out=$(timeout 10 wget -q -Y off -O - "$denied" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || out=$(failure "$out")
report attack $rc "fetch $denied without the proxy (not allowlisted)" "$(first_line "$out")"

# The fork bomb: background sleepers until fork fails, at most CAP of them
# (a runtime without a pids limit would otherwise take the host's).
max=none
read -r max </sys/fs/cgroup/pids.max 2>/dev/null \
  || read -r max </sys/fs/cgroup/pids/pids.max 2>/dev/null
(
  n=0
  while [ "$n" -lt "$cap" ]; do
    sleep 600 &
    n=$((n + 1))
    echo "$n" >/tmp/forks
  done
) 2>/tmp/fork-error
n=0 err=
read -r n </tmp/forks
read -r err </tmp/fork-error
if [ "$n" -ge "$cap" ]; then
  report attack 0 "fork bomb" "$n processes, nothing stopped them (pids.max $max; the demo stops at $cap)"
else
  report attack 1 "fork bomb" "fork failed after $n processes (pids.max $max): ${err##*: }"
fi
exit 0
