#!/usr/bin/env bash
# How long an idle server takes from SIGTERM to its exit, with the defaults (issue 56: README says
# the measured figure). Starts the release binary RUNS times on a fresh SQLite store and a free
# port, waits until /readyz answers and 2 s more, sends SIGTERM and times it to the process's exit
# as its parent sees it (`wait`: polling `kill -0` would count the unreaped process as alive).
#
#   scripts/shutdown-time.sh            # RUNS=5, release build
#
# Env: CARGO_TARGET_DIR (default target), RUNS (default 5), SHUTDOWN_PROFILE (release|debug).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

grundy_target
PROFILE=${SHUTDOWN_PROFILE:-release}
RUNS=${RUNS:-5}
grundy_build "$PROFILE"
BIN=$TARGET/$PROFILE/grundy

WORK=$(mktemp -d /tmp/grundy-shutdown.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
times=()
for i in $(seq 1 "$RUNS"); do
  PORT=$(free_port)
  GRUNDY_ADDR=127.0.0.1:$PORT GRUNDY_DATABASE_URL="sqlite://$WORK/s$i.db" "$BIN" >"$WORK/log$i" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
  sleep 2
  start=$(date +%s%N)
  kill -TERM "$pid"
  rc=0; wait "$pid" || rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  times+=("$ms")
  echo "run $i: SIGTERM to exit ${ms} ms (exit status $rc)"
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "median: $(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p") ms over $RUNS runs"
