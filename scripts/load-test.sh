#!/usr/bin/env bash
# Overload-protection check. The release server runs with a small GRUNDY_MAX_CONCURRENCY and wrk
# drives POST /v1/welter/value far above capacity (LOAD_CONNS connections, LOAD_SECS each):
#
#   grundy-inline   default settings, random 8-coin positions (mostly cache misses): throughput
#                   next to the bare axum baseline. Tiny requests finish inside one poll, so few
#                   overlap and 503s are rare here.
#   grundy-shed     GRUNDY_INLINE_COINS=0: every request goes to the blocking pool, requests
#                   overlap, the concurrency limit is reached and load shedding must happen
#                   (503 count > 0).
#   grundy-large    5000-coin positions (~40 kB bodies, computed on the blocking pool): shedding
#                   with bodies still unread; the server then closes the connection with data
#                   unread and the client may see a reset instead of the 503 (wrk counts a read
#                   or write error). Such resets are counted and allowed up to LOAD_MAX_RESET_PCT
#                   of the requests; with small bodies none is allowed.
#   grundy-slow     1,000 hostile connections from another client address (127.0.0.2) send the
#                   head of POST /v1/welter/value with Content-Length: 100000 and then 10 body
#                   bytes, and hold (rate rule off, so they stay for the whole run: the worst
#                   case). Bodies are read before a compute slot is taken, so the normal load
#                   must keep >= LOAD_MIN_SLOW_RATIO of its throughput measured just before on
#                   the same server, with no 503 at all; all 1,000 stay connected (they are under
#                   the per-client cap) and none is answered.
#   bare_axum       examples/bare_axum.rs (same request shape, no middleware), measured like
#                   grundy-inline.
#
# Every grundy scenario must answer only 200 or 503 (no other status, no timeout, no socket
# error except the resets above), keep p99 <= LOAD_MAX_P99_MS and peak RSS (VmHWM) <=
# LOAD_MAX_RSS_MB, and be healthy and correct afterwards.
#
#   scripts/load-test.sh             # ~2.5 minutes after the build (4 × LOAD_SECS + start-up)
#
# Env: CARGO_TARGET_DIR (target), LOAD_SECS (30), LOAD_CONNS (512), LOAD_THREADS (2),
#      LOAD_CONCURRENCY (32), LOAD_MAX_P99_MS (1000), LOAD_MAX_RSS_MB (512), LOAD_MAX_RESET_PCT (10),
#      LOAD_SLOW_CONNS (1000), LOAD_MIN_SLOW_RATIO (0.5).
# Output: `LOADTEST scenario=... key=value ...` per scenario, `LOADTEST-COMPARE ...`, then one
# summary line `load-test.sh: PASS|FAIL ...`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

grundy_target
SECS=${LOAD_SECS:-30}
CONNS=${LOAD_CONNS:-512}
THREADS=${LOAD_THREADS:-2}
CONCURRENCY=${LOAD_CONCURRENCY:-32}
MAX_P99_MS=${LOAD_MAX_P99_MS:-1000}
MAX_RSS_MB=${LOAD_MAX_RSS_MB:-512}
MAX_RESET_PCT=${LOAD_MAX_RESET_PCT:-10}
SLOW_CONNS=${LOAD_SLOW_CONNS:-1000}
MIN_SLOW_RATIO=${LOAD_MIN_SLOW_RATIO:-0.5}

say() { printf '== %s\n' "$*"; }
die() { printf 'load-test.sh: FAIL: %s\n' "$*" >&2; exit 1; }

# --- tools ------------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
  say "installing wrk (Debian package)"
  SUDO=; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
fi
command -v wrk >/dev/null || die "wrk is not available"
# The file limit must cover wrk's connections and the server's accepted sockets.
hard=$(ulimit -Hn)
if [[ $hard == unlimited || $hard -ge 65536 ]]; then ulimit -n 65536; else ulimit -n "$hard"; fi
[[ $(ulimit -n) -ge $((CONNS + SLOW_CONNS + 256)) ]] || die "open-file limit $(ulimit -n) is too low for $CONNS connections"

