#!/usr/bin/env bash
# Store size: bytes per value the store keeps for a few games (narrow chunks, byte planes, zstd).
#  1. examples/store_size: computes each game to N heaps, saves it through Store::save_sequence
#     into a fresh SQLite file, prints stored bytes per value (sum of length(data) over the
#     game's chunks), the order-0 entropy bound, other zstd levels, and the load time;
#  2. the same through a job on a running server (the checkpoint path): .6 to N heaps, then the
#     bytes of its rows of sequence_chunks and the size of the database file.
# Usage: scripts/store-bench.sh [N] [CODE ...]   (default 1000000; .6 .007 .137 .156)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
n="${1:-1000000}"; shift || true
codes=("$@"); [ ${#codes[@]} -gt 0 ] || codes=(0.6 0.007 0.137 0.156)
cargo build --release --bin grundy --example store_size >/dev/null 2>&1
target="${CARGO_TARGET_DIR:-target}/release"
tmp=$(mktemp -d); grundy_rm_on_exit "$tmp"; port=18391; base="http://127.0.0.1:$port" # tmp removed, server stopped on exit (lib.sh)

echo "== store_size --n $n ${codes[*]}"
"$target/examples/store_size" --n "$n" "${codes[@]}"

echo "== .6 to $n heaps as a job (SQLite, checkpoint every 2 s)"
grundy_start -b "$target/grundy" -l "$tmp/log" "$port" GRUNDY_DATABASE_URL="sqlite://$tmp/jobs.db" GRUNDY_JOB_WORKERS=1 \
  RUST_LOG=warn
grundy_wait_ready "$port" /readyz 5
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
id=$(curl -fsS "$base/v1/octal/jobs" -H 'content-type: application/json' -d "{\"code\":\"0.6\",\"max_n\":$n}" | field 'd["id"]')
while [ "$(curl -fsS "$base/v1/octal/jobs/$id" | field 'd["status"]')" != "done" ]; do sleep 0.2; done
grundy_stop "$STARTED_PID"
python3 - "$tmp/jobs.db" "$n" <<'PY'
import os, sqlite3, sys
db, n = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
b, k, f = c.execute("SELECT SUM(length(data)), COUNT(*), MIN(format) FROM sequence_chunks WHERE code = '0.6'").fetchone()
c.execute("VACUUM")
c.close()
size = os.path.getsize(db)
print(f"job .6: {k} chunks (format {f}), {b} bytes of values = {b / n:.3f} B/value "
      f"(u32 chunks: 4.000); database file after VACUUM: {size} bytes = {size / n:.3f} B/value")
PY
