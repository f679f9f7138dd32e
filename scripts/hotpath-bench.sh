#!/usr/bin/env bash
# HTTP hot path: grundy's POST /v1/welter/value vs a bare axum endpoint (examples/bare_axum.rs,
# same request shape, no middleware), each server pinned with taskset to SERVER_CPUS and wrk
# pinned to CLIENT_CPUS (disjoint cores, so the load generator never steals the server's CPU),
# random 8-coin positions (scripts/welter8.lua), the same wrk run against both. Each round
# measures both servers back to back (alternating which goes first) and prints the ratio of
# that round; the summary gives the medians over the rounds. Not a pass/fail test.
#
#   scripts/hotpath-bench.sh                                   # 2-core machine: server on 0, wrk on 1
#   SERVER_CPUS=0-1 CLIENT_CPUS=2-9 scripts/hotpath-bench.sh    # 16 cores: 2 server cores
#   SERVER_CPUS=0-7 CLIENT_CPUS=8-15 CONNS=256 scripts/hotpath-bench.sh
#
# Env: SERVER_CPUS (0), CLIENT_CPUS (1), SECS (10 per measurement), CONNS (64),
#      WRK_THREADS (number of client CPUs), ROUNDS (3), PORT_BASE (19500: grundy on PORT_BASE,
#      bare on PORT_BASE+1), RUST_LOG for grundy (default: unset, the service default `info`),
#      CARGO_TARGET_DIR (target), GRUNDY_BIN / BARE_BIN (skip the build, use these binaries),
#      WRK_SCRIPT (scripts/welter8.lua; scripts/welter-static.lua sends one prebuilt request
#      with no Lua per request, the cheapest client wrk can be).
# The tokio runtimes size themselves to the CPUs taskset leaves them (available_parallelism).
# Output: `HOTPATH round=i server=... rps=... p50_ms=... p99_ms=... server_cpus_busy=...
# client_cpus_busy=...` (the fraction of those CPUs' time spent busy during the measurement:
# a server's should be ≈ 1.00, else the load generator limits it), `HOTPATH-RATIO round=i ...`
# and `HOTPATH-MEDIAN ...`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
SERVER_CPUS=${SERVER_CPUS:-0}
CLIENT_CPUS=${CLIENT_CPUS:-1}
SECS=${SECS:-10}
CONNS=${CONNS:-64}
ROUNDS=${ROUNDS:-3}
WRK_SCRIPT=${WRK_SCRIPT:-scripts/welter8.lua}
PORT_BASE=${PORT_BASE:-19500}
TARGET=${CARGO_TARGET_DIR:-target}
ncpus() { # CPUs in a taskset list such as 0-3,8
  python3 -c 'import sys
n=0
for part in sys.argv[1].split(","):
    a,_,b=part.partition("-"); n+=int(b or a)-int(a)+1
print(n)' "$1"
}
WRK_THREADS=${WRK_THREADS:-$(ncpus "$CLIENT_CPUS")}
command -v wrk >/dev/null || { echo "wrk is required: apt-get install -y wrk" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset is required (util-linux)" >&2; exit 1; }
if [[ -z ${GRUNDY_BIN:-} || -z ${BARE_BIN:-} ]]; then
  cargo build --release --bin grundy --example bare_axum --quiet
  GRUNDY_BIN=$TARGET/release/grundy BARE_BIN=$TARGET/release/examples/bare_axum
fi
G_PORT=$PORT_BASE; B_PORT=$((PORT_BASE + 1))
# both servers pinned to SERVER_CPUS, stopped on exit (lib.sh)
grundy_start -b "$GRUNDY_BIN" -c "$SERVER_CPUS" -l /dev/null "$G_PORT" GRUNDY_DATABASE_URL=none
grundy_start -b "$BARE_BIN" -c "$SERVER_CPUS" -l /dev/null "$B_PORT" -- "127.0.0.1:$B_PORT"
for port in "$G_PORT" "$B_PORT"; do
  grundy_wait_ready -d '{"position":[1,2]}' "$port" /v1/welter/value 10
done
echo "HOTPATH-SETUP server_cpus=$SERVER_CPUS client_cpus=$CLIENT_CPUS wrk_threads=$WRK_THREADS conns=$CONNS secs=$SECS rounds=$ROUNDS nproc=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"

# cpu_snapshot: the per-CPU jiffies of /proc/stat as one line.
cpu_snapshot() { grep '^cpu[0-9]' /proc/stat | tr '\n' ';'; }
# busy BEFORE AFTER CPULIST: the fraction of the listed CPUs' time spent busy (user, system,
# interrupts; not idle or iowait) between two snapshots.
busy() {
  python3 -c '
import sys
def parse(snap):
    out = {}
    for line in filter(None, snap.split(";")):
        f = line.split()
        v = [int(x) for x in f[1:9]]
        out[int(f[0][3:])] = (sum(v) - v[3] - v[4], sum(v))
    return out
a, b = parse(sys.argv[1]), parse(sys.argv[2])
cpus = []
for part in sys.argv[3].split(","):
    lo, _, hi = part.partition("-")
    cpus += range(int(lo), int(hi or lo) + 1)
busy = sum(b[c][0] - a[c][0] for c in cpus)
total = sum(b[c][1] - a[c][1] for c in cpus)
print(f"{busy / total:.2f}" if total else "nan")
' "$1" "$2" "$3"
}

# run NAME PORT: one wrk measurement; sets RPS P50 P99 and prints how busy the server's and
# the client's CPUs were. A ratio means something only while the servers' CPUs are saturated
# (≈ 1.00): when the client's CPUs are at 1.00 and a server's are not, the load generator is
# the bottleneck and the ratio flatters the slower server.
run() {
  local line before after
  before=$(cpu_snapshot)
  line=$(taskset -c "$CLIENT_CPUS" wrk -t"$WRK_THREADS" -c"$CONNS" -d"${SECS}s" -s "$WRK_SCRIPT" \
    "http://127.0.0.1:$2/v1/welter/value" | grep '^RESULT') || { echo "wrk failed against $1" >&2; exit 1; }
  after=$(cpu_snapshot)
  RPS=$(sed -E 's/.*requests\/s=([0-9.]+).*/\1/' <<<"$line")
  P50=$(sed -E 's/.*p50_ms=([0-9.]+).*/\1/' <<<"$line")
  P99=$(sed -E 's/.*p99_ms=([0-9.]+).*/\1/' <<<"$line")
  echo "HOTPATH round=$round server=$1 rps=$RPS p50_ms=$P50 p99_ms=$P99" \
    "server_cpus_busy=$(busy "$before" "$after" "$SERVER_CPUS")" \
    "client_cpus_busy=$(busy "$before" "$after" "$CLIENT_CPUS") ${line#*p99_ms=* }"
}

ratios=(); p99s=(); grps=(); brps=()
for round in $(seq 1 "$ROUNDS"); do
  # warm both up briefly (connections, allocator, branch predictors)
  taskset -c "$CLIENT_CPUS" wrk -t1 -c8 -d1s -s scripts/welter8.lua "http://127.0.0.1:$G_PORT/v1/welter/value" >/dev/null
  taskset -c "$CLIENT_CPUS" wrk -t1 -c8 -d1s -s scripts/welter8.lua "http://127.0.0.1:$B_PORT/v1/welter/value" >/dev/null
  if (( round % 2 )); then
    run bare "$B_PORT"; b_rps=$RPS; b_p99=$P99
    run grundy "$G_PORT"; g_rps=$RPS; g_p99=$P99
  else
    run grundy "$G_PORT"; g_rps=$RPS; g_p99=$P99
    run bare "$B_PORT"; b_rps=$RPS; b_p99=$P99
  fi
  r=$(awk -v g="$g_rps" -v b="$b_rps" 'BEGIN { printf "%.3f", g / b }')
  q=$(awk -v g="$g_p99" -v b="$b_p99" 'BEGIN { printf "%.2f", g / b }')
  echo "HOTPATH-RATIO round=$round throughput_grundy/bare=$r p99_grundy/bare=$q"
  ratios+=("$r"); p99s+=("$q"); grps+=("$g_rps"); brps+=("$b_rps")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
echo "HOTPATH-MEDIAN rounds=$ROUNDS grundy_rps=$(median "${grps[@]}") bare_rps=$(median "${brps[@]}")" \
  "throughput_ratio=$(median "${ratios[@]}") p99_ratio=$(median "${p99s[@]}")"
