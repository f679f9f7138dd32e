#!/usr/bin/env bash
# Contract fuzzing: Schemathesis against the live release server, every endpoint of the OpenAPI
# document it serves, with every check, plus a curl check that the documented error statuses are
# reachable.
#
#   scripts/schemathesis.sh            # ~5-8 minutes on 2 cores (after the build)
#
# Env: CARGO_TARGET_DIR (default target), ST_MAX_EXAMPLES (default 50 per operation and phase,
#      deterministic run), ST_RANDOM_EXAMPLES (default 30 per operation, random run; 0 skips it),
#      ST_SEED (seed of the random run; default: a fresh one, printed), ST_VENV (default
#      $CARGO_TARGET_DIR/ci-venv).
# Checks: all of them (--checks all) but use_after_free (a DELETE on a running job cancels it and
#         the job stays readable, as documented; see schemathesis.toml), configured by
#         schemathesis.toml: a schema-valid request
#         may be refused only by the operations that have a compute budget, and only with the
#         /problems/budget-exceeded problem — the custom check in scripts/schemathesis_hooks.py
#         holds every 422 to that. Phases: examples, coverage, fuzzing, stateful (links between
#         the octal job operations are inferred from the Location header). Only the job event
#         stream is excluded (see below).
# Two runs: a deterministic one (--generation-deterministic, no seed), then a random one
#         (fuzzing and stateful phases) whose seed is printed so that a failure can be replayed
#         with ST_SEED=<seed>. One worker (two workers are no faster on 2 cores and once hit a
#         CPython 3.11 "AST constructor recursion depth mismatch" race inside schemathesis's
#         coverage phase).
# API keys: the server runs with a key file (made here with `grundy keys new`), as a deployed one
#         does, and Schemathesis sends a `jobs` key (`Authorization: Bearer`) with every request;
#         its ignored_auth check then holds the job operations to a 401 without it. Quotas are
#         off for that key (the fuzzer submits hundreds of jobs); the curl checks below reach the
#         401, 403, 404-for-another's-job and 429 answers with other keys.
# Open mode: a second server runs as the quick start does (loopback, no key file), and its own
#         document — which declares no security — is fuzzed by a third run without a key, every
#         check, on the operations whose description depends on the mode (the job and census
#         operations, tag octal-jobs; every other operation is described and served alike in
#         both modes and fuzzed above). Env: ST_OPEN_EXAMPLES (default 30 per operation).
# Exit status: non-zero on any failure; the last line is a one-line summary.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. scripts/lib.sh

