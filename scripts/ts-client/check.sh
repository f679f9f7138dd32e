#!/usr/bin/env bash
# Generated TypeScript client check: `npm ci` (pinned versions in package-lock.json), generate
# gen/grundy.ts from the committed openapi/openapi.json with openapi-typescript, type-check
# check.ts and type-errors.ts with `tsc --noEmit` (type-errors.ts proves the types reject wrong
# requests), compile, and run check.ts with openapi-fetch against the live release server, which
# has an API key file: the client sends the key (GRUNDY_API_KEY).
#
#   scripts/ts-client/check.sh               # ~30 s after the build
#
# Env: CARGO_TARGET_DIR (default target), TS_CLIENT_PROFILE (release|debug, default release).
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
ROOT=$(cd ../.. && pwd)
. "$ROOT/scripts/lib.sh"

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

# the server is stopped, its log shown on failure and WORK removed on exit (lib.sh)
WORK=$(mktemp -d /tmp/grundy-ts.XXXXXX); grundy_rm_on_exit "$WORK"

PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
# API keys: the key file holds the hash; the key goes to check.js in GRUNDY_API_KEY.
"$BIN" keys new --name ts-client --scope jobs >"$WORK/key"
sed -n 2p "$WORK/key" >"$WORK/api-keys"
export GRUNDY_API_KEY; GRUNDY_API_KEY=$(sed -n 1p "$WORK/key")
grundy_start -b "$BIN" -l "$WORK/server.log" "$PORT" GRUNDY_DATABASE_URL="sqlite://$WORK/s.db" RUST_LOG=warn \
  GRUNDY_API_KEYS_FILE="$WORK/api-keys"
grundy_wait_ready "$PORT" /readyz 30 || die "no 200 from $BASE/readyz within 30 s"
say "server up at $BASE"

# --- run -------------------------------------------------------------------------------------
timeout 300 node "$HERE/out/check.js" "$BASE"