say "building the release binary and the bare axum example"
cargo build --release --bin grundy --example bare_axum --quiet

# servers stopped, their logs shown on failure and the work directory removed on exit (lib.sh)
WORK=$(mktemp -d /tmp/grundy-load.XXXXXX); grundy_rm_on_exit "$WORK"

# wrk script: random positions (squares < 2^20, fixed seed per thread); statuses are counted per
# thread in the `response` hook and summed in `done`.
cat >"$WORK/load.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local threads = {}
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end
-- LOAD_COINS coins per position (default 8): small positions are drawn per request; large ones
-- (> 64 coins) are drawn once per thread, 16 of them, and cycled.
local ncoins = tonumber(os.getenv("LOAD_COINS") or "8")
local function body()
  local seen, coins = {}, {}
  while #coins < ncoins do
    local x = math.random(0, 1048575)
    if not seen[x] then seen[x] = true; coins[#coins + 1] = x end
  end
  return '{"position":[' .. table.concat(coins, ",") .. ']}'
end
local bodies, next_body = {}, 0
function init(args)
  math.randomseed(12345 + id)
  statuses = {}
  if ncoins > 64 then
    for i = 1, 16 do bodies[i] = body() end
  end
end
function request()
  if #bodies > 0 then
    next_body = next_body % #bodies + 1
    return wrk.format(nil, nil, nil, bodies[next_body])
  end
  return wrk.format(nil, nil, nil, body())
end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  local total, c200, c503, other = 0, 0, 0, 0
  local others = {}
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("statuses")) do
      total = total + n
      if status == 200 then c200 = c200 + n
      elseif status == 503 then c503 = c503 + n
      else other = other + n; others[#others + 1] = status .. ":" .. n end
    end
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT rps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f responses=%d status_200=%d status_503=%d " ..
    "status_other=%d other=%s connect_errors=%d read_errors=%d write_errors=%d timeouts=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, total, c200, c503, other, (#others > 0 and table.concat(others, ",") or "none"),
    e.connect, e.read, e.write, e.timeout))
end
LUA

