#!/usr/bin/env bash
# Large uploads under load (issue 31): scripts/upload-burst.py — THREADS client threads posting
# 200,000-coin Welter positions (~1.5 MB, `/v1/welter/primes`) with Python's urllib and
# `Connection: close`, REQUESTS a round, ROUNDS rounds, plus a probe posting a small position every
# 50 ms — against the release server pinned to SERVER_CPUS, the clients pinned to CLIENT_CPUS.
# Every upload must be answered 200, 429 or 503 (no reset, no 408 for a client that sent as fast
# as it was read).
#
#   scripts/upload-burst.sh                       # ~3 minutes on 2 cores after the build
#   BASE_BIN=/path/to/other/grundy scripts/upload-burst.sh   # the same burst against a second
#                                                 # binary, in the same run (before/after)
#
# Env: GRUNDY_BIN (default target/release/grundy, built here), BASE_BIN (none), SERVER_CPUS (0),
#      CLIENT_CPUS (1), THREADS (64), REQUESTS (256), ROUNDS (3), SERVER_ENV (extra VAR=value
#      pairs for both servers, space-separated).
# Output: `<label> UPLOADBURST ...` lines (see scripts/upload-burst.py) and one summary line
# `upload-burst.sh: PASS|FAIL`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

GRUNDY_BIN=${GRUNDY_BIN:-}
BASE_BIN=${BASE_BIN:-}
SERVER_CPUS=${SERVER_CPUS:-0}
CLIENT_CPUS=${CLIENT_CPUS:-1}
THREADS=${THREADS:-64}
REQUESTS=${REQUESTS:-256}
ROUNDS=${ROUNDS:-3}
read -r -a EXTRA <<<"${SERVER_ENV:-}"

if [[ -z $GRUNDY_BIN ]]; then
  cargo build --release --bin grundy --quiet
  GRUNDY_BIN=${CARGO_TARGET_DIR:-target}/release/grundy
fi
WORK=$(mktemp -d /tmp/grundy-burst.XXXXXX); grundy_rm_on_exit "$WORK"

fail=0
run() { # run LABEL BIN
  local label=$1 bin=$2 port
  port=$(free_port)
  grundy_start -b "$bin" -c "$SERVER_CPUS" -l "$WORK/$label.log" "$port" \
    GRUNDY_DATABASE_URL=none RUST_LOG=warn "${EXTRA[@]}"
  grundy_wait_ready "$port" /healthz 30 || { echo "upload-burst.sh: $label did not start" >&2; exit 1; }
  taskset -c "$CLIENT_CPUS" python3 scripts/upload-burst.py "http://127.0.0.1:$port" \
    --threads "$THREADS" --requests "$REQUESTS" --rounds "$ROUNDS" | sed "s/^/$label /" || fail=1
  grep -h "grundy_slow_bodies_total\|grundy_lingering_closes_total\|grundy_compute_skipped_total" \
    <(curl -fsS "http://127.0.0.1:$port/metrics") | sed "s/^/$label metric /" || true
  grundy_stop
}
run grundy "$GRUNDY_BIN"
[[ -n $BASE_BIN ]] && run base "$BASE_BIN"
if [[ $fail -eq 0 ]]; then
  echo "upload-burst.sh: PASS (every upload answered 200/429/503)"
else
  echo "upload-burst.sh: FAIL (some upload was not answered 200/429/503)"
  exit 1
fi
