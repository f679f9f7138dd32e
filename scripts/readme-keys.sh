#!/usr/bin/env bash
# README's API-key walkthrough ("### API keys: whose jobs are whose"), run exactly as README
# shows it: its first `sh` block is cut out of README.md and run by bash with `set -euo
# pipefail`, in a fresh temporary directory standing for the repository root, with the built
# binary first on PATH as "Quick start" says. The one change is the port: the walkthrough's 8081
# becomes a free one, so a server already there is not asked. Then it checks what the walkthrough
# says: everything it wrote is under walkthrough/ (which .gitignore ignores: the key files,
# alice.txt, the store), the key file holds alice's and ops's lines, the last curl answers
# alice's jobs (key_name and owner "alice"), a request without a key is a 401, and the admin key
# ops sees every owner's jobs. Fails (exit 1) when any step fails.
#
#   scripts/readme-keys.sh                      # the release binary (CI: built by then)
#   READMEKEYS_PROFILE=debug scripts/readme-keys.sh
#
# Env: CARGO_TARGET_DIR (default target), READMEKEYS_PROFILE (release|debug).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

grundy_target
PROFILE=${READMEKEYS_PROFILE:-release}
die() { printf 'readme-keys.sh: FAIL: %s\n' "$*" >&2; exit 1; }

grundy_build "$PROFILE"
BIN_DIR=$TARGET/$PROFILE
[[ -x $BIN_DIR/grundy ]] || die "no binary at $BIN_DIR/grundy"

WORK=$(mktemp -d /tmp/grundy-readme-keys.XXXXXX); grundy_rm_on_exit "$WORK"
PORT=$(free_port)

# The block, as README shows it.
awk '/^### API keys: whose jobs are whose/ { seen = 1 }
     seen && !inside && /^```sh$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' README.md >"$WORK/readme-block.sh"
grep -q 'grundy keys new --name alice' "$WORK/readme-block.sh" \
  || die "README's API-key walkthrough not found (heading '### API keys: whose jobs are whose', then a sh block)"
printf '== README walkthrough (port 8081 -> %s):\n' "$PORT"
sed 's/^/   | /' "$WORK/readme-block.sh"

{
  # Harness (not README's text): the server the walkthrough starts in the background is
  # stopped when the walkthrough ends, however it ends.
  echo 'trap '"'"'kill $(jobs -p) 2>/dev/null || true'"'"' EXIT'
  sed "s/8081/$PORT/g" "$WORK/readme-block.sh"
  # Harness checks, in the walkthrough's shell (its server and $ALICE_KEY still there).
  cat <<CHECKS
echo
test "\$(curl -s -o /dev/null -w '%{http_code}' localhost:$PORT/v1/octal/jobs)" = 401
OPS_KEY=\$(sed -n 1p ops.txt)
curl -sf localhost:$PORT/v1/octal/jobs -H "authorization: Bearer \$OPS_KEY" >ops.json
curl -sf localhost:$PORT/v1/octal/jobs -H "authorization: Bearer \$ALICE_KEY" >alice.json
CHECKS
} >"$WORK/run.sh"

# Quiet server logs: only the walkthrough's own output on stdout.
mkdir "$WORK/root"
if ! (cd "$WORK/root" && PATH="$BIN_DIR:$PATH" RUST_LOG=warn bash -euo pipefail ../run.sh >../out.txt 2>../err.txt); then
  cat "$WORK/out.txt" "$WORK/err.txt" >&2 || true
  die "a step of README's walkthrough failed (above)"
fi
# Nothing outside walkthrough/, and git ignores walkthrough/.
[[ $(ls -A "$WORK/root") == walkthrough ]] || die "the walkthrough wrote outside walkthrough/: $(ls -A "$WORK/root")"
git check-ignore -q walkthrough/keys || die ".gitignore does not ignore walkthrough/"

python3 - "$WORK" <<'PY'
import json, sys, pathlib
work = pathlib.Path(sys.argv[1])
def fail(msg):
    print(f"readme-keys.sh: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)
walk = work / "root" / "walkthrough"
keys = [l for l in (walk / "keys").read_text().splitlines() if l.strip()]
names = [l.split()[0] for l in keys]
if names != ["alice", "ops"]:
    fail(f"the key file holds {names}, not alice's and ops's lines")
if keys[1].split()[1] != "jobs,admin":
    fail(f"ops's scopes: {keys[1]}")
out = (work / "out.txt").read_text()
at = out.find('{"jobs"')
if at < 0:
    fail(f"the walkthrough's last curl printed no job list: {out!r}")
shown, _ = json.JSONDecoder().raw_decode(out[at:])
if shown.get("key_name") != "alice" or shown.get("owner") != "alice":
    fail(f"README's last curl should list alice's jobs only: {shown}")
again = json.loads((walk / "alice.json").read_text())
ops = json.loads((walk / "ops.json").read_text())
if ops.get("key_name") != "ops" or ops.get("owner") is not None:
    fail(f"the admin key ops lists every owner's jobs: {ops}")
print(f"readme-keys: ok (alice: {again.get('total', len(again['jobs']))} jobs; ops, admin: every owner's)")
PY