# measure SCENARIO URL PID COINS: runs wrk, prints `LOADTEST scenario=...`, sets R_<key> variables.
measure() {
  local name=$1 url=$2 pid=$3 coins=$4 line rss kv
  LOAD_COINS=$coins timeout $((SECS + 60)) wrk -t"$THREADS" -c"$CONNS" -d"${SECS}s" --timeout 5s \
    -s "$WORK/load.lua" "$url" >"$WORK/wrk-$name.out" 2>&1 \
    || { cat "$WORK/wrk-$name.out"; die "wrk failed ($name)"; }
  line=$(grep '^RESULT ' "$WORK/wrk-$name.out") || { cat "$WORK/wrk-$name.out"; die "no RESULT line from wrk ($name)"; }
  kill -0 "$pid" 2>/dev/null || die "$name: the server died under load"
  rss=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
  echo "LOADTEST scenario=$name conns=$CONNS threads=$THREADS secs=$SECS coins=$coins ${line#RESULT } peak_rss_kb=$rss"
  for kv in ${line#RESULT } peak_rss_kb=$rss; do printf -v "R_${kv%%=*}" '%s' "${kv#*=}"; done
}

fails=()
fail() { fails+=("$1: $2"); }

# grundy_scenario NAME COINS [ENV=VALUE...]: start grundy, load it, check it, stop it.
grundy_scenario() {
  local name=$1 coins=$2 port pid code body resets; shift 2
  port=$(free_port)
  grundy_start -b "$TARGET/release/grundy" -l "$WORK/$name.log" "$port" \
    GRUNDY_DATABASE_URL=none GRUNDY_MAX_CONCURRENCY="$CONCURRENCY" RUST_LOG=error "$@"
  pid=$STARTED_PID
  grundy_wait_ready "$port" /healthz 30 || die "$name: the server did not start"
  say "$name (GRUNDY_MAX_CONCURRENCY=$CONCURRENCY${*:+ $*}): wrk -t$THREADS -c$CONNS -d${SECS}s, $coins coins"
  measure "$name" "http://127.0.0.1:$port/v1/welter/value" "$pid" "$coins"
  [[ $R_status_200 -gt 0 ]] || fail "$name" "no 200 answers at all"
  [[ $R_status_other -eq 0 ]] || fail "$name" "statuses other than 200/503: $R_other"
  [[ $R_timeouts -eq 0 && $R_connect_errors -eq 0 ]] \
    || fail "$name" "timeouts $R_timeouts, connect errors $R_connect_errors"
  # a connection closed under wrk while it reads the answer or still writes the body
  resets=$((R_read_errors + R_write_errors))
  if [[ $coins -le 64 ]]; then
    [[ $resets -eq 0 ]] || fail "$name" "$resets connections reset (read/write errors) with small bodies"
  elif [[ $((resets * 100)) -gt $((MAX_RESET_PCT * (R_responses + resets))) ]]; then
    fail "$name" "$resets connections reset (read/write errors): over $MAX_RESET_PCT% of requests"
  fi
  awk -v p="$R_p99_ms" -v m="$MAX_P99_MS" 'BEGIN { exit !(p <= m) }' || fail "$name" "p99 ${R_p99_ms} ms > ${MAX_P99_MS} ms"
  [[ $R_peak_rss_kb -le $((MAX_RSS_MB * 1024)) ]] || fail "$name" "peak RSS ${R_peak_rss_kb} kB > ${MAX_RSS_MB} MB"
  code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/healthz") || code=000
  [[ $code == 200 ]] || fail "$name" "/healthz after the load answered $code"
  body=$(curl -sS --max-time 5 "http://127.0.0.1:$port/v1/welter/value" -H 'content-type: application/json' \
    -d '{"position":[1,3,7,8,11,19]}') || body=
  [[ $body == *'"value":12'* ]] || fail "$name" "wrong or no answer after the load: $body"
  grundy_stop "$pid"
}

grundy_scenario grundy-inline 8
G_LINE="rps=$R_rps p50_ms=$R_p50_ms p99_ms=$R_p99_ms status_503=$R_status_503 peak_rss_kb=$R_peak_rss_kb"
G_RPS=$R_rps
grundy_scenario grundy-shed 8 GRUNDY_INLINE_COINS=0
[[ $R_status_503 -gt 0 ]] || fail grundy-shed "no 503 at all: load shedding never happened"
grundy_scenario grundy-large 5000

# --- slow request bodies (issue 15) -------------------------------------------------------------
cat >"$WORK/slow.py" <<'PY'
# Opens N connections from 127.0.0.2 that send a request head announcing a 100,000-byte body and
# 10 bytes of it, holds them for HOLD seconds, then reports how many are still open, unanswered.
import socket, sys, time
port, n, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
head = (b"POST /v1/welter/value HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000\r\n\r\n{\"position\"")
socks = []
for _ in range(n):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    s.connect(("127.0.0.1", port))
    s.sendall(head)
    socks.append(s)
print(f"SLOW opened={len(socks)}", flush=True)
time.sleep(hold)
still = 0
for s in socks:
    try:
        s.recv(1, socket.MSG_DONTWAIT)  # data or b"": answered or closed
    except BlockingIOError:
        still += 1
    except OSError:
        pass
print(f"SLOW still_open={still}", flush=True)
PY
port=$(free_port)
grundy_start -b "$TARGET/release/grundy" -l "$WORK/grundy-slow.log" "$port" \
  GRUNDY_DATABASE_URL=none GRUNDY_MAX_CONCURRENCY="$CONCURRENCY" RUST_LOG=error \
  GRUNDY_BODY_MIN_RATE=0 GRUNDY_BODY_READ_TIMEOUT_MS=$(((3 * SECS + 60) * 1000))
S=$STARTED_PID
grundy_wait_ready "$port" /healthz 30 || die "grundy-slow: the server did not start"
say "grundy-slow: baseline, then $SLOW_CONNS slow bodies held open from 127.0.0.2"
measure grundy-slow-baseline "http://127.0.0.1:$port/v1/welter/value" "$S" 8
SLOW_BASE_RPS=$R_rps
python3 "$WORK/slow.py" "$port" "$SLOW_CONNS" $((SECS + 15)) >"$WORK/slow.out" 2>&1 & SP=$!; grundy_track "$SP"
for _ in $(seq 1 300); do grep -q opened "$WORK/slow.out" 2>/dev/null && break; sleep 0.1; done
grep -q "opened=$SLOW_CONNS" "$WORK/slow.out" || { cat "$WORK/slow.out"; fail grundy-slow "could not open $SLOW_CONNS slow connections"; }
measure grundy-slow "http://127.0.0.1:$port/v1/welter/value" "$S" 8
wait "$SP" || true
SLOW_RATIO=$(awk -v a="$R_rps" -v b="$SLOW_BASE_RPS" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
echo "LOADTEST-SLOW slow_conns=$SLOW_CONNS $(grep still_open "$WORK/slow.out" || echo still_open=?) baseline_rps=$SLOW_BASE_RPS with_slow_rps=$R_rps ratio=$SLOW_RATIO status_503=$R_status_503"
[[ $R_status_503 -eq 0 && $R_status_other -eq 0 ]] || fail grundy-slow "503s ($R_status_503) or other statuses ($R_other) with slow bodies open"
awk -v r="$SLOW_RATIO" -v m="$MIN_SLOW_RATIO" 'BEGIN { exit !(r >= m) }' || fail grundy-slow "throughput ratio $SLOW_RATIO < $MIN_SLOW_RATIO with slow bodies open"
grep -q "still_open=$SLOW_CONNS" "$WORK/slow.out" || fail grundy-slow "slow connections were closed or answered: $(cat "$WORK/slow.out" | tr '\n' ' ')"
grundy_stop "$S"

# --- bare axum baseline -----------------------------------------------------------------------
PORT=$(free_port)
grundy_start -b "$TARGET/release/examples/bare_axum" -l "$WORK/bare.log" "$PORT" -- "127.0.0.1:$PORT"
B=$STARTED_PID
# bare_axum has no /healthz: wait until its route answers
grundy_wait_ready -d '{"position":[1]}' "$PORT" /v1/welter/value 30 || die "bare_axum did not start"
say "bare axum baseline: wrk -t$THREADS -c$CONNS -d${SECS}s, 8 coins"
measure bare_axum "http://127.0.0.1:$PORT/v1/welter/value" "$B" 8
B_LINE="rps=$R_rps p50_ms=$R_p50_ms p99_ms=$R_p99_ms status_503=$R_status_503 peak_rss_kb=$R_peak_rss_kb"
grundy_stop "$B"

echo "LOADTEST-COMPARE grundy-inline: $G_LINE"
echo "LOADTEST-COMPARE bare_axum: $B_LINE"
echo "LOADTEST-COMPARE throughput_ratio=$(awk -v a="$G_RPS" -v b="$R_rps" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
if [[ ${#fails[@]} -eq 0 ]]; then
  echo "load-test.sh: PASS (only 200/503 at ${CONNS} connections, concurrency ${CONCURRENCY}; shedding seen;" \
    "p99 <= ${MAX_P99_MS} ms; RSS <= ${MAX_RSS_MB} MB; healthy afterwards)"
else
  printf 'load-test.sh: FAIL: %s\n' "${fails[@]}"
  exit 1
fi