SCHEMATHESIS_VERSION=4.32.5
TARGET=${CARGO_TARGET_DIR:-target}
case $TARGET in /*) ;; *) TARGET=$ROOT/$TARGET ;; esac
VENV=${ST_VENV:-$TARGET/ci-venv}
MAX_EXAMPLES=${ST_MAX_EXAMPLES:-50}
RANDOM_EXAMPLES=${ST_RANDOM_EXAMPLES:-30}
OPEN_EXAMPLES=${ST_OPEN_EXAMPLES:-30}
SEED=${ST_SEED:-$(python3 -c 'import random; print(random.SystemRandom().randrange(2**31))')}
BODY_LIMIT=1048576 # a small body limit so 413 is cheap to reach

say() { printf '== %s\n' "$*"; }
die() { printf 'schemathesis.sh: FAIL: %s\n' "$*" >&2; exit 1; }

# --- tools ------------------------------------------------------------------------------------
if [[ ! -x $VENV/bin/schemathesis ]] || [[ $("$VENV/bin/schemathesis" --version 2>/dev/null) != *"$SCHEMATHESIS_VERSION"* ]]; then
  say "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
"$VENV/bin/schemathesis" --version

say "building the release binary"
cargo build --release --bin grundy --quiet
BIN=$TARGET/release/grundy

# --- server -----------------------------------------------------------------------------------
# the server is stopped, its log shown on failure and WORK removed on exit (lib.sh)
WORK=$(mktemp -d /tmp/grundy-st.XXXXXX); grundy_rm_on_exit "$WORK"

PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
# Smaller compute budgets than the defaults keep each request short; going over one is answered
# with the /problems/budget-exceeded problem, which the configuration allows on exactly those
# operations. Small value downloads: a fuzzed count must not stream 10^9 values past the request
# timeout. The limits the schema states (GRUNDY_MAX_COINS, GRUNDY_OCTAL_MAX_N, ...) keep
# their defaults, so the schema and the server agree. No job workers: jobs stay queued (the job
# operations are tested as a contract; tests/jobs_api.rs runs them), so the fuzzer's jobs of up
# to 1,000,000,000 values do not compete with it for the CPU.
# Keys: st (jobs, no quotas: the fuzzer's), other (jobs), reader (jobs:read), tight (jobs, one
# active job at most).
new_key() { # new_key NAME SCOPE [QUOTAS]: appends the key-file line, prints the key
  "$BIN" keys new --name "$1" --scope "$2" >"$WORK/$1.key"
  echo "$(sed -n 2p "$WORK/$1.key") ${3:-}" >>"$WORK/api-keys"
  sed -n 1p "$WORK/$1.key"
}
KEY=$(new_key st jobs "active_jobs=0 heaps_per_day=0")
OTHER_KEY=$(new_key other jobs)
READER_KEY=$(new_key reader jobs:read)
TIGHT_KEY=$(new_key tight jobs active_jobs=1)
grundy_start -b "$BIN" -l "$WORK/server.log" "$PORT" \
  GRUNDY_DATABASE_URL="sqlite://$WORK/s.db" GRUNDY_MAX_BODY_BYTES=$BODY_LIMIT GRUNDY_VALUES_MAX_COUNT=100000 \
  GRUNDY_OCTAL_SYNC_MS=2000 GRUNDY_MISERE_JOB_SECS=5 GRUNDY_SEARCH_MAX_STEPS=2000000 GRUNDY_JOB_WORKERS=0 RUST_LOG=warn \
  GRUNDY_API_KEYS_FILE="$WORK/api-keys"
SERVER_PID=$STARTED_PID
grundy_wait_ready "$PORT" /healthz 30 || die "no 200 from $BASE/healthz within 30 s"
say "server up at $BASE (pid $SERVER_PID)"

# --- documented error statuses are reachable ------------------------------------------------------
say "documented error statuses"
curl_fail=0
# expect STATUS CONTENT_TYPE_PREFIX METHOD PATH [curl args...]
expect() {
  local want=$1 ctype=$2 method=$3 path=$4; shift 4
  local out got gotct
  out=$(curl -sS -o "$WORK/body" -w '%{http_code} %{content_type}' --max-time 10 -X "$method" "$@" "$BASE$path") || out="000 -"
  got=${out%% *}; gotct=${out#* }
  if [[ $got == "$want" && $gotct == "$ctype"* ]]; then
    printf '  ok   %s %-32s -> %s %s\n' "$method" "$path" "$got" "$gotct"
  else
    printf '  FAIL %s %-32s -> %s %s (expected %s %s): %s\n' "$method" "$path" "$got" "$gotct" "$want" "$ctype" \
      "$(head -c 300 "$WORK/body")"
    curl_fail=$((curl_fail + 1))
  fi
}
J=(-H 'content-type: application/json')
PJ=application/problem+json
expect 200 application/json POST /v1/welter/value "${J[@]}" -d '{"position":[1,3,7,8,11,19]}'
expect 400 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": [1, 2'
expect 400 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": "1,2,3"}'
expect 400 $PJ POST /v1/welter/value "${J[@]}" -d '[1, 2, 3]'
expect 400 $PJ POST /v1/welter/value "${J[@]}" -d ''
expect 422 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": [4, 2, 4]}'
expect 422 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": [-1]}'
expect 422 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": [1.5]}'
expect 422 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": [18446744073709551616]}'
expect 422 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": [1], "extra": 1}'
expect 422 $PJ POST /v1/welter/value "${J[@]}" -d '{"position": [1], "play": "sideways"}'
expect 422 $PJ POST /v1/welter/winning-moves "${J[@]}" -d '{"position": [3, 3]}'
expect 422 $PJ POST /v1/welter/primes "${J[@]}" -d '{"position": [1, 5, 7]}'
expect 422 $PJ POST /v1/max-welter/value "${J[@]}" -d '{"position": [5, 5]}'
expect 422 $PJ POST /v1/antonim/value "${J[@]}" -d '{"position": [2, 2]}'
expect 422 $PJ POST /v1/antimatter/value "${J[@]}" -d '{"positrons": [1, 1], "electrons": [2]}'
expect 422 $PJ POST /v1/transfinite/nim/value "${J[@]}" -d '{"position": ["w+"]}'
expect 422 $PJ POST /v1/transfinite/welter/value "${J[@]}" -d '{"position": ["w", "w"]}'
# 413: a syntactically valid body just over the configured limit.
python3 -c "import sys; n=$BODY_LIMIT; sys.stdout.write('{\"position\":[' + ','.join(str(i) for i in range(n // 4)) + ']}')" >"$WORK/big.json"
expect 413 $PJ POST /v1/welter/value "${J[@]}" --data-binary "@$WORK/big.json"
expect 415 $PJ POST /v1/welter/value -H 'content-type: text/plain' -d '{"position": [1]}'
K=(-H "authorization: Bearer $KEY")
expect 422 $PJ GET '/v1/octal/jobs?limit=681250655567' "${K[@]}"
expect 422 $PJ GET '/v1/octal/jobs?owner=-x' "${K[@]}"
expect 401 $PJ GET /v1/octal/jobs
expect 401 $PJ GET /v1/octal/jobs -H "authorization: Bearer ${KEY}x"
expect 401 $PJ POST /v1/octal/jobs "${J[@]}" -d '{"code": "0.6", "max_n": 10}' -H 'authorization: Basic c3Q6c3Q='
expect 403 $PJ POST /v1/octal/jobs "${J[@]}" -d '{"code": "0.6", "max_n": 10}' -H "authorization: Bearer $READER_KEY"
expect 202 application/json POST /v1/octal/jobs "${J[@]}" -d '{"code": "0.6", "max_n": 10}' -H "authorization: Bearer $TIGHT_KEY"
expect 429 $PJ POST /v1/octal/jobs "${J[@]}" -d '{"code": "0.6", "max_n": 10}' -H "authorization: Bearer $TIGHT_KEY"
tight_job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["id"])' \
  <(curl -fsS -H "authorization: Bearer $TIGHT_KEY" "$BASE/v1/octal/jobs"))
expect 404 $PJ GET "/v1/octal/jobs/$tight_job" -H "authorization: Bearer $OTHER_KEY"
expect 404 $PJ DELETE "/v1/octal/jobs/$tight_job" -H "authorization: Bearer $OTHER_KEY"
expect 200 application/json GET "/v1/octal/jobs/$tight_job" -H "authorization: Bearer $TIGHT_KEY"
# Censuses: a key's own (201, Location), refused whole past a quota (tight already has its one
# active job), another key's answered 404, no key 401, a read-only key 403.
C='{"codes": ["0.6", "0.07"], "max_n": 10}'
expect 201 application/json POST /v1/octal/census "${J[@]}" -d "$C" -H "authorization: Bearer $OTHER_KEY"
other_census=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/body")
expect 429 $PJ POST /v1/octal/census "${J[@]}" -d "$C" -H "authorization: Bearer $TIGHT_KEY"
expect 401 $PJ POST /v1/octal/census "${J[@]}" -d "$C"
expect 403 $PJ POST /v1/octal/census "${J[@]}" -d "$C" -H "authorization: Bearer $READER_KEY"
expect 422 $PJ POST /v1/octal/census "${J[@]}" -d '{"codes": ["0.6", "nope"], "max_n": 10}' "${K[@]}"
expect 404 $PJ GET "/v1/octal/census/$other_census" -H "authorization: Bearer $TIGHT_KEY"
expect 404 $PJ DELETE "/v1/octal/census/$other_census" -H "authorization: Bearer $TIGHT_KEY"
expect 200 text/csv GET "/v1/octal/census/$other_census" -H "authorization: Bearer $OTHER_KEY" -H 'accept: text/csv'
# Misère quotients by a job ("async": true): a job submission like any other.
M='{"code": "0.07", "max_heap": 40, "async": true}'
expect 401 $PJ POST /v1/octal/misere/quotient "${J[@]}" -d "$M"
expect 403 $PJ POST /v1/octal/misere/quotient "${J[@]}" -d "$M" -H "authorization: Bearer $READER_KEY"
expect 429 $PJ POST /v1/octal/misere/quotient "${J[@]}" -d "$M" -H "authorization: Bearer $TIGHT_KEY"
expect 202 application/json POST /v1/octal/misere/quotient "${J[@]}" -d "$M" -H "authorization: Bearer $OTHER_KEY"
expect 202 application/json GET '/v1/octal/misere/quotient?code=0.07&max_heap=40'
expect 422 $PJ GET '/v1/octal/jobs?kind=census' "${K[@]}"
expect 200 text/html GET /problems/unauthorized
expect 200 text/html GET /problems/invalid-value
expect 200 text/html GET /problems/budget-exceeded
expect 404 $PJ GET /v1/nope
expect 405 $PJ GET /v1/welter/value
curl -fsS -o /dev/null --max-time 2 "$BASE/healthz" || die "server unhealthy after the error-status checks"

# --- schemathesis ---------------------------------------------------------------------------------
# run from the work directory: schemathesis and hypothesis write .schemathesis/ and .hypothesis/
# into the current directory, which must not be the repository
# Not fuzzed: the job event stream (a queued job's stream stays open by design, and the server
# below runs no job workers); tests/jobs_api.rs covers it. The values download and the batches
# are fuzzed with the rules of schemathesis.toml and the hooks (a 409 for a range not computed
# yet; per-item problems inside a batch's 200).
# ST_URL: the server fuzzed (its own /openapi.json); ST_AUTH: the header arguments sent with every
# request (the keyed server's key; none for the open one).
ST_URL=$BASE
ST_AUTH=(--header "Authorization: Bearer $KEY")
st() { # st NAME ARGS...: one schemathesis run; schema-valid requests refused go to refused-NAME.tsv
  local name=$1; shift
  (cd "$WORK" && PYTHONPATH="$ROOT/scripts" SCHEMATHESIS_HOOKS=schemathesis_hooks ST_REFUSALS="$WORK/refused-$name.tsv" timeout 900 \
    "$VENV/bin/schemathesis" --config-file "$ROOT/schemathesis.toml" run "$ST_URL/openapi.json" \
    --checks all --exclude-checks use_after_free \
    "${ST_AUTH[@]}" \
    --exclude-operation-id-regex '^(octal_job_events)$' \
    --workers 1 \
    --request-timeout 20 \
    --suppress-health-check too_slow,filter_too_much,data_too_large,large_base_example \
    --no-color --output-truncate false "$@")
}
# Schema-valid requests the server refused in run NAME, by operation and problem type.
refusals() {
  local f="$WORK/refused-$1.tsv"
  local n=0; [[ -f $f ]] && n=$(wc -l <"$f")
  echo "schema-valid requests refused in the $1 run: $n"
  [[ -f $f ]] && cut -f1,2 "$f" | sort | uniq -c | sed 's/^/    /'
  return 0
}
say "schemathesis run 1: every check, max-examples=$MAX_EXAMPLES, deterministic generation"
ST_START=$(date +%s)
st_rc=0
st deterministic --phases examples,coverage,fuzzing,stateful --max-examples "$MAX_EXAMPLES" --generation-deterministic \
  --report junit --report-dir "$WORK/report" || st_rc=$?
ST_SECS=$(( $(date +%s) - ST_START ))
refusals deterministic
st2_rc=0
ST2_SECS=0
if [[ $RANDOM_EXAMPLES -gt 0 ]]; then
  say "schemathesis run 2: every check, max-examples=$RANDOM_EXAMPLES, random generation, seed $SEED (replay: ST_SEED=$SEED)"
  ST2_START=$(date +%s)
  st random --phases fuzzing,stateful --max-examples "$RANDOM_EXAMPLES" --seed "$SEED" \
    --report junit --report-dir "$WORK/report-random" || st2_rc=$?
  ST2_SECS=$(( $(date +%s) - ST2_START ))
  refusals random
fi
# keep the JUnit report (the work directory is removed on exit)
for f in "$WORK"/report/junit*.xml; do
  if [[ -f $f ]]; then mkdir -p "$TARGET/schemathesis-report"; cp "$f" "$TARGET/schemathesis-report/junit.xml"; fi
done

alive=ok
curl -fsS -o /dev/null --max-time 2 "$BASE/healthz" || alive=DOWN

# --- open mode ------------------------------------------------------------------------------------
say "open mode: a server on loopback without a key file (the quick start), its own document"
OPEN_PORT=$(free_port)
OPEN=http://127.0.0.1:$OPEN_PORT
grundy_start -b "$BIN" -l "$WORK/open.log" "$OPEN_PORT" \
  GRUNDY_DATABASE_URL="sqlite://$WORK/o.db" GRUNDY_MAX_BODY_BYTES=$BODY_LIMIT GRUNDY_VALUES_MAX_COUNT=100000 \
  GRUNDY_OCTAL_SYNC_MS=2000 GRUNDY_MISERE_JOB_SECS=5 GRUNDY_SEARCH_MAX_STEPS=2000000 GRUNDY_JOB_WORKERS=0 RUST_LOG=warn
OPEN_PID=$STARTED_PID
grundy_wait_ready "$OPEN_PORT" /healthz 30 || die "no 200 from $OPEN/healthz within 30 s"
# The two documents: security on exactly the job operations with keys, on none without.
modes_rc=0
python3 - "$BASE/openapi.json" "$OPEN/openapi.json" <<'PY' || modes_rc=$?
import json, sys, urllib.request
def secured(url):
    doc = json.load(urllib.request.urlopen(url))
    ops = {(m, p) for p, o in doc["paths"].items() for m, op in o.items() if "security" in op}
    return doc, ops
keyed, keyed_ops = secured(sys.argv[1])
open_doc, open_ops = secured(sys.argv[2])
jobs = {(m, p) for p, o in keyed["paths"].items() for m, op in o.items() if "octal-jobs" in op.get("tags", [])}
ok = keyed_ops and keyed_ops <= jobs and not open_ops and "api_key" not in open_doc.get("components", {}).get("securitySchemes", {})
print(f"  keyed document: security on {len(keyed_ops)} job operations; open document: on {len(open_ops)}")
sys.exit(0 if ok else 1)
PY
st3_rc=0
ST3_SECS=0
if [[ $OPEN_EXAMPLES -gt 0 ]]; then
  say "schemathesis run 3: open mode, no key, every check, tag octal-jobs, max-examples=$OPEN_EXAMPLES, deterministic generation"
  ST3_START=$(date +%s)
  ST_URL=$OPEN ST_AUTH=()
  st open --include-tag octal-jobs --phases examples,coverage,fuzzing,stateful --max-examples "$OPEN_EXAMPLES" \
    --generation-deterministic || st3_rc=$?
  ST3_SECS=$(( $(date +%s) - ST3_START ))
  refusals open
fi
curl -fsS -o /dev/null --max-time 2 "$OPEN/healthz" || alive=DOWN

if [[ $st_rc -eq 0 && $st2_rc -eq 0 && $st3_rc -eq 0 && $modes_rc -eq 0 && $curl_fail -eq 0 && $alive == ok ]]; then
  if grep -qF -e "$KEY" -e "$OTHER_KEY" -e "$READER_KEY" -e "$TIGHT_KEY" "$WORK/server.log"; then
    echo "schemathesis.sh: FAIL: an API key is in the server's log"; exit 1
  fi
  echo "schemathesis.sh: PASS (schemathesis $SCHEMATHESIS_VERSION, --checks all: with an API key deterministic ${ST_SECS}s and random seed $SEED ${ST2_SECS}s; open mode ${ST3_SECS}s; error-status checks 0 failed, servers healthy)"
else
  echo "schemathesis.sh: FAIL (keyed deterministic run exit $st_rc, keyed random run (seed $SEED) exit $st2_rc, open-mode run exit $st3_rc, documents per mode exit $modes_rc, error-status checks $curl_fail failed, servers $alive)"
  exit 1
fi
