#!/usr/bin/env bash
# Grundy's game figures, release build (BENCHMARKS.md, "Grundy's game"):
#  1. values per second to 10^6 and 2^21 and peak RSS (/usr/bin/time -v) per value, computed
#     directly (examples/octal_time, no store);
#  2. the rare/common engine against the quadratic method (full scans, one thread) at 10^5;
#  3. how far the engine gets in SECONDS directly, and how far a job gets in SECONDS on the
#     embedded SQLite store (checkpoints every 2 s), with the server's peak RSS.
# Usage: scripts/grundy-bench.sh [SECONDS]   (default 600: the issue's "10-minute job")
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
secs="${1:-600}"
cargo build --release --bin grundy --example octal_time >/dev/null 2>&1
target="${CARGO_TARGET_DIR:-target}/release"
tmp=$(mktemp -d); grundy_rm_on_exit "$tmp"; port=19371; base="http://127.0.0.1:$port" # tmp removed, server stopped on exit (lib.sh)
run() {
  /usr/bin/time -v "$target/examples/octal_time" grundy "$@" 2>"$tmp/time"
  grep -E "Maximum resident set size" "$tmp/time"
}

echo "== to 10^6"; run --n 1000000
echo "== to 2^21"; run --n 2097152
echo "== 10^5: rare/common vs the quadratic method (one thread each)"
run --n 100000
run --n 100000 --dense
echo "== directly for $secs s"; run --n 2147483648 --seconds "$secs"

echo "== as a job for $secs s (SQLite, checkpoint every 2 s)"
grundy_start -b "$target/grundy" -l "$tmp/log" "$port" GRUNDY_DATABASE_URL="sqlite://$tmp/jobs.db" GRUNDY_JOB_WORKERS=1 \
  GRUNDY_JOB_MAX_N=2000000000 RUST_LOG=warn
pid=$STARTED_PID
grundy_wait_ready "$port" /readyz 5
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
id=$(curl -fsS "$base/v1/octal/jobs" -H 'content-type: application/json' \
  -d '{"code":"grundy","max_n":2000000000}' | field 'd["id"]')
sleep "$secs"
curl -fsS "$base/v1/octal/jobs/$id" | field 'd["status"], d["progress"], d["periodicity"]["status"]'
echo "server peak RSS: $(grep VmHWM /proc/$pid/status)"
curl -fsS -X DELETE "$base/v1/octal/jobs/$id" >/dev/null
