#!/usr/bin/env bash
# Generated TypeScript client check: `npm ci` (pinned versions in package-lock.json), generate
# gen/grundy.ts from the committed openapi/openapi.json with openapi-typescript, type-check
# check.ts and type-errors.ts with `tsc --noEmit` (type-errors.ts proves the types reject wrong
# requests), compile, and run check.ts with openapi-fetch against the live release server.
#
#   scripts/ts-client/check.sh               # ~30 s after the build
#
# Env: CARGO_TARGET_DIR (default target), TS_CLIENT_PROFILE (release|debug, default release).
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
ROOT=$(cd ../.. && pwd)

TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
PROFILE=${TS_CLIENT_PROFILE:-release}

say() { printf '== %s\n' "$*"; }
die() { printf 'ts-client/check.sh: FAIL: %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null || die "node is not installed (Node 20 or later is needed)"
say "node $(node --version), npm $(npm --version 2>/dev/null)"

# --- tools, types, compile -------------------------------------------------------------------
if [[ ! -f node_modules/.package-lock.json ]] || ! cmp -s package-lock.json node_modules/.ci-lock; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.ci-lock
fi
rm -rf gen out
say "generating gen/grundy.ts from openapi/openapi.json"
npx --no-install openapi-typescript "$ROOT/openapi/openapi.json" --output gen/grundy.ts
say "tsc --noEmit"
npx --no-install tsc --noEmit -p tsconfig.json
npx --no-install tsc -p tsconfig.json --outDir out

# --- server ----------------------------------------------------------------------------------
say "building the $PROFILE binary"
if [[ $PROFILE == release ]]; then
  (cd "$ROOT" && cargo build --release --bin grundy --quiet)
else
  (cd "$ROOT" && cargo build --bin grundy --quiet)
fi
BIN=$TARGET/$PROFILE/grundy

WORK=$(mktemp -d /tmp/grundy-ts.XXXXXX)
SERVER_PID=
cleanup() {
  local rc=$?
  if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ $rc -ne 0 && -s $WORK/server.log ]]; then
    echo "--- last server log lines"; tail -n 30 "$WORK/server.log"
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE=http://127.0.0.1:$PORT
GRUNDY_ADDR=127.0.0.1:$PORT GRUNDY_DATABASE_URL="sqlite://$WORK/s.db" RUST_LOG=warn "$BIN" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 300); do # at most 30 s
  curl -fsS -o /dev/null --max-time 1 "$BASE/readyz" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || die "the server exited at start-up"
  sleep 0.1
done
curl -fsS -o /dev/null --max-time 2 "$BASE/readyz" || die "no 200 from $BASE/readyz within 30 s"
say "server up at $BASE"

# --- run -------------------------------------------------------------------------------------
timeout 300 node "$HERE/out/check.js" "$BASE"
