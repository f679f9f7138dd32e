#!/usr/bin/env bash
# Real-browser check of the pages at / : headless Debian Chromium driven by Selenium
# (scripts/browser/check_pages.py) against a live server with a temporary SQLite store, after
# scripts/browser/rules-check.mjs has checked the pages' move rules against the engine. It plays
# Welter to the end both ways, a sum of octal heaps, plots 0.07 to 10^6 and checks the marked
# period and preperiod, runs and cancels jobs, starts a small census and watches its rows to done
# (0.07 verified by a second run, 0.6 with its histogram), opens every kind of address directly
# (#explore?code=…&n=…&misere=…, #jobs/{id} and #census/{id} of real ones, live while they run,
# deleted ones, another key's census, bad parameters) and walks back through them, checks the
# census table's width at 1400 px and at phone width (its caption whole), a job ended by a proof
# (done, a full bar) and one without (no period up to N), the Jobs page's page number in the
# address (restored on load), one meaning of "rare" (the explorer's frequency view is "uncommon"),
# the job histogram's axes, and that no word is broken across lines; opens /docs, and repeats at
# phone width; the browser console must stay free of errors. Screenshots go to
# ci-artifacts/screenshots/ (docs/img/pages.png, README's picture, is 00-readme-pages.png).
#
#   scripts/browser-check.sh                 # release build (CI); ~2 min after the build
#   BROWSER_PROFILE=debug scripts/browser-check.sh
#
# Installs what it needs, idempotently: Debian `chromium` + `chromium-driver` (apt-get) and
# Selenium (pinned in scripts/browser/requirements.txt) in a venv under the target directory.
# Env: CARGO_TARGET_DIR (default target), BROWSER_VENV, BROWSER_PROFILE (release|debug),
#      SCREENSHOTS (default ci-artifacts/screenshots).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. scripts/lib.sh

grundy_target
VENV=${BROWSER_VENV:-$TARGET/ci-browser-venv}
REQS=$ROOT/scripts/browser/requirements.txt
PROFILE=${BROWSER_PROFILE:-release}
SHOTS=${SCREENSHOTS:-$ROOT/ci-artifacts/screenshots}

say() { printf '== %s\n' "$*"; }
die() { printf 'browser-check.sh: FAIL: %s\n' "$*" >&2; exit 1; }

# --- tools ------------------------------------------------------------------------------------
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  say "installing chromium and chromium-driver (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
chromium --version 2>/dev/null | head -n1
chromedriver --version | head -n1

grundy_venv "$VENV" "$REQS"

say "building the $PROFILE binary"
grundy_build "$PROFILE"
BIN=$TARGET/$PROFILE/grundy

# the server is stopped, its log shown on failure and WORK removed on exit (lib.sh)
WORK=$(mktemp -d /tmp/grundy-browser.XXXXXX); grundy_rm_on_exit "$WORK"

# --- server -----------------------------------------------------------------------------------
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
grundy_start -b "$BIN" -l "$WORK/server.log" "$PORT" GRUNDY_DATABASE_URL="sqlite://$WORK/s.db" RUST_LOG=warn
grundy_wait_ready "$PORT" /readyz 30 || die "no 200 from $BASE/readyz within 30 s"
say "server up at $BASE"

# --- run --------------------------------------------------------------------------------------
# A second server with an API key file: the Jobs page must ask for a key (KEYED_BASE, KEYED_KEY),
# and a census of another key (KEYED_OTHER_KEY) must be refused by its address.
"$BIN" keys new --name browser --scope jobs >"$WORK/key"
"$BIN" keys new --name other --scope jobs >"$WORK/other-key"
{ sed -n 2p "$WORK/key"; sed -n 2p "$WORK/other-key"; } >"$WORK/api-keys"
KEYED_PORT=$(free_port)
grundy_start -b "$BIN" -l "$WORK/keyed.log" "$KEYED_PORT" GRUNDY_DATABASE_URL="sqlite://$WORK/k.db" RUST_LOG=warn \
  GRUNDY_API_KEYS_FILE="$WORK/api-keys"
grundy_wait_ready "$KEYED_PORT" /readyz 30 || die "the server with API keys did not start"
export KEYED_BASE=http://127.0.0.1:$KEYED_PORT KEYED_KEY KEYED_OTHER_KEY
KEYED_KEY=$(sed -n 1p "$WORK/key"); KEYED_OTHER_KEY=$(sed -n 1p "$WORK/other-key")

say "web/rules.js against the engine (node)"
timeout 120 node "$ROOT/scripts/browser/rules-check.mjs" "$BASE"
rm -rf "$SHOTS"
mkdir -p "$SHOTS"
# Selenium must use the Debian chromedriver and never try to download one.
export SE_OFFLINE=true
timeout 900 "$VENV/bin/python" "$ROOT/scripts/browser/check_pages.py" "$BASE" "$SHOTS"
