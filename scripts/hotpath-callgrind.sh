#!/usr/bin/env bash
# Instructions per request, grundy vs the bare axum endpoint: a noise-free figure for the HTTP
# hot path (wall-clock load tests on a shared machine vary by ±30 %; instruction counts by <1 %).
#
# Each server runs under `valgrind --tool=callgrind` with instrumentation off; after a warm-up
# (so lazily built tables and first-use allocations are excluded) instrumentation is switched
# on, N keep-alive requests with random 8-coin positions go to POST /v1/welter/value from one
# client, and the total instruction count (all threads: hyper, tokio, the handler) is divided
# by N. The top functions by self cost are printed for grundy (a profile of the stack).
#
#   scripts/hotpath-callgrind.sh [N]        # N requests (default 5000)
#
# Env: CARGO_TARGET_DIR (target), GRUNDY_BIN / BARE_BIN (skip the build and use these
# binaries), RUST_LOG for grundy (default: unset, i.e. the service default `info`),
# TOP (functions to list, 25), KEEP (a directory to keep the callgrind.out files in),
# ONLY=grundy (measure grundy alone, while iterating on it).
# Output: `CALLGRIND server=... requests=N instructions_per_request=...` lines and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
N=${1:-5000}
TARGET=${CARGO_TARGET_DIR:-target}
TOP=${TOP:-25}
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 1; }
if [[ -z ${GRUNDY_BIN:-} || -z ${BARE_BIN:-} ]]; then
  cargo build --release --bin grundy --example bare_axum --quiet
  GRUNDY_BIN=$TARGET/release/grundy BARE_BIN=$TARGET/release/examples/bare_axum
fi
WORK=$(mktemp -d /tmp/grundy-callgrind.XXXXXX); grundy_rm_on_exit "$WORK" # removed on exit, servers stopped (lib.sh)

# drive PORT COUNT: COUNT keep-alive POSTs of random 8-coin positions (fixed seed).
drive() {
  python3 - "$1" "$2" <<'PY'
import http.client, json, random, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(12345)
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for _ in range(n):
    body = json.dumps({"position": rng.sample(range(1 << 20), 8)}, separators=(",", ":"))
    c.request("POST", "/v1/welter/value", body, {"Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    if r.status != 200:
        sys.exit(f"status {r.status}")
PY
}

# measure NAME BIN: prints instructions per request for the server (grundy takes its address
# from GRUNDY_ADDR, bare_axum as its argument).
measure() {
  local name=$1 bin=$2 port pid out args=()
  port=$(free_port)
  [[ $name == grundy ]] || args=("127.0.0.1:$port")
  out=$WORK/callgrind.$name.out
  grundy_start -b valgrind -l "$WORK/$name.log" "$port" GRUNDY_DATABASE_URL=none \
    -- --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" "$bin" "${args[@]}"
  pid=$STARTED_PID
  for _ in $(seq 1 600); do
    drive "$port" 1 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.log"; exit 1; }
    sleep 0.1
  done
  drive "$port" 500               # warm-up, not counted
  callgrind_control -i on "$pid" >/dev/null
  drive "$port" "$N"
  callgrind_control -i off "$pid" >/dev/null
  grundy_stop -t 0 "$pid" # no time limit: callgrind writes its output file as the server exits
  local total
  total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !seen { gsub(",", "", $1); print $1; seen = 1 }')
  echo "CALLGRIND server=$name requests=$N instructions=$total instructions_per_request=$((total / N))"
  eval "IPR_${name//-/_}=$((total / N))"
  if [[ $name == grundy ]]; then
    echo "--- grundy: top $TOP functions by self instructions"
    callgrind_annotate --inclusive=no "$out" 2>/dev/null | sed -n '/file:function/,$p' | sed -n "2,$((TOP + 1))p"
  fi
  if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP"; cp "$out" "$KEEP/"; fi
}

if [[ ${ONLY:-} == grundy ]]; then measure grundy "$GRUNDY_BIN"; exit 0; fi
measure bare "$BARE_BIN"
measure grundy "$GRUNDY_BIN"
echo "CALLGRIND-COMPARE grundy/bare instructions_per_request_ratio=$(awk -v g="$IPR_grundy" -v b="$IPR_bare" 'BEGIN { printf "%.2f", g / b }')"
