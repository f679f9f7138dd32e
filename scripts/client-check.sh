#!/usr/bin/env bash
# Generated-client check: generates a Python client from the committed openapi/openapi.json with
# openapi-python-client (pinned in scripts/client/requirements.txt; the code goes to a temporary
# directory, never committed) and runs scripts/client/check_client.py with it against the live
# release server: Welter value and winning move, misère moves, primes, a 422 problem, transfinite
# Welter, and the octal sequence of 0.07 when the document has that endpoint; and pydantic models
# generated from the same document (datamodel-code-generator) refuse out-of-range values and
# malformed game codes before anything is sent. The server runs with an API key file (made with
# `grundy keys new`); the job calls send the key (GRUNDY_API_KEY) through the generated
# AuthenticatedClient, and a job call without it must answer 401.
#
#   scripts/client-check.sh          # ~20 s after the build
#
# Env: CARGO_TARGET_DIR (default target), CLIENT_VENV (default $CARGO_TARGET_DIR/ci-client-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. scripts/lib.sh

grundy_target
VENV=${CLIENT_VENV:-$TARGET/ci-client-venv}
REQS=$ROOT/scripts/client/requirements.txt
SPEC=$ROOT/openapi/openapi.json

say() { printf '== %s\n' "$*"; }
die() { printf 'client-check.sh: FAIL: %s\n' "$*" >&2; exit 1; }

# --- tools ------------------------------------------------------------------------------------
grundy_venv "$VENV" "$REQS"
"$VENV/bin/openapi-python-client" --version

say "building the release binary"
cargo build --release --bin grundy --quiet
BIN=$TARGET/release/grundy

# the server is stopped, its log shown on failure and WORK removed on exit (lib.sh)
WORK=$(mktemp -d /tmp/grundy-client.XXXXXX); grundy_rm_on_exit "$WORK"

# --- generate ---------------------------------------------------------------------------------
say "generating the client from openapi/openapi.json"
# The committed document must be what the binary generates (a cargo test checks it too).
"$BIN" openapi >"$WORK/generated.json"
python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); sys.exit(a!=b)' "$SPEC" "$WORK/generated.json" \
  || die "openapi/openapi.json differs from \`grundy openapi\`"
mkdir -p "$WORK/gen"
(cd "$WORK" && timeout 120 "$VENV/bin/openapi-python-client" generate --path "$SPEC" --meta none \
  --config "$ROOT/scripts/client/config.yml" --output-path "$WORK/gen/grundy_client" >"$WORK/generate.log" 2>&1) \
  || { cat "$WORK/generate.log"; die "openapi-python-client could not generate the client"; }
if grep -q 'Warning' "$WORK/generate.log"; then
  cat "$WORK/generate.log"; die "openapi-python-client warned: parts of the client may be missing"
fi
echo "generated $(find "$WORK/gen/grundy_client" -name '*.py' | wc -l) Python files"
# Validating request models (pydantic) from the same document: openapi-python-client carries
# the schema's ranges and patterns into its models only as types, so the check uses these to
# refuse out-of-range values before sending.
(cd "$WORK" && timeout 120 "$VENV/bin/datamodel-codegen" --input "$SPEC" --input-file-type openapi \
  --output "$WORK/gen/grundy_models.py" --output-model-type pydantic_v2.BaseModel --field-constraints \
  >"$WORK/models.log" 2>&1) || { cat "$WORK/models.log"; die "datamodel-codegen could not generate the models"; }

# --- server -----------------------------------------------------------------------------------
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
# API keys: the key file holds the hash; the key goes to the check in GRUNDY_API_KEY.
"$BIN" keys new --name client-check --scope jobs >"$WORK/key"
sed -n 2p "$WORK/key" >"$WORK/api-keys"
export GRUNDY_API_KEY; GRUNDY_API_KEY=$(sed -n 1p "$WORK/key")
grundy_start -b "$BIN" -l "$WORK/server.log" "$PORT" GRUNDY_DATABASE_URL="sqlite://$WORK/s.db" RUST_LOG=warn \
  GRUNDY_API_KEYS_FILE="$WORK/api-keys"
grundy_wait_ready "$PORT" /healthz 30 || die "no 200 from $BASE/healthz within 30 s"
say "server up at $BASE"

# --- run --------------------------------------------------------------------------------------
timeout 300 "$VENV/bin/python" "$ROOT/scripts/client/check_client.py" "$WORK/gen" "$BASE" "$SPEC" \
  || die "the generated client check failed"
echo "client-check.sh: PASS (openapi-python-client $("$VENV/bin/openapi-python-client" --version | awk '{print $NF}'))"
