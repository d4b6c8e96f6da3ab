#!/usr/bin/env bats
# audit-trail: the audit dir and the trail files are opened without
# following symlinks, and judged on what was opened: owned by root or the
# runtime, the dir and the file not writable by anyone else, the file a
# regular file with one link.  Whatever is planted where the trail goes
# (a symlink for the dir, for an ancestor or for the trail, a hard link, a
# FIFO, a loose mode, another owner), `create` (and `exec`, and `agentrt
# audit`) refuses with ONE line naming the path and what is wrong, leaves
# nothing behind (no_leftovers) and touches nothing it found there.  Each
# table runs a sound audit dir first, which must work: the refusals are
# the trail's, not the bundle's.  (runc has no audit trail: there is no
# control runtime to run these against.)

load helpers
load helpers/security
load helpers/hardening

setup ()
{
  sec_setup || return 1
  requires agentrt
  AT=$BATS_TEST_TMPDIR/at
  mkdir -p "$AT"
}

# audit_policy DIR [hardened]: the policy (hardening off, or the tests'
# default-style hardened one) with its audit dir at DIR.
audit_policy ()
{
  if [[ ${2:-} == hardened ]]; then
    hardening_policy '.audit.dir = $d' --arg d "$1"
  else
    jq -n --arg d "$1" '{version: 1, hardening: "off", audit: {dir: $d}}' \
      >"$BATS_TEST_TMPDIR/policy-at.json" || return 1
    use_policy "$BATS_TEST_TMPDIR/policy-at.json"
  fi
}

# listing DIR: every node under DIR with its type, mode, owner and links.
listing ()
{
  find "$1" -printf '%p %y %m %U %n %s\n' | sort
}

# ---- the table -------------------------------------------------------------
# NAME | WORDS the one line must contain (;-separated) | SETUP
# SETUP runs with P (the case's own dir, root-owned 0755), A (the audit dir
# the policy names, $P/audit unless SETUP changes it) and T ($A/ID.jsonl).
# WORDS may use $A and $T.  The first case must work.
CASES=(
  'a sound audit dir||mkdir -m 0700 "$A"'
  'the audit dir a symlink to a sound dir|$A` is a symlink (not followed)|mkdir -m 0700 "$P/real"; ln -s real "$A"'
  'the audit dir a dangling symlink|$A` is a symlink|ln -s "$P/elsewhere" "$A"'
  'the audit dir a symlink to /|$A` is a symlink|ln -s / "$A"'
  'an ancestor a symlink|$P/link` is a symlink|mkdir -m 0755 "$P/real"; ln -s real "$P/link"; A=$P/link/audit'
  'the audit dir writable by anyone|$A` is writable by anyone (mode 0777)|mkdir -m 0777 "$A"'
  'the audit dir writable by anyone, sticky|$A` is writable by anyone (mode 1777)|mkdir -m 1777 "$A"'
  'the audit dir writable by its group|$A` is writable by its group|mkdir -m 0770 "$A"'
  'the audit dir owned by another user|$A` is owned by uid 4242|mkdir -m 0700 "$A"; chown 4242 "$A"'
  'an ancestor owned by another user|$P/u` is owned by uid 4242|mkdir -m 0755 "$P/u"; chown 4242 "$P/u"; A=$P/u/audit'
  'the audit dir a regular file|$A` is not a directory|echo x >"$A"'
  'the trail a symlink|$T` is a symlink|mkdir -m 0700 "$A"; ln -s "$P/target" "$T"'
  'the trail a symlink to a root-owned file|$T` is a symlink|mkdir -m 0700 "$A"; echo keep >"$P/file"; ln -s "$P/file" "$T"'
  'the trail a hard link|$T` has 2 links|mkdir -m 0700 "$A"; echo keep >"$P/file"; ln "$P/file" "$T"'
  'the trail a FIFO|$T` is not a regular file|mkdir -m 0700 "$A"; mkfifo "$T"'
  'the trail a directory|$T` is not a regular file|mkdir -m 0700 "$A" "$T"'
  'the trail owned by another user|$T` is owned by uid 4242|mkdir -m 0700 "$A"; touch "$T"; chown 4242 "$T"'
  'the trail writable by anyone|$T` is writable by anyone (mode 0666)|mkdir -m 0700 "$A"; touch "$T"; chmod 0666 "$T"'
)

