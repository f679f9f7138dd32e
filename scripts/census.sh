#!/usr/bin/env bash
# A census of the unsolved octal games (issue 27, item 3) on one machine: a release server on
# SQLite in DATA_DIR starts a census — one job per game of the unsolved table (83, `grundy`
# included; or the codes of CODES) to MAX_N values, window mode, statistics only — polls it until
# every job is done (or TIME_LIMIT), and writes its table as CSV (OUT), rewritten at every poll so
# that a partial table survives an interruption. With MD set, scripts/census-md.py then writes
# the markdown report there.
#
# Resumable: the census id is kept in DATA_DIR/census-id. Running the same command again (after
# a crash, a reboot or TIME_LIMIT) starts the server on the same database under the same replica
# id, so the jobs resume from their last checkpoints, and follows that census instead of
# starting a new one.
#
#   scripts/census.sh                                       # MAX_N=2^24, DATA_DIR=census-data
#   MAX_N=4096 CODES="0.6 0.07 grundy" DATA_DIR=/tmp/c MD=/tmp/c/census.md scripts/census.sh
#
# Env: MAX_N (default 16777216 = 2^24); CODES (codes separated by spaces; default: the whole
#      table); DATA_DIR (default census-data); OUT (default DATA_DIR/census.csv); MD (markdown
#      report, default none); TIME_LIMIT (seconds, default 0: until done); POLL (seconds between
#      polls, default 10); WORKERS (GRUNDY_JOB_WORKERS, default: the server's, one per core);
#      WINDOW (the jobs' window, default the server's GRUNDY_JOB_WINDOW); BIN (default the release
#      build, built unless BUILD=0); GAME_SECONDS (default 0: none): a job that has run longer
#      than this since it started (its started_at) is cancelled — its row keeps the n reached and
#      the statistics of its last checkpoint, status `cancelled`. On a small machine this keeps
#      the games whose sparse space never appears (their cost grows with n², see docs/census.md)
#      from holding every worker while the sparse games wait behind them.
# Exit status: 0 when the census is done, 3 when TIME_LIMIT came first (run again to go on).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. scripts/lib.sh

