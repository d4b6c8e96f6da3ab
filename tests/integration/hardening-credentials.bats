#!/usr/bin/env bats
# hardening-credentials: an agent cannot read the credentials a careless
# bundle exposes (a mounted home, a mounted /home, a mounted key file,
# secret env vars, other processes' environments) nor reach a mounted
# engine control socket; ordinary files and variables stay usable.  Each
# attack is run again under the control runtime (runc), where it must work.
# policy explain and the audit trail name what was removed, never a value.

load helpers
load helpers/hardening

setup ()
{
  hardening_setup
  new_canary
}

teardown ()
{
  teardown_bundle
}

# home_checks DIR: the script reading every credential of a fake home at
# DIR and one ordinary file.
home_checks ()
{
  read_all_script "$1" "${HOME_SECRETS[@]}"
  printf "printf 'notes: '; attack read '%s/notes.txt';\n" "$1"
}

# secrets_hidden DIR: every credential line of the output is blocked, the
# ordinary file was read, and the canary appears nowhere.
secrets_hidden ()
{
  local dir=$1 p line
  for p in "${HOME_SECRETS[@]}"; do
    line=$(grep -F "$dir/$p: " <<<"$output") || fail "no result for $dir/$p:"$'\n'"$output"
    [[ $line == *ATTACK-BLOCKED* ]] || fail "$dir/$p readable: $line"
  done
  has_line "notes: ATTACK-OK read: just notes"
  [[ $output != *"$CANARY"* ]] || fail "canary in the output"
}

# secrets_read DIR: under the control every credential was read.
secrets_read ()
{
  local dir=$1 p line
  for p in "${HOME_SECRETS[@]}"; do
    line=$(grep -F "$dir/$p: " <<<"$output") || fail "no result for $dir/$p:"$'\n'"$output"
    [[ $line == *"ATTACK-OK"*"$CANARY"* ]] \
      || fail "$dir/$p not readable under $CONTROL_RUNTIME either: $line"
  done
}

@test "hardening: a bind-mounted home keeps its files, not its credentials" {
  requires_control
  fake_home "$BATS_TEST_TMPDIR/home"
  add_bind "$BATS_TEST_TMPDIR/home" /root rw
  local script
  script=$(home_checks /root)

  run_ct sh -c "$script"$'\n'"ls -A /root/.ssh | wc -l | sed 's/^/ssh-entries: /'"
  secrets_hidden /root
  has_line "ssh-entries: 0"
  # the audit trail names the masks
  audit_events create | jq -e '[.changes[] | select(.kind == "path-masked") | .what] as $m
      | ["/root/.ssh", "/root/.aws", "/root/.kube", "/root/.docker/config.json", "/root/.netrc",
         "/root/.git-credentials", "/root/.gnupg", "/root/.config/gh"] - $m == []' >/dev/null \
    || fail "masks missing: $(audit_events create)"
  no_canary_in "$AUDIT_DIR"

  control_run sh -c "$script"
  secrets_read /root
}

@test "hardening: a mounted /home masks every user's credentials" {
  requires_control
  fake_home "$BATS_TEST_TMPDIR/home/alice"
  fake_home "$BATS_TEST_TMPDIR/home/bob"
  add_bind "$BATS_TEST_TMPDIR/home" /home rbind rw
  local script
  script="$(home_checks /home/alice)"$'\n'"$(home_checks /home/bob)"

  run_ct sh -c "$script"
  secrets_hidden /home/alice
  secrets_hidden /home/bob

  control_run sh -c "$script"
  secrets_read /home/alice
  secrets_read /home/bob
}

# Masked directories are clones of one empty tmpfs: its superblock is
# read-only too, so nothing written through one mask (were its mount made
# writable) could show in another home's.
@test "hardening: every masked credential dir is a read-only mount of a read-only, empty filesystem" {
  requires_control
  fake_home "$BATS_TEST_TMPDIR/home/alice"
  fake_home "$BATS_TEST_TMPDIR/home/bob"
  add_bind "$BATS_TEST_TMPDIR/home" /home rbind rw
  local script='for u in alice bob; do
      m=$(awk -v d=/home/$u/.ssh '"'"'$5 == d'"'"' /proc/self/mountinfo | tail -1)
      echo "$u: ${m:-none}"
      echo "$u entries: $(ls -A /home/$u/.ssh | wc -l)"
      touch /home/$u/.ssh/planted 2>/dev/null && echo "$u: wrote"
    done; true'

  run_ct sh -c "$script"
  [ "$status" -eq 0 ]
  for u in alice bob; do
    line=$(grep "^$u: " <<<"$output" | grep -v entries) || fail "no mount line for $u: $output"
    [[ $line == *" / /home/$u/.ssh ro,"*" - tmpfs "*" ro,"* ]] || fail "$u: $line"
    has_line "$u entries: 0"
  done
  [[ $output != *wrote* ]] || fail "a mask took a write: $output"

  control_run sh -c "$script"
  has_line "alice: none"
  [[ $output != *"alice entries: 0"* ]] || fail "the control masked .ssh: $output"
}

