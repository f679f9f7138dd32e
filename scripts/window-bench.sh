#!/usr/bin/env bash
# A window job against the same job keeping every value (issue 30): `.167` (by default) to
# N + 1 heaps as a job of a release server on a fresh SQLite store, once with "keep": "window"
# (the default window 2^24 unless WINDOW is set) and once with "keep": "all", each on its own
# server process, one worker with one thread. For each: wall time (submission to `done`), the
# server's CPU seconds over the job (utime + stime from /proc), its peak RSS (VmHWM), the bytes
# the job's values take on disk, and for the window job its read-backs (job document). Then the
# histogram over heaps 1..=N (from the job's statistics: heaps 0..=N less heap 0) is compared
# with A. Rogalski's published one (scripts/data/rogalski-<code>/<N>) where there is one.
#
# Usage: scripts/window-bench.sh [N] [CODE]      (defaults: 1073741824 0.167)
#   MODES="window all" (environment): which runs, in that order.
#   WINDOW: the window job's front and window (a multiple of 65536; default: the server's).
#   CPUS: taskset the servers to these CPUs (e.g. CPUS=1).
#   THREADS: the job's threads (GRUNDY_JOB_THREADS; default 1); "1 2" runs each mode once per
#     count, in that order (one worker either way). The job document's `threads`,
#     `cpu_seconds` and `engine` are printed with each run.
# About 6 minutes of one core per run for `.167` to 2^30; keeping every value needs ≥ 1 GB.
# Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
n="${1:-1073741824}"
code="${2:-0.167}"
modes="${MODES:-window all}"
cargo build --release --bin grundy >/dev/null 2>&1
bin="${CARGO_TARGET_DIR:-target}/release/grundy"
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
ticks=$(getconf CLK_TCK)
cpu_s() { awk -v t="$ticks" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }
echo "== $code to $n + 1 heaps as a job; commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mode | threads | job cpu_seconds | wall s | server CPU s | peak RSS kB | disk bytes (B/value) | read-backs"
for threads in ${THREADS:-1}; do
for mode in $modes; do
  tmp=$(mktemp -d); grundy_rm_on_exit "$tmp"; port=$(free_port); base="http://127.0.0.1:$port"
  cpus=(); [[ -n "${CPUS:-}" ]] && cpus=(-c "$CPUS")
  grundy_start -b "$bin" "${cpus[@]}" -l "$tmp/log" "$port" GRUNDY_DATABASE_URL="sqlite://$tmp/grundy.db" \
    GRUNDY_JOB_WORKERS=1 GRUNDY_JOB_THREADS="$threads" GRUNDY_JOB_MAX_N=2147483648 RUST_LOG=warn
  pid=$STARTED_PID
  grundy_wait_ready "$port" /readyz 10
  body="{\"code\":\"$code\",\"max_n\":$((n + 1))"
  if [[ $mode == window ]]; then
    body+=",\"keep\":\"window\""; [[ -n "${WINDOW:-}" ]] && body+=",\"window\":$WINDOW"
  fi
  body+="}"
  c0=$(cpu_s "$pid"); t0=$(date +%s.%N)
  id=$(curl -fsS "$base/v1/octal/jobs" -H 'content-type: application/json' -d "$body" | field 'd["id"]')
  while :; do
    doc=$(curl -fsS "$base/v1/octal/jobs/$id")
    status=$(field 'd["status"]' <<<"$doc")
    case $status in done|failed|cancelled) break ;; esac
    sleep 1
  done
  t1=$(date +%s.%N); c1=$(cpu_s "$pid")
  hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
  if [[ $mode == window ]]; then
    disk=$(field 'd["archive"]["disk_bytes"]' <<<"$doc")
    reads=$(field '"%(reads)d reads, %(values_read)d values, %(read_seconds).2f s, %(deep_scans)d deep scans, %(far_rare_positions)d far rare" % d["archive"]' <<<"$doc")
  else
    disk=$(sqlite3 "$tmp/grundy.db" "SELECT COALESCE(SUM(LENGTH(data)),0) FROM sequence_chunks")
    reads="-"
  fi
  job=$(field '"%s | %s" % (d.get("threads"), d.get("cpu_seconds"))' <<<"$doc")
  echo "$mode | $job | $(python3 -c "print(round($t1-$t0,1))") | $(python3 -c "print(round($c1-$c0,1))") | $hwm | $disk ($(python3 -c "print(round($disk/($n+1),3))")) | $reads"
  echo "  engine: $(field 'd.get("engine")' <<<"$doc")"
  [[ $status == done ]] || { echo "job $status: $(field 'd.get("error")' <<<"$doc")"; exit 1; }
  # The histogram over heaps 1..=n against the published one.
  ref="scripts/data/rogalski-$code/$n"
  curl -fsS "$base/v1/octal/jobs/$id/statistics" >"$tmp/stats.json"
  python3 - "$ref" "$n" "$tmp/stats.json" <<'PY'
import json, os, sys
ref, n = sys.argv[1], int(sys.argv[2])
d = json.load(open(sys.argv[3]))
cur = d["current"]
assert cur["n"] == n + 1, cur["n"]
h = list(cur["histogram"]); h[0] -= 1
while h and h[-1] == 0: h.pop()
print(f"  statistics at {n}+1: max {cur['max_value']} (first at {cur['max_value_first_heap']}), mask {cur['rare_mask']}, {cur['rare_count']} rare, last rare {cur['last_rare_heap']}")
if os.path.exists(ref):
    want = [0] * 0
    for line in open(ref):
        v, c = map(int, line.split()); want += [0] * (v + 1 - len(want)); want[v] = c
    while want and want[-1] == 0: want.pop()
    print("  histogram over heaps 1..=%d %s Rogalski's published one (%s)" % (n, "EQUALS" if h == want else "DIFFERS FROM", ref))
    if h != want: sys.exit(1)
PY
  grundy_stop "$pid"
done
done
