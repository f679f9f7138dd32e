#!/usr/bin/env bash
# Positions per second through the batch endpoint at batch sizes 1, 10, 100, 1000 against
# single requests to POST /v1/welter/value (random 8-coin positions), server pinned to
# SERVER_CPUS and wrk to CLIENT_CPUS with taskset, all in one run. Not a pass/fail test.
#
#   scripts/batch-bench.sh                          # 2 cores: server on 0, wrk on 1
#   SERVER_CPUS=0-7 CLIENT_CPUS=8-15 scripts/batch-bench.sh
#
# Env: SERVER_CPUS (0), CLIENT_CPUS (1), SECS (10), CONNS (32), SIZES ("1 10 100 1000"),
#      ROUNDS (3; medians), PORT (19510), GRUNDY_BIN (skip the build), CARGO_TARGET_DIR.
# Output: `BATCH round=r size=K requests/s=... positions/s=... p50_ms p99_ms` (size=single for
# the single endpoint) and `BATCH-MEDIAN size=K positions/s=... vs_single=...`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
SERVER_CPUS=${SERVER_CPUS:-0}; CLIENT_CPUS=${CLIENT_CPUS:-1}
SECS=${SECS:-10}; CONNS=${CONNS:-32}; SIZES=${SIZES:-"1 10 100 1000"}; ROUNDS=${ROUNDS:-3}
PORT=${PORT:-19510}; TARGET=${CARGO_TARGET_DIR:-target}
command -v wrk >/dev/null || { echo "wrk is required: apt-get install -y wrk" >&2; exit 1; }
if [[ -z ${GRUNDY_BIN:-} ]]; then
  cargo build --release --bin grundy --example bare_axum --quiet # same feature set as the other scripts: no rebuild
  GRUNDY_BIN=$TARGET/release/grundy
fi
# pinned to SERVER_CPUS, stopped on exit (lib.sh)
grundy_start -b "$GRUNDY_BIN" -c "$SERVER_CPUS" -l /dev/null "$PORT" GRUNDY_DATABASE_URL=none
grundy_wait_ready "$PORT" /healthz 10
echo "BATCH-SETUP server_cpus=$SERVER_CPUS client_cpus=$CLIENT_CPUS conns=$CONNS secs=$SECS rounds=$ROUNDS load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
declare -A PPS
for round in $(seq 1 "$ROUNDS"); do
  for size in single $SIZES; do
    if [[ $size == single ]]; then b=0; path=/v1/welter/value; else b=$size; path=/v1/welter/value/batch; fi
    line=$(BATCH=$b taskset -c "$CLIENT_CPUS" wrk -t1 -c"$CONNS" -d"${SECS}s" --timeout 10s \
      -s scripts/welter-batch.lua "http://127.0.0.1:$PORT$path" | grep '^RESULT')
    echo "BATCH round=$round size=$size ${line#RESULT }"
    PPS[$size]+="$(sed -E 's/.*positions\/s=([0-9.]+).*/\1/' <<<"$line") "
  done
done
median() { printf '%s\n' $1 | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
single=$(median "${PPS[single]}")
for size in single $SIZES; do
  m=$(median "${PPS[$size]}")
  echo "BATCH-MEDIAN size=$size positions/s=$m vs_single=$(awk -v a="$m" -v b="$single" 'BEGIN { printf "%.2f", a / b }')"
done