@test "hardening: a key file or credential dir mounted directly is not mounted" {
  requires_control
  local h=$BATS_TEST_TMPDIR/home
  fake_home "$h"
  # the file itself, the dir through an innocent-looking symlink, and a
  # harmless file (kept) for contrast
  add_bind "$h/.ssh/id_rsa" /opt/deploy_key ro
  add_bind "$h/keys" /opt/keys ro
  add_bind "$h/.docker" /opt/docker ro
  add_bind "$h/notes.txt" /opt/notes.txt ro
  local script
  script=$(read_all_script /opt deploy_key keys/id_rsa docker/config.json notes.txt)

  run_ct sh -c "$script"
  for p in deploy_key keys/id_rsa docker/config.json; do
    grep -F "/opt/$p: " <<<"$output" | grep -q ATTACK-BLOCKED || fail "/opt/$p: $output"
  done
  has_line "/opt/notes.txt: ATTACK-OK read: just notes"
  [[ $output != *"$CANARY"* ]] || fail "canary in the output"

  control_run sh -c "$script"
  for p in deploy_key keys/id_rsa docker/config.json; do
    grep -F "/opt/$p: " <<<"$output" | grep -q "ATTACK-OK.*$CANARY" || fail "/opt/$p under runc: $output"
  done
}