MAX_N=${MAX_N:-16777216}
CODES=${CODES:-}
DATA_DIR=${DATA_DIR:-census-data}
TIME_LIMIT=${TIME_LIMIT:-0}
POLL=${POLL:-10}
BUILD=${BUILD:-1}
TARGET=${CARGO_TARGET_DIR:-target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
BIN=${BIN:-$TARGET/release/grundy}
mkdir -p "$DATA_DIR"
DATA_DIR=$(cd "$DATA_DIR" && pwd)
OUT=${OUT:-$DATA_DIR/census.csv}
MD=${MD:-}
ID_FILE=$DATA_DIR/census-id

say() { printf '== %s\n' "$*"; }
die() { printf 'census.sh: FAIL: %s\n' "$*" >&2; exit 1; }
[[ $MAX_N =~ ^[1-9][0-9]*$ ]] || die "MAX_N=$MAX_N is not a positive whole number"

# The command that reproduces this census (for the report).
GAME_SECONDS=${GAME_SECONDS:-0}
[[ $GAME_SECONDS =~ ^[0-9]+$ ]] || die "GAME_SECONDS=$GAME_SECONDS is not a whole number"
COMMAND="MAX_N=$MAX_N${CODES:+ CODES=\"$CODES\"}${WINDOW:+ WINDOW=$WINDOW}"
if [[ $GAME_SECONDS -gt 0 ]]; then COMMAND="$COMMAND GAME_SECONDS=$GAME_SECONDS"; fi
COMMAND="$COMMAND scripts/census.sh"

if [[ $BUILD != 0 ]]; then
  say "building the release binary"
  cargo build --release --bin grundy --quiet
fi
[[ -x $BIN ]] || die "no binary at $BIN"

PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
envs=(GRUNDY_DATABASE_URL="sqlite://$DATA_DIR/census.db" GRUNDY_REPLICA_ID="census-$(hostname)" RUST_LOG="${RUST_LOG:-warn}")
[[ -n ${WORKERS:-} ]] && envs+=(GRUNDY_JOB_WORKERS="$WORKERS")
[[ -n ${WINDOW:-} ]] && envs+=(GRUNDY_JOB_WINDOW="$WINDOW")
grundy_start -b "$BIN" -l "$DATA_DIR/server.log" "$PORT" "${envs[@]}"
grundy_wait_ready "$PORT" /readyz 60 || die "no 200 from $BASE/readyz within 60 s (see $DATA_DIR/server.log)"
say "server up at $BASE, store $DATA_DIR/census.db"

get() { curl -sS --max-time 60 -H "accept: ${2:-application/json}" "$BASE$1"; }

id=''
if [[ -s $ID_FILE ]]; then
  id=$(cat "$ID_FILE")
  doc=$(get "/v1/octal/census/$id") || die "cannot read census $id"
  if [[ $(jq -r '.id // empty' <<<"$doc") != "$id" ]]; then
    die "census $id of $ID_FILE is not in the store ($(jq -r '.detail // .' <<<"$doc")); remove $ID_FILE to start a new one"
  fi
  [[ $(jq -r .max_n <<<"$doc") == "$MAX_N" ]] ||
    die "census $id runs to max_n $(jq -r .max_n <<<"$doc"), not $MAX_N: use another DATA_DIR, or remove $ID_FILE"
  say "resuming census $id ($(jq '.games | length' <<<"$doc") games to $MAX_N)"
else
  body=$(jq -nc --arg codes "$CODES" --argjson max_n "$MAX_N" \
    '{max_n: $max_n} + (if $codes == "" then {} else {codes: ($codes | split(" ") | map(select(. != "")))} end)')
  doc=$(curl -sS --max-time 120 -H 'content-type: application/json' -d "$body" "$BASE/v1/octal/census")
  id=$(jq -r '.id // empty' <<<"$doc")
  [[ -n $id ]] || die "the census was refused: $(jq -r '.detail // .' <<<"$doc")"
  printf '%s\n' "$id" >"$ID_FILE"
  printf '%s\n' "$COMMAND" >"$DATA_DIR/census-command"
  say "census $id started: $(jq '.games | length' <<<"$doc") games to $MAX_N"
fi
[[ -s $DATA_DIR/census-command ]] && COMMAND=$(cat "$DATA_DIR/census-command")

STATS_DIR=$DATA_DIR/statistics
mkdir -p "$STATS_DIR"
write_table() {
  get "/v1/octal/census/$id" text/csv >"$OUT.tmp" && mv "$OUT.tmp" "$OUT"
}
# Each game's statistics at every power of two (GET /v1/octal/jobs/{id}/statistics), for the
# report's per-game tables: STATS_DIR/<job id>.json.
write_statistics() {
  local job
  for job in $(jq -r '.games[].job_id // empty' <<<"$doc"); do
    get "/v1/octal/jobs/$job/statistics" >"$STATS_DIR/$job.json.tmp" &&
      mv "$STATS_DIR/$job.json.tmp" "$STATS_DIR/$job.json" || rm -f "$STATS_DIR/$job.json.tmp"
  done
}

start=$(date +%s)
status=running
while :; do
  doc=$(get "/v1/octal/census/$id") || die "cannot read census $id"
  status=$(jq -r .status <<<"$doc")
  write_table
  printf '%s  %s: %s of %s games done, verdicts: %s\n' "$(date -u +%H:%M:%S)" "$status" \
    "$(jq '[.games[] | select(.status == "done")] | length' <<<"$doc")" "$(jq '.games | length' <<<"$doc")" \
    "$(jq -r '[.games[].verdict_kind] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' <<<"$doc")"
  [[ $status != running ]] && break
  if [[ $GAME_SECONDS -gt 0 ]]; then
    now_ms=$(($(date +%s) * 1000))
    for job in $(jq -r '.games[] | select(.status == "running") | .job_id' <<<"$doc"); do
      started=$(get "/v1/octal/jobs/$job" | jq -r '.started_at_ms // empty')
      if [[ -n $started && $((now_ms - started)) -ge $((GAME_SECONDS * 1000)) ]]; then
        curl -sS --max-time 60 -X DELETE -o /dev/null "$BASE/v1/octal/jobs/$job" &&
          say "job $job ran $GAME_SECONDS s: cancelled (GAME_SECONDS)"
      fi
    done
  fi
  if [[ $TIME_LIMIT -gt 0 && $(($(date +%s) - start)) -ge $TIME_LIMIT ]]; then break; fi
  sleep "$POLL"
done

write_statistics
say "table: $OUT; statistics at every power of two: $STATS_DIR"
if [[ -n $MD ]]; then
  python3 "$ROOT/scripts/census-md.py" --csv "$OUT" --command "$COMMAND" --census "$id" \
    --max-n "$MAX_N" --stats-dir "$STATS_DIR" --out "$MD"
  say "report: $MD"
fi
if jq -e '[.games[] | select(.verdict_kind == "disputed")] | length > 0' <<<"$doc" >/dev/null; then
  say "DISPUTED verdicts: $(jq -r '[.games[] | select(.verdict_kind == "disputed") | .code] | join(" ")' <<<"$doc")"
fi
if [[ $status == running ]]; then
  say "time limit of $TIME_LIMIT s reached; run the same command again to go on"
  exit 3
fi
say "census $id: $status"
