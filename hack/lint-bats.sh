#!/bin/bash
# hack/lint-bats.sh [FILE...]: refuses bats test code that cannot fail.
# In bats a line `! cmd` does not fail the test unless it is the test's
# last command (bash's errexit ignores a negated pipeline), so a check
# written that way passes whatever cmd does.  Every such line in a @test
# body that is not its last command is reported (write `run ! cmd`,
# `! cmd || fail "..."` or `[[ ... ]]` instead).  With no FILE, every .bats
# file under tests/.  Exits 1 when something is reported.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
files=("$@")
[[ ${#files[@]} -gt 0 ]] || mapfile -t files < <(find tests -name '*.bats' | sort)
awk '
  FNR == 1 { in_test = 0 }
  /^@test / { in_test = 1; depth = 0; pending = ""; next }
  in_test {
    line = $0
    # the end of the test body: a } alone at the start of a line
    if (line ~ /^}/) {
      in_test = 0; pending = ""; next
    }
    if (line ~ /^[ \t]*$/ || line ~ /^[ \t]*#/) next
    if (pending != "") { print pending; bad = 1; pending = "" }
    if (line ~ /^[ \t]*! / && line !~ /\|\|/ && line !~ /\\$/)
      pending = FILENAME ":" FNR ": `! cmd` not on the last line of a test never fails it: " line
  }
  END { exit bad }
' "${files[@]}"