@test "hardening: secret env vars are removed, look-alikes are kept" {
  requires_control
  local pem jwt
  pem=$'-----BEGIN RSA PRIVATE KEY-----\nMIIE'"$CANARY"$'\n-----END RSA PRIVATE KEY-----'
  jwt="eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi${CANARY}.c2lnbmF0dXJl"
  add_env "AWS_SECRET_ACCESS_KEY=wJalr/${CANARY}/EXAMPLEKEY" \
    "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE" \
    "GITHUB_TOKEN=ghp_${CANARY}0123456789abcdefghij" \
    "github_token=lowercase-${CANARY}" \
    "GITHUB_TOKEN=duplicate-${CANARY}" \
    "Db_Password=mixed-case-${CANARY}" \
    "DEPLOY_MATERIAL=$pem" \
    "SESSION_BLOB=$jwt" \
    "SETTINGS=mode=fast;key=ghp_${CANARY}abcdefghijklmnopqrstu" \
    "DATABASE_URL=postgres://app:${CANARY}@db.test/app" \
    "NPM_TOKEN=" \
    "DB_PASS=${CANARY}" "MYSQL_PWD=${CANARY}" "STRIPE_KEY=${CANARY}" \
    "AZURE_STORAGE_CONNECTION_STRING=AccountName=a;AccountKey=${CANARY}==" \
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T0/B0/${CANARY}" \
    "SENTRY_DSN=https://${CANARY}@o1.ingest.sentry.io/1" \
    "APP_CONFIG=Server=db;Database=app;Password=${CANARY};" \
    "BLOB_URL=https://a.blob.core.windows.net/c?sv=2022-11-02&sig=${CANARY}" \
    "BILLING=sk_live_${CANARY}" "LOGIN_NOTE=hvs.${CANARY}abcdef" \
    "EXTRA_HEADER=Authorization: Bearer ${CANARY}" \
    "AWS_REGION=eu-west-3" "GIT_AUTHOR_NAME=Agent Smith" \
    "TOKENIZERS_PARALLELISM=false" "MAX_TOKENS=4096" "SECRETARY=Ms Moneypenny" \
    "OLDPWD=/tmp" "KEYBOARD_LAYOUT=us" "SSH_KEY_PATH=/keys/id_ed25519" \
    "GPG_KEY_ID=0x0123456789ABCDEF" "DATABASE_HOST=db.test" "NODE_ENV=production" \
    "CI=true" "WEBHOOK_PORT=8080" "MYSQL_ALLOW_EMPTY_PASSWORD=yes" \
    "PYTHONPATH=/app/secrets:/app" "MAKEFLAGS=-j2 --jobserver-auth=3,4"
  # env, and a variable read the way a program would
  local script='env; printf "region=%s\n" "$AWS_REGION"'
  local kept=("AWS_REGION=eu-west-3" "GIT_AUTHOR_NAME=Agent Smith" "TOKENIZERS_PARALLELISM=false"
    "MAX_TOKENS=4096" "SECRETARY=Ms Moneypenny" "KEYBOARD_LAYOUT=us"
    "SSH_KEY_PATH=/keys/id_ed25519" "GPG_KEY_ID=0x0123456789ABCDEF" "DATABASE_HOST=db.test"
    "NODE_ENV=production" "CI=true" "WEBHOOK_PORT=8080" "MYSQL_ALLOW_EMPTY_PASSWORD=yes"
    "PYTHONPATH=/app/secrets:/app" "MAKEFLAGS=-j2 --jobserver-auth=3,4")

  run_ct sh -c "$script"
  check_status 0
  [[ $output != *"$CANARY"* ]] || fail "a secret is still in the environment:"$'\n'"$output"
  for v in "${kept[@]}" "region=eu-west-3"; do
    has_line "$v"
  done
  local removed
  removed=$(audit_events create | jq -r '.changes[] | select(.kind == "env-removed") | .what')
  for n in AWS_SECRET_ACCESS_KEY AWS_ACCESS_KEY_ID GITHUB_TOKEN github_token Db_Password \
    DEPLOY_MATERIAL SESSION_BLOB SETTINGS DATABASE_URL NPM_TOKEN DB_PASS MYSQL_PWD STRIPE_KEY \
    AZURE_STORAGE_CONNECTION_STRING SLACK_WEBHOOK_URL SENTRY_DSN APP_CONFIG BLOB_URL BILLING \
    LOGIN_NOTE EXTRA_HEADER; do
    [[ $output != *"$n="* ]] || fail "$n is still set"
    grep -q "^$n\b" <<<"$removed" || fail "the audit trail does not name $n: $removed"
  done
  # the shell's directories and the look-alikes were not removed (sh sets
  # PWD itself, so the audit trail is what tells)
  for v in "${kept[@]}" PWD= OLDPWD=; do
    ! grep -qx "${v%%=*}" <<<"$removed" || fail "${v%%=*} was removed: $removed"
  done
  no_canary_in "$AUDIT_DIR"

  control_run sh -c "$script"
  [[ $output == *"AWS_SECRET_ACCESS_KEY=wJalr/$CANARY"* && $output == *"SESSION_BLOB=$jwt"* ]] \
    || fail "under $CONTROL_RUNTIME the secrets should be there:"$'\n'"$output"
  for v in "DB_PASS=${CANARY}" "MYSQL_PWD=${CANARY}" "APP_CONFIG=Server=db;Database=app;Password=${CANARY};" \
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T0/B0/${CANARY}" "BILLING=sk_live_${CANARY}" \
    "${kept[@]}"; do
    has_line "$v"
  done
}

@test "hardening: exec'd processes get the same scrubbing" {
  add_env "GITHUB_TOKEN=ghp_${CANARY}0123456789abcdefghij" "AWS_REGION=eu-west-3"
  start_ct
  rt exec --env "OPENAI_API_KEY=sk-${CANARY}abcdefghijklmnopqrstuv" --env "GIT_AUTHOR_NAME=Agent" \
    "$CT_ID" sh -c 'env; echo init:; tr "\0" "\n" </proc/1/environ'
  check_status 0
  [[ $output != *"$CANARY"* ]] || fail "a secret reached the exec'd process:"$'\n'"$output"
  has_line "GIT_AUTHOR_NAME=Agent"
  has_line "AWS_REGION=eu-west-3"
  no_canary_in "$AUDIT_DIR"
}

@test "hardening: other processes' environments are out of reach (/proc/PID/environ)" {
  requires_control
  # A host process holding a secret; the careless bundle shares the host's
  # pid namespace, agentrt gives it its own.
  (cd / && exec env "HOST_ONLY_SECRET=$CANARY" sleep 300) &
  local host_pid=$!
  cleanup_add "kill $host_pid"
  update_config '.linux.namespaces |= map(select(.type != "pid"))'

  run_ct attack environ "$CANARY"
  blocked_with "No such file"
  run_ct sh -c 'tr "\0" "\n" </proc/1/environ | grep -c . ; cat /proc/1/cmdline | tr "\0" " "'
  [[ $output == *"attack"* || $output == *"sh"* ]] || fail "pid 1 is not the container's: $output"

  control_run attack environ "$CANARY"
  attack_worked
}

