#!/usr/bin/env bash
# Runs what docker/compose.yaml runs — the grundy binary, two replicas, the environment of
# docker/grundy.env — without a Docker engine, against the local PostgreSQL server. Only the
# database host (127.0.0.1 instead of the `postgres` service), the listen ports and the key file
# (made here with `grundy keys new`, where compose mounts docker/api-keys) differ.
#   docker/smoke.sh            (builds the release binary if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
pg_admin="${GRUNDY_SMOKE_PG_ADMIN:-postgres://postgres@127.0.0.1:5432/test}"
db="grundy_smoke_$$"
bin="${CARGO_TARGET_DIR:-target}/release/grundy"
cargo build --release --bin grundy 2>&1 | tail -1
psql "$pg_admin" -qc "CREATE DATABASE $db" >/dev/null
# On exit (lib.sh): the replicas are stopped, then the database dropped; on failure the last lines
# of each replica's log are printed; the log directory is removed.
drop_db() { psql "$pg_admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; }
grundy_on_exit drop_db
logs=$(mktemp -d); grundy_rm_on_exit "$logs"

set -a
# shellcheck source=grundy.env
source docker/grundy.env
set +a
export GRUNDY_DATABASE_URL="${pg_admin%/*}/$db"
# API keys, as compose mounts them: a key file of hashes; the keys themselves only in variables.
new_key() {
  "$bin" keys new --name "$1" --scope "$2" >"$logs/$1.key"
  sed -n 2p "$logs/$1.key" >>"$logs/api-keys"
  sed -n 1p "$logs/$1.key"
}
KEY=$(new_key smoke jobs)
OTHER=$(new_key other jobs)
export GRUNDY_API_KEYS_FILE="$logs/api-keys"
ports=(18281 18282)
for i in 0 1; do
  grundy_start -b "$bin" -l "$logs/replica-$i.log" "${ports[$i]}" GRUNDY_REPLICA_ID="smoke-$i"
done
for port in "${ports[@]}"; do
  grundy_wait_ready "$port" /readyz 10 || { echo "replica on $port not ready"; exit 1; }
done
a="http://127.0.0.1:${ports[0]}"; b="http://127.0.0.1:${ports[1]}"
fail() { echo "SMOKE FAILED: $*"; exit 1; }

v=$(curl -fsS "$a/v1/welter/value" -H 'content-type: application/json' -d '{"position":[1,3,7,8,11,19]}')
[[ "$v" == *'"value":12'* ]] || fail "welter value: $v"
grundy_hc=$(GRUNDY_ADDR="127.0.0.1:${ports[1]}" "$bin" healthcheck && echo ok)
[ "$grundy_hc" = ok ] || fail "healthcheck subcommand"

# Jobs need a key: none is 401 with a bearer challenge.
code=$(curl -sS -o /dev/null -w '%{http_code}' "$a/v1/octal/jobs" -H 'content-type: application/json' \
  -d '{"code":"0.16","max_n":2000000}')
[ "$code" = 401 ] || fail "a job submitted without a key answered $code"
curl -sS -D - -o /dev/null "$a/v1/octal/jobs" | tr -d '\r' | grep -i '^www-authenticate: Bearer' >/dev/null \
  || fail "no WWW-Authenticate: Bearer on a 401"
# A job submitted to replica A is visible on replica B and finishes (on either replica).
AUTH=(-H "authorization: Bearer $KEY")
loc=$(curl -fsS -D - -o /dev/null "$a/v1/octal/jobs" "${AUTH[@]}" -H 'content-type: application/json' \
  -d '{"code":"0.16","max_n":2000000}' | tr -d '\r' | awk 'tolower($1)=="location:"{print $2}')
[ -n "$loc" ] || fail "no Location header"
status=""
for _ in $(seq 1 600); do
  status=$(curl -fsS "${AUTH[@]}" "$b$loc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
  [ "$status" = "done" ] && break
  sleep 0.2
done
[ "$status" = "done" ] || fail "job status $status"
job=$(curl -fsS "${AUTH[@]}" "$b$loc")
[[ "$job" == *'"period":149459'* ]] || fail "job periodicity: $job"
[[ "$job" == *'"owner":"smoke"'* ]] || fail "job owner: $job"
# Another key's job does not exist for it, on either replica.
code=$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $OTHER" -X DELETE "$a$loc")
[ "$code" = 404 ] || fail "another key's DELETE answered $code"
# The proof is in the shared store: replica B answers a huge heap from it.
v=$(curl -fsS "$b/v1/octal/0.16/value/1000000000000")
[[ "$v" == *'"source":"periodicity"'* ]] || fail "value from the stored proof: $v"
# Read the whole page first: `curl | grep -q` under pipefail fails when grep stops reading early.
metrics=$(curl -fsS "$a/metrics") || fail "metrics"
grep -q grundy_http_requests_total <<<"$metrics" || fail "metrics"
grep -q 'grundy_jobs_submitted_total{owner="smoke"} 1' <<<"$metrics" || fail "metrics by key name"
for f in "$logs"/replica-*.log; do
  if grep -qF -e "$KEY" -e "$OTHER" "$f"; then fail "a key is in $f"; fi
done
echo "smoke OK: 2 replicas on PostgreSQL with API keys, job ${loc##*/} done, proof shared, another key's DELETE 404, no key in the logs"
