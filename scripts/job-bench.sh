#!/usr/bin/env bash
# Job figures on the embedded SQLite store, release build:
#  1. throughput and checkpoint overhead: Officers (.6) to N heaps as a job (checkpoints every
#     GRUNDY_JOB_CHECKPOINT_MS) vs the same computation without any store (examples/octal_time);
#  2. recovery: kill -9 mid-job, restart under the same GRUNDY_REPLICA_ID, time until the job
#     runs again, and check it completes.
# Usage: scripts/job-bench.sh [N]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
n="${1:-1000000}"
cargo build --release --bin grundy --example octal_time >/dev/null 2>&1
bin="${CARGO_TARGET_DIR:-target}/release/grundy"
tmp=$(mktemp -d); grundy_rm_on_exit "$tmp"; port=18381; base="http://127.0.0.1:$port" # tmp removed, server stopped on exit (lib.sh)
pid=""
start() {
  grundy_start -b "$bin" -l "$tmp/log" "$port" GRUNDY_DATABASE_URL="sqlite://$tmp/jobs.db" GRUNDY_JOB_WORKERS=1 \
    GRUNDY_REPLICA_ID=bench RUST_LOG=warn
  pid=$STARTED_PID
  grundy_wait_ready "$port" /readyz 5 || { echo "server did not start"; exit 1; }
}
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
now() { date +%s.%N; }

echo "== direct computation (no store)"
"${CARGO_TARGET_DIR:-target}/release/examples/octal_time" 0.6 --n "$n" --threads 2 | tee "$tmp/direct"

echo "== as a job (SQLite, checkpoint every 2 s)"
start
t0=$(now)
id=$(curl -fsS "$base/v1/octal/jobs" -H 'content-type: application/json' -d "{\"code\":\"0.6\",\"max_n\":$n}" | field 'd["id"]')
while [ "$(curl -fsS "$base/v1/octal/jobs/$id" | field 'd["status"]')" != "done" ]; do sleep 0.05; done
t1=$(now)
echo "job wall seconds: $(python3 -c "print(round($t1-$t0,2))") for $n heaps"

echo "== recovery after kill -9 (same replica id)"
# Continue Officers to 10×N: it resumes from the N values stored above.
id=$(curl -fsS "$base/v1/octal/jobs" -H 'content-type: application/json' -d "{\"code\":\"0.6\",\"max_n\":$((n * 10))}" | field 'd["id"]')
sleep 4
before=$(curl -fsS "$base/v1/octal/jobs/$id" | field 'd["progress"]["computed"]')
grundy_stop -s KILL "$pid"
t0=$(now); start
state() { curl -fsS "$base/v1/octal/jobs/$id" | field 'd["status"], d["progress"]["computed"], d["attempts"]'; }
while [ "$(curl -fsS "$base/v1/octal/jobs/$id" | field 'd["status"]')" != running ]; do sleep 0.02; done
t1=$(now)
echo "checkpointed before the crash: $before values; restart-to-running: $(python3 -c "print(round($t1-$t0,2))") s (process start included)"
sleep 3
echo "3 s after the restart: $(state)"
curl -fsS -X DELETE "$base/v1/octal/jobs/$id" >/dev/null