@test "hardening: a mounted engine control socket cannot be reached" {
  requires_control
  local d=$BATS_TEST_TMPDIR/engine
  mkdir -p "$d/run"
  serve_unix_socket "$d/docker.sock"
  serve_unix_socket "$d/run/containerd.sock"
  # the socket file, and a directory holding a socket (a /run of sockets)
  add_bind "$d/docker.sock" /var/run/docker.sock
  add_bind "$d/run" /hostrun rbind
  local script='attack unix /var/run/docker.sock; attack unix /hostrun/containerd.sock'

  run_ct sh -c "$script"
  attack_blocked
  [[ $(grep -c ATTACK-BLOCKED <<<"$output") -eq 2 ]] || fail "$output"
  audit_events create | jq -e '.changes | map(select(.kind == "mount-dropped")) | length == 2' >/dev/null \
    || fail "no mount-dropped changes: $(audit_events create)"

  control_run sh -c "$script"
  [[ $(grep -c "ATTACK-OK connected: docker-api $CANARY" <<<"$output") -eq 2 ]] \
    || fail "under $CONTROL_RUNTIME both sockets should answer:"$'\n'"$output"
}

@test "hardening: policy explain and the audit trail name secrets, never their values" {
  fake_home "$BATS_TEST_TMPDIR/home"
  add_bind "$BATS_TEST_TMPDIR/home" /root rw
  add_env "GITHUB_TOKEN=ghp_${CANARY}0123456789abcdefghij" "NOT_SECRET_LOOKING=AKIA${CANARY:0:16}" \
    "SESSION_BLOB=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi${CANARY}.c2lnbmF0dXJl"
  update_config '.process.env += [$e]' --arg e "ghp_${CANARY}0123456789abcdefghij"

  rt policy explain --bundle "$BUNDLE"
  check_status 0
  local text=$output
  rt policy explain --bundle "$BUNDLE" --format json
  check_status 0
  local json=$output
  for o in "$text" "$json"; do
    [[ $o != *"$CANARY"* ]] || fail "policy explain shows a secret value:"$'\n'"$o"
  done
  for w in "env-removed: GITHUB_TOKEN" "env-removed: SESSION_BLOB" "path-masked: /root/.ssh" \
    "path-masked: /root/.docker/config.json" "rootfs: root.readonly=true" "capability: CAP_SYS_ADMIN" \
    "no-new-privileges" "seccomp: $HARDENING_PROFILE" "limit: pids.limit=1024"; do
    [[ $text == *"$w"* ]] || fail "policy explain does not say '$w':"$'\n'"$text"
  done
  # an entry that is itself a token is not named by its text
  jq -e '.changes | any(.kind == "env-removed" and (.what | test("entry #")))' <<<"$json" >/dev/null \
    || fail "the nameless token entry is not listed: $json"

  run_ct sh -c 'env; cat /root/.ssh/id_rsa; ls -la /root'
  [[ $output != *"$CANARY"* ]] || fail "$output"
  [[ -s $AUDIT_DIR/$CT_ID.jsonl ]] || fail "no audit trail"
  no_canary_in "$AUDIT_DIR"
  rt audit "$CT_ID"
  check_status 0
  [[ $output == *'"event":"create"'* && $output != *"$CANARY"* ]] || fail "$output"
}

@test "hardening: homes deeper down a mounted directory are covered (a /srv of homes)" {
  requires_control
  fake_home "$BATS_TEST_TMPDIR/srv/homes/team/alice"
  fake_home "$BATS_TEST_TMPDIR/srv/bob"
  add_bind "$BATS_TEST_TMPDIR/srv" /srv rbind ro
  local script
  script="$(home_checks /srv/homes/team/alice)"$'\n'"$(home_checks /srv/bob)"

  run_ct sh -c "$script"
  secrets_hidden /srv/homes/team/alice
  secrets_hidden /srv/bob

  control_run sh -c "$script"
  secrets_read /srv/homes/team/alice
  secrets_read /srv/bob
}

@test "hardening: a credential directory that is a symlink is masked where it leads" {
  requires_control
  local h=$BATS_TEST_TMPDIR/home
  mkdir -p "$h/dotfiles/ssh"
  printf -- '-----BEGIN OPENSSH PRIVATE KEY-----%s\n' "$CANARY" >"$h/dotfiles/ssh/id_rsa"
  ln -s "$h/dotfiles/ssh" "$h/.ssh"   # absolute: the host's path
  printf 'notes\n' >"$h/notes.txt"
  add_bind "$h" /work rbind ro
  local script='printf "key: "; attack read /work/dotfiles/ssh/id_rsa; printf "notes: "; attack read /work/notes.txt'

  run_ct sh -c "$script"
  grep -q '^key: ATTACK-BLOCKED' <<<"$output" || fail "$output"
  has_line "notes: ATTACK-OK read: notes"
  audit_events create | jq -e '[.changes[] | select(.kind == "path-masked") | .what] | index("/work/dotfiles/ssh")' >/dev/null \
    || fail "not masked: $(audit_events create)"

  control_run sh -c "$script"
  grep -q "^key: ATTACK-OK read: .*$CANARY" <<<"$output" || fail "under $CONTROL_RUNTIME: $output"
}

