#!/usr/bin/env bash
# Record-scale octal run *as a job* of the service: `.1777` (by default) submitted to a release
# server on the embedded SQLite store, run until periodicity is proved (the job stops there) or
# MAX_N heaps, then the figures issue 11 asks for:
#   job wall time (submission to `done`), the server's peak RSS (VmHWM) and bytes per computed
#   value, the store's size (the game's chunk bytes and the database file), the proof from the
#   job document, and a check that the values come back: g(n) = g(n + period) read through
#   GET /v1/octal/{code}/values on both sides of the preperiod (beyond the computed prefix the
#   endpoint answers from the proved periodicity).
# Usage: scripts/octal-record-job.sh [CODE] [MAX_N]   (defaults: 0.1777 1000000000)
# About 80 s of one core and 0.6 GB for `.1777` (BENCHMARKS.md, "Octal games at research
# scale"). Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
code="${1:-0.1777}"
max_n="${2:-1000000000}"
cargo build --release --bin grundy >/dev/null 2>&1
bin="${CARGO_TARGET_DIR:-target}/release/grundy"
tmp=$(mktemp -d); grundy_rm_on_exit "$tmp"; port=${PORT:-18401}; base="http://127.0.0.1:$port" # tmp removed, server stopped on exit (lib.sh)
grundy_start -b "$bin" -l "$tmp/log" "$port" GRUNDY_DATABASE_URL="sqlite://$tmp/grundy.db" GRUNDY_JOB_WORKERS=1 \
  RUST_LOG=warn
pid=$STARTED_PID
grundy_wait_ready "$port" /readyz 5
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
rss_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$pid/status"; }
echo "== $code as a job, max_n=$max_n, SQLite store in $tmp; server pid $pid, RSS before: $(rss_kb) kB"
t0=$(date +%s.%N)
id=$(curl -fsS "$base/v1/octal/jobs" -H 'content-type: application/json' \
  -d "{\"code\":\"$code\",\"max_n\":$max_n}" | field 'd["id"]')
last=""
while :; do
  doc=$(curl -fsS "$base/v1/octal/jobs/$id")
  status=$(field 'd["status"]' <<<"$doc")
  case $status in done|failed|cancelled) break ;; esac
  now=$(date +%s); if [[ $now != "$last" && $((now % 15)) -eq 0 ]]; then
    echo "  $(field '"computed=%s rate=%s/s eta=%s s" % (d["progress"]["computed"], d["progress"].get("heaps_per_second"), d["progress"].get("eta_seconds"))' <<<"$doc")"
    last=$now
  fi
  sleep 0.5
done
t1=$(date +%s.%N)
hwm=$(rss_kb)
computed=$(field 'd["progress"]["computed"]' <<<"$doc")
echo "status: $status"
echo "periodicity: $(field 'd.get("periodicity")' <<<"$doc")"
echo "job wall seconds: $(python3 -c "print(round($t1-$t0,1))")"
echo "computed values: $computed"
echo "server peak RSS (VmHWM): $hwm kB = $(python3 -c "print(round($hwm*1024/$computed,3))") bytes per computed value"
chunk_bytes=$(sqlite3 "$tmp/grundy.db" "SELECT COALESCE(SUM(LENGTH(data)),0) FROM sequence_chunks")
db_bytes=$(stat -c %s "$tmp/grundy.db")
echo "store: $chunk_bytes bytes of chunks ($(python3 -c "print(round($chunk_bytes/$computed,4))") B/value), database file $db_bytes bytes ($(python3 -c "print(round($db_bytes/$computed,4))") B/value)"
[[ $status == "done" ]] || exit 1
# Values back out, and the proved period: g(n) = g(n + p) for n from the preperiod on.
pre=$(field 'd["periodicity"]["preperiod"]' <<<"$doc"); per=$(field 'd["periodicity"]["period"]' <<<"$doc")
if [[ $pre != None && $per != None ]]; then
  a=$(curl -fsS "$base/v1/octal/$code/values?start=$pre&count=1000" | field 'd["values"]')
  b=$(curl -fsS "$base/v1/octal/$code/values?start=$((pre + per))&count=1000" | field 'd["values"]')
  far=$((pre + 1000 * per))
  c=$(curl -fsS "$base/v1/octal/$code/values?start=$far&count=1000" | field 'd["values"]')
  [[ $a == "$b" && $a == "$c" ]] && echo "values: g(n) = g(n+p) = g(n+1000p) for n in [$pre, $pre+1000) (read back through /values; the last from the proof)" \
    || { echo "values: MISMATCH across the period"; exit 1; }
  before=$(curl -fsS "$base/v1/octal/$code/values?start=$((pre - 1))&count=1" | field 'd["values"][0]')
  after=$(curl -fsS "$base/v1/octal/$code/values?start=$((pre - 1 + per))&count=1" | field 'd["values"][0]')
  echo "last exception: g($((pre - 1))) = $before, g($((pre - 1 + per))) = $after (differ: $([[ $before != "$after" ]] && echo yes || echo NO))"
  t2=$(date +%s.%N)
  bytes=$(curl -fsS -H 'accept: application/octet-stream' "$base/v1/octal/$code/values?start=0&count=$computed" | wc -c)
  t3=$(date +%s.%N)
  echo "binary download of all $computed values: $bytes bytes in $(python3 -c "print(round($t3-$t2,2))") s ($(python3 -c "print(round($bytes/($t3-$t2)/1e6))") MB/s)"
fi
