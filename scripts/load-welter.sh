#!/usr/bin/env bash
# HTTP load test: grundy's /v1/welter/value vs a bare axum JSON endpoint, same machine, same run.
# NOTE: wrk and both servers share all cores here, so the load generator can be the bottleneck
# and the ratio flatters grundy; for the hot-path ratio use scripts/hotpath-bench.sh (pinned cores).
# Needs wrk (Debian package `wrk`). Usage: scripts/load-welter.sh [seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
secs="${1:-15}"; conns="${2:-64}"
command -v wrk >/dev/null || { echo "wrk is required: apt-get install -y wrk" >&2; exit 1; }
cargo build --release --bin grundy --example bare_axum >/dev/null 2>&1
# both stopped on exit (lib.sh)
grundy_start -b ./target/release/grundy 18080 GRUNDY_DATABASE_URL=none RUST_LOG=warn
grundy_start -b ./target/release/examples/bare_axum 18090 -- 127.0.0.1:18090
grundy_wait_ready 18080 /healthz 10
grundy_wait_ready -d '{"position":[1]}' 18090 /v1/welter/value 10
run() { wrk -t1 -c"$conns" -d"${secs}s" -s scripts/welter8.lua "$1" | grep RESULT | sed "s|^RESULT|$2|"; }
for round in 1 2; do
  run http://127.0.0.1:18090/v1/welter/value "bare-axum     "
  run http://127.0.0.1:18080/v1/welter/value "grundy(random)"
  FIXED=1 run http://127.0.0.1:18080/v1/welter/value "grundy(cached)"
done
