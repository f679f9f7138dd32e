#!/usr/bin/env bash
# Misère-quotient jobs on the embedded SQLite store, release build (BENCHMARKS.md, "Misère
# quotients"):
#  1. the reference quotients through `"async": true` — Q_66 of 0.26, Q_72 of 0.57, Q_100 of
#     0.54 — each from submission to done (wall time, |Q|, |P|, the job's compute seconds);
#  2. kill -9 in the middle of Q_66 of 0.26 and a restart under the same GRUNDY_REPLICA_ID: the
#     heap it resumes from, the time the run takes from there, the total;
#  3. DELETE of a running job: the time until it reads cancelled;
#  4. with BASELINE_BIN=<another build's grundy> (e.g. the build before misère quotients were
#     jobs, whose "async" was an in-memory queue): the CPU seconds (utime + stime of the server
#     process) of Q_66 of 0.26 through "async": true, on that build and on this one, alternately,
#     twice each — waiting for GET /v1/octal/misere/quotient to answer 200, which both have.
# Usage: [BASELINE_BIN=…] scripts/misere-job-bench.sh [--skip-reference]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
cargo build --release --bin grundy >/dev/null 2>&1
bin="${CARGO_TARGET_DIR:-target}/release/grundy"
tmp=$(mktemp -d); grundy_rm_on_exit "$tmp" # removed, and the server stopped, on exit (lib.sh)
port=$(free_port); base="http://127.0.0.1:$port"
pid=""
start() {
  grundy_start -b "$bin" -l "$tmp/log" "$port" GRUNDY_DATABASE_URL="sqlite://$tmp/q.db" GRUNDY_JOB_WORKERS=1 \
    GRUNDY_REPLICA_ID=bench RUST_LOG=warn
  pid=$STARTED_PID
  grundy_wait_ready "$port" /readyz 10 || { echo "server did not start"; exit 1; }
}
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
now() { date +%s.%N; }
since() { python3 -c "print(round($(now) - $1, 2))"; }
submit() {
  curl -fsS "$base/v1/octal/misere/quotient" -H 'content-type: application/json' \
    -d "{\"code\":\"$1\",\"max_heap\":$2,\"async\":true}" | field 'd["id"]'
}
job() { curl -fsS "$base/v1/octal/jobs/$1"; }
wait_status() { while [ "$(job "$1" | field 'd["status"]')" != "$2" ]; do sleep 0.02; done; }
summary='d["status"], "|Q|", d["quotient"]["q_size"], "|P|", d["quotient"]["p_size"], "compute s", d["quotient"]["seconds"], "resumed from", d["quotient"]["resumed_from"], "attempts", d["attempts"]'

start
if [ "${1:-}" != --skip-reference ]; then
  echo "== reference quotients through \"async\": true"
  for q in "0.26 66" "0.57 72" "0.54 100"; do
    set -- $q
    t0=$(now); id=$(submit "$1" "$2")
    wait_status "$id" done
    echo "Q_$2 of $1: wall $(since "$t0") s; $(job "$id" | field "$summary")"
  done
  # A fresh store for the rest (the quotients above are stored).
  grundy_stop "$pid"; rm -f "$tmp"/q.db*; start
fi

echo "== kill -9 in the middle of Q_66 of 0.26, restart (same replica id)"
t0=$(now); id=$(submit 0.26 66)
while [ "$(job "$id" | field 'd["quotient"]["heap"]')" -lt 60 ]; do sleep 0.02; done
sleep 2.5 # at least one saved quotient past heap 60 (GRUNDY_JOB_CHECKPOINT_MS, 2 s)
before=$(job "$id" | field 'd["quotient"]["heap"], d["quotient"]["seconds"]')
grundy_stop -s KILL "$pid"
t1=$(now); start
wait_status "$id" done
echo "before the crash: heap, compute s = $before; after the restart: done in $(since "$t1") s (process start included); total $(since "$t0") s"
echo "   $(job "$id" | field "$summary")"

echo "== DELETE a running job"
grundy_stop "$pid"; rm -f "$tmp"/q.db*; start
id=$(submit 0.26 66)
while [ "$(job "$id" | field 'd["quotient"]["heap"]')" -lt 55 ]; do sleep 0.02; done
t0=$(now); curl -fsS -X DELETE "$base/v1/octal/jobs/$id" >/dev/null
wait_status "$id" cancelled
echo "cancelled $(since "$t0") s after the DELETE; the quotient: $(curl -s -o /dev/null -w '%{http_code}' "$base/v1/octal/misere/quotient?code=0.26&max_heap=66")"

if [ -n "${BASELINE_BIN:-}" ]; then
  echo "== CPU seconds of Q_66 of 0.26 through \"async\": true (server process), $BASELINE_BIN vs this build"
  cpu() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }
  for round in 1 2; do
    for b in "$BASELINE_BIN" "$bin"; do
      grundy_stop "$pid"; rm -f "$tmp"/q.db*
      grundy_start -b "$b" -l "$tmp/log" "$port" GRUNDY_DATABASE_URL="sqlite://$tmp/q.db" GRUNDY_JOB_WORKERS=1 RUST_LOG=warn
      pid=$STARTED_PID
      grundy_wait_ready "$port" /readyz 10 || { echo "server did not start"; exit 1; }
      c0=$(cpu "$pid"); t0=$(now)
      curl -fsS "$base/v1/octal/misere/quotient" -H 'content-type: application/json' \
        -d '{"code":"0.26","max_heap":66,"async":true}' >/dev/null
      until [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/octal/misere/quotient?code=0.26&max_heap=66")" = 200 ]; do sleep 0.05; done
      echo "round $round, $b: cpu $(python3 -c "print(round($(cpu "$pid") - $c0, 2))") s, wall $(since "$t0") s"
    done
  done
fi
