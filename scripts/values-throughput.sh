#!/usr/bin/env bash
# Values download throughput (GET /v1/octal/{code}/values) per format and per source, against a
# local release server (BENCHMARKS.md, "Values download").
#
#   scripts/values-throughput.sh [N] [PORT]     # N values of .6 computed by a job (default 10^7)
#
# 1. a job computes g(0..N) of .6 into a fresh SQLite store;
# 2. the store path: the server's solver cache holds no .6, so each download reads the stored
#    chunks a few at a time;
# 3. the memory path: a /v1/octal/sequence request loads the stored prefix into the solver cache,
#    then the same downloads read it from memory;
# 4. the proof path: .07 (period 34) far beyond its computed values, 10^8 values in binary.
# Each line: source, format, bytes, seconds, MB/s (curl's speed_download / 10^6), values/s.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
N=${1:-10000000}
PORT=${2:-19850}
BASE=http://127.0.0.1:$PORT
BIN=${CARGO_TARGET_DIR:-target}/release/grundy
[[ -x $BIN ]] || cargo build --release --bin grundy --quiet
WORK=$(mktemp -d /tmp/grundy-values.XXXXXX); grundy_rm_on_exit "$WORK" # removed on exit, the server stopped (lib.sh)
grundy_start -b "$BIN" -l "$WORK/log" "$PORT" GRUNDY_DATABASE_URL="sqlite://$WORK/v.db" RUST_LOG=warn
grundy_wait_ready "$PORT" /readyz 10

id=$(curl -fsS "$BASE/v1/octal/jobs" -H 'content-type: application/json' \
  -d "{\"code\": \"0.6\", \"max_n\": $N}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
t0=$(date +%s.%N)
# The event stream ends with the finished job.
curl -fsSN "$BASE/v1/octal/jobs/$id/events" | grep '^event: ' | sort | uniq -c
echo "job: .6 to $N in $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"

measure() { # source format accept start count
  local out
  out=$(curl -fsS -o /dev/null -H "accept: $3" -w '%{size_download} %{time_total} %{speed_download}' \
    "$BASE/v1/octal/$6/values?start=$4&count=$5")
  python3 - "$1" "$2" "$5" $out <<'EOF'
import sys
src, fmt, count, size, secs, speed = sys.argv[1:]
print(f"{src:7} {fmt:7} {int(size):>11} B {float(secs):7.3f} s {float(speed)/1e6:8.1f} MB/s {int(count)/float(secs)/1e6:8.1f} M values/s")
EOF
}
for round in 1 2 3; do
  echo "-- round $round"
  for f in json:application/json csv:text/csv binary:application/octet-stream; do
    measure store "${f%%:*}" "${f#*:}" 0 "$N" 0.6
  done
done
# Load the stored prefix into the solver cache (a sequence request resumes from the store).
curl -fsS -o /dev/null "$BASE/v1/octal/sequence" -H 'content-type: application/json' -d '{"code": "0.6", "n": 10}'
for round in 1 2 3; do
  echo "-- round $round"
  for f in json:application/json csv:text/csv binary:application/octet-stream; do
    measure memory "${f%%:*}" "${f#*:}" 0 "$N" 0.6
  done
  measure proof binary application/octet-stream 1000000000000 100000000 0.07
done