# run_case I LINE [hardened]: one case; 0 when it behaved.
run_case ()
{
  local i=$1 name words setup w id=$CT_ID-$1 P A T before after
  IFS='|' read -r name words setup <<<"$2"
  P=$AT/case-$i
  mkdir -m 0755 "$P" || return 1
  A=$P/audit
  T=$A/$id.jsonl
  eval "$setup" || { echo "case '$name': setup failed" >&2; return 1; }
  T=$A/$id.jsonl # (the ancestor cases move A)
  audit_policy "$A" "${3:-}" || return 1
  before=$(listing "$P")
  rt run --bundle "$BUNDLE" "$id"
  if [[ -z $words ]]; then
    check_status 0 && [[ -s $T ]] || { echo "case '$name': $output" >&2; return 1; }
    return 0
  fi
  words=${words//'$A'/$A}
  words=${words//'$T'/$T}
  words=${words//'$P'/$P}
  IFS=';' read -r -a w <<<"$words"
  after=$(listing "$P")
  one_line_error "${w[@]}" && no_leftovers "$id" \
    && [[ $before == "$after" ]] \
    || { echo "case '$name': $(diff <(echo "$before") <(echo "$after"))" >&2; return 1; }
}

run_table ()
{
  local i bad=0
  update_config '.process.args = ["true"]'
  for i in "${!CASES[@]}"; do
    run_case "$i" "${CASES[i]}" "$@" || bad=$((bad + 1))
  done
  echo "# ${#CASES[@]} cases, $bad failed" >&3
  [[ $bad -eq 0 ]]
}

@test "audit trail: a planted audit dir or trail is refused with one line, nothing left or touched" {
  requires mkfifo
  run_table
}

@test "audit trail: hardened (monitor, sidecar): a planted audit dir or trail is refused the same way" {
  requires mkfifo
  run_table hardened
}

# ---- exec and `agentrt audit` ------------------------------------------------

@test "audit trail: exec into a container whose trail was replaced by a symlink is refused" {
  hardening_policy
  start_ct
  local trail=$AUDIT_DIR/$CT_ID.jsonl
  mv "$trail" "$BATS_TEST_TMPDIR/moved.jsonl"
  ln -s "$BATS_TEST_TMPDIR/moved.jsonl" "$trail"
  rt exec "$CT_ID" true
  one_line_error "$trail\` is a symlink"
  grep -q '"event":"exec"' "$BATS_TEST_TMPDIR/moved.jsonl" && fail "the exec was recorded through the symlink"
  # put back, it works
  rm "$trail"
  mv "$BATS_TEST_TMPDIR/moved.jsonl" "$trail"
  rt_ok exec "$CT_ID" true
  grep -q '"event":"exec"' "$trail" || fail "$(cat "$trail")"
}

@test "audit trail: agentrt audit prints a sound trail and refuses a planted one" {
  audit_policy "$AT/audit"
  update_config '.process.args = ["true"]'
  rt_ok run --bundle "$BUNDLE" "$CT_ID"
  rt_ok audit "$CT_ID"
  [[ $output == *'"event":"create"'* ]] || fail "$output"
  local trail=$AT/audit/$CT_ID.jsonl
  mv "$trail" "$AT/other"
  ln -s "$AT/other" "$trail"
  rt audit "$CT_ID"
  one_line_error "$trail\` is a symlink"
  rm "$trail"
  cp "$AT/other" "$trail"
  chmod 0622 "$trail"
  rt audit "$CT_ID"
  one_line_error "$trail\` is writable by anyone"
  rm "$trail"
  rt audit "$CT_ID"
  one_line_error "no audit trail for \`$CT_ID\`"
}
