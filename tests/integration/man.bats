#!/usr/bin/env bats
# The man pages (docs/man/): each renders without a warning, and each
# stays in sync with what it documents: agentrt(8) with `agentrt help` and
# every `agentrt help COMMAND`, agentrt-egress(8) with the sidecar's usage
# and the options its parser accepts, agentrt-policy(5) with docs/policy.md's
# table, the fields agentrt accepts and the annotations `features` lists.
# A new option, field or annotation without its page fails here.

load helpers

MAN=$(cd "$BATS_TEST_DIRNAME/../../docs/man" && pwd)
TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# man_tags PAGE SECTION [SUBSECTION-WORD]: the bold words of every .TP tag
# in SECTION (.SH) of PAGE, or only under the .SS whose first word is
# SUBSECTION-WORD; `\-` read as `-`.
man_tags ()
{
  awk -v sec="$2" -v sub_="${3:-}" '
    /^\.SH / { s = $0; sub(/^\.SH +/, "", s); gsub(/"/, "", s); in_sec = (s == sec); ss = ""; next }
    /^\.SS / { ss = $2; gsub(/"/, "", ss); next }
    /^\.TP/ { tag = 1; next }
    tag {
      tag = 0
      if (!in_sec || (sub_ != "" && ss != sub_)) next
      line = $0
      while (match(line, /\\fB[^\\]*(\\-[^\\]*)*\\fR/)) {
        w = substr(line, RSTART + 3, RLENGTH - 6)
        gsub(/\\-/, "-", w)
        print w
        line = substr(line, RSTART + RLENGTH)
      }
    }' "$1"
}

# man_subsections PAGE SECTION: the first word of each .SS in SECTION.
man_subsections ()
{
  awk -v sec="$2" '
    /^\.SH / { s = $0; sub(/^\.SH +/, "", s); gsub(/"/, "", s); in_sec = (s == sec); next }
    in_sec && /^\.SS / { w = $2; gsub(/"/, "", w); print w }' "$1"
}

# help_options: the option names of the usage text on stdin (lines that
# start with "  -", up to the description).
help_options ()
{
  grep -E '^  -' | sed -E 's/^  ([^ ].*[^ ]|[^ ]) {2,}.*$/\1/' \
    | grep -oE '(^|[ ,])--?[a-z][a-z-]*' | tr -d ' ,'
}

# same_set WHAT LEFT-NAME LEFT RIGHT-NAME RIGHT: fail naming what only one
# side has (LEFT and RIGHT: newline-separated words).
same_set ()
{
  local only_l only_r
  only_l=$(comm -23 <(sort -u <<<"$3") <(sort -u <<<"$5") | tr '\n' ' ')
  only_r=$(comm -13 <(sort -u <<<"$3") <(sort -u <<<"$5") | tr '\n' ' ')
  [[ -z $only_l && -z $only_r ]] \
    || fail "$1: only in $2: ${only_l:-none}; only in $4: ${only_r:-none}"
}

@test "man: every page renders without a warning (man -l, groff -ww)" {
  command -v man >/dev/null && command -v groff >/dev/null || skip "requires man-db and groff"
  local page out n=0
  for page in "$MAN"/*.[1-8]; do
    out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    [[ -z $out ]] || fail "man -l $page: $out"
    out=$(groff -man -ww -z "$page" 2>&1)
    [[ -z $out ]] || fail "groff $page: $out"
    [[ $(MANWIDTH=80 man -l "$page" 2>/dev/null | wc -l) -gt 40 ]] || fail "$page renders nearly empty"
    n=$((n + 1))
  done
  ((n == 3)) || fail "$n pages in $MAN"
  # the check sees a warning when there is one
  printf '.TH X 1\n.SH NAME\nx \\- y\n.XY undefined\n' >"$BATS_TEST_TMPDIR/bad.1"
  out=$(groff -man -ww -z "$BATS_TEST_TMPDIR/bad.1" 2>&1)
  [[ -n $out ]] || fail "groff reported nothing on an undefined macro"
}

@test "man: agentrt(8) has every command and global option of agentrt --help, and no other" {
  requires agentrt
  local usage
  usage=$("$RUNTIME" --help)
  same_set commands "agentrt --help" \
    "$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' <<<"$usage")" \
    agentrt.8 "$(man_subsections "$MAN/agentrt.8" COMMANDS)"
  same_set "global options" "agentrt --help" \
    "$(sed -n '/^global options:/,/^$/p' <<<"$usage" | help_options)" \
    agentrt.8 "$(man_tags "$MAN/agentrt.8" "GLOBAL OPTIONS" | grep '^-')"
}

@test "man: agentrt(8) lists each command's options as agentrt help COMMAND does" {
  requires agentrt
  local cmd n=0 from_help from_man
  for cmd in $(man_subsections "$MAN/agentrt.8" COMMANDS); do
    from_help=$("$RUNTIME" help "$cmd" | help_options)
    from_man=$(man_tags "$MAN/agentrt.8" COMMANDS "$cmd" | grep '^-' || true)
    same_set "options of $cmd" "agentrt help $cmd" "$from_help" agentrt.8 "$from_man"
    n=$((n + 1))
  done
  ((n >= 17)) || fail "only $n commands"
  # the comparison sees a difference: an option the page lacks
  run same_set "options of x" help $'--a\n--b' page $'--a'
  [[ $status -ne 0 && $output == *"only in help: --b"* ]] || fail "same_set: $output"
}

@test "man: agentrt-egress(8) has the options of its usage and its parser, and no other" {
  requires agentrt
  local egress
  egress=$(dirname "$RUNTIME")/agentrt-egress
  [[ -x $egress ]] || skip "no agentrt-egress next to $RUNTIME"
  local usage from_usage from_parser from_man
  # --help when it has one, else the usage a bad option prints
  usage=$("$egress" --help 2>&1) || usage=$("$egress" --no-such-option 2>&1 || true)
  [[ $usage == *usage:* ]] || fail "no usage from $egress: $usage"
  from_usage=$(sed -n '/usage:/,$p' <<<"$usage" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  # the hidden --self-test is for tests only (docs/egress.md)
  from_parser=$(grep -oE '\{ "[a-z][a-z0-9-]*", (required|no|optional)_argument' \
    "$TOP/runtime/egress/egress.c" | sed -E 's/^\{ "([^"]*)".*/--\1/' | grep -vx -- --self-test)
  [[ -n $from_parser ]] || fail "no options found in runtime/egress/egress.c"
  from_man=$(man_tags "$MAN/agentrt-egress.8" OPTIONS | grep '^-')
  same_set "agentrt-egress options" "its usage" "$from_usage" agentrt-egress.8 "$from_man"
  same_set "agentrt-egress options" "its parser (egress.c)" "$from_parser" agentrt-egress.8 "$from_man"
}

# policy_table_fields: the fields of docs/policy.md's policy file table
# (`tmpfs.tmp`, `.run` is tmpfs.tmp and tmpfs.run).
policy_table_fields ()
{
  sed -n '/^## The policy file/,/^## /p' "$TOP/docs/policy.md" | grep -E '^\| `' \
    | cut -d'|' -f2 | grep -oE '`[^`]+`' | tr -d '`' \
    | awk '/^\./ { print prefix $0; next } { print; p = $0; sub(/\.[^.]*$/, "", p); prefix = p }'
}

@test "man: agentrt-policy(5) has every field of docs/policy.md, each one agentrt accepts" {
  requires agentrt
  local fields field f policy=$BATS_TEST_TMPDIR/policy.json
  fields=$(man_tags "$MAN/agentrt-policy.5" FIELDS)
  same_set "policy fields" docs/policy.md "$(policy_table_fields)" agentrt-policy.5 "$fields"
  # each field, given a value of no field's type, is an error about its
  # value, not an unknown field; a misspelt one is unknown
  for field in $fields "limits.memroy"; do
    if [[ $field == *.* ]]; then
      jq -n --arg s "${field%%.*}" --arg f "${field#*.}" '{version: 1} + {($s): {($f): [[]]}}' >"$policy"
    else
      jq -n --arg f "$field" '{version: 1} + {($f): [[]]}' >"$policy"
    fi
    run "$RUNTIME" --policy "$policy" policy explain --bundle "$BUNDLE"
    [[ $status -eq 1 && $output == *"$field"* ]] || fail "$field: $output"
    if [[ $field == limits.memroy ]]; then
      [[ $output == *"unknown field"* ]] || fail "a misspelt field is not reported: $output"
    else
      [[ $output != *"unknown field"* ]] || fail "agentrt does not know $field: $output"
    fi
  done
}

@test "man: agentrt-policy(5) has every annotation agentrt features lists, and docs/policy.md's" {
  requires agentrt
  local from_man from_features from_docs
  from_man=$(man_tags "$MAN/agentrt-policy.5" ANNOTATIONS)
  from_features=$("$RUNTIME" features | jq -r '.annotations | keys[] | select(startswith("run.agentrt."))')
  from_docs=$(sed -n '/^## Annotations/,/^## /p' "$TOP/docs/policy.md" | grep -E '^\| `run\.agentrt' \
    | cut -d'`' -f2)
  same_set annotations "agentrt features" "$from_features" agentrt-policy.5 "$from_man"
  same_set annotations docs/policy.md "$from_docs" agentrt-policy.5 "$from_man"
}