# Where agents and developer tools keep credentials, relative to a home.
TOOL_SECRETS=(.claude/.credentials.json .claude.json .codex/auth.json .gemini/oauth_creds.json
  .config/github-copilot/hosts.json .config/gh/hosts.yml .git-credentials .config/git/credentials
  .npmrc .yarnrc.yml .pypirc .config/pip/pip.conf .cargo/credentials.toml .gem/credentials
  .m2/settings.xml .gradle/gradle.properties .docker/config.json .config/containers/auth.json
  .config/helm/registry/config.json .terraform.d/credentials.tfrc.json .vault-token
  .azure/accessTokens.json .config/gcloud/credentials.db .oci/config .s3cfg .boto
  .config/rclone/rclone.conf .pgpass .my.cnf .bash_history .zsh_history .python_history
  .cache/huggingface/token)

@test "hardening: the credential stores of AI agents and developer tools are masked" {
  requires_control
  local h=$BATS_TEST_TMPDIR/home p
  for p in "${TOOL_SECRETS[@]}"; do
    mkdir -p "$(dirname "$h/$p")"
    printf 'secret %s\n' "$CANARY" >"$h/$p"
  done
  printf 'notes\n' >"$h/notes.txt"
  add_bind "$h" /home/dev rbind ro
  local script
  script=$(read_all_script /home/dev "${TOOL_SECRETS[@]}")

  run_ct sh -c "$script"
  for p in "${TOOL_SECRETS[@]}"; do
    grep -F "/home/dev/$p: " <<<"$output" | grep -q ATTACK-BLOCKED || fail "/home/dev/$p: $output"
  done
  [[ $output != *"$CANARY"* ]] || fail "canary in the output"

  control_run sh -c "$script"
  [[ $(grep -c "ATTACK-OK read: secret $CANARY" <<<"$output") -eq ${#TOOL_SECRETS[@]} ]] \
    || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: a mounted /etc keeps its secrets (shadow, ssh host keys) masked" {
  requires_control
  add_bind /etc /hostetc rbind ro
  local script='printf "shadow: "; attack read /hostetc/shadow; printf "hostname: "; attack read /hostetc/hostname'

  run_ct sh -c "$script"
  grep -q '^shadow: ATTACK-BLOCKED' <<<"$output" || fail "$output"
  grep -q '^hostname: ATTACK-OK' <<<"$output" || fail "$output"

  control_run sh -c "$script"
  grep -q '^shadow: ATTACK-OK' <<<"$output" || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: a unix socket at any depth of a mounted directory cannot be reached" {
  requires_control
  local d=$BATS_TEST_TMPDIR/project
  mkdir -p "$d/run/a/b"
  serve_unix_socket "$d/run/a/b/dev.sock"
  printf 'x\n' >"$d/file"
  add_bind "$d" /project rbind ro
  local script='attack unix /project/run/a/b/dev.sock'

  run_ct sh -c "$script"
  attack_blocked
  audit_events create | jq -e '[.changes[] | select(.kind == "path-masked") | .what] | index("/project/run/a/b/dev.sock")' >/dev/null \
    || fail "not masked: $(audit_events create)"

  control_run sh -c "$script"
  [[ $output == *"ATTACK-OK connected: docker-api $CANARY"* ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: the audit directory is never reachable from inside" {
  requires_control
  # a mount of the directory that holds the audit directory
  mkdir -p "$AUDIT_DIR"
  printf 'earlier trail %s\n' "$CANARY" >"$AUDIT_DIR/earlier.jsonl"
  add_bind "$BATS_TEST_TMPDIR" /t rbind ro
  local script='printf "trail: "; attack read /t/audit/earlier.jsonl'

  run_ct sh -c "$script"
  grep -q '^trail: ATTACK-BLOCKED' <<<"$output" || fail "$output"

  control_run sh -c "$script"
  grep -q "^trail: ATTACK-OK read: earlier trail $CANARY" <<<"$output" || fail "under $CONTROL_RUNTIME: $output"
}
