#!/usr/bin/env bash
# The container image run as a deployment runs it — on 0.0.0.0, its own environment, as its own
# user — first without keys (job writes refused, and the start-up log says so), then with a key
# file mounted at /run/secrets/grundy-api-keys (GRUNDY_API_KEYS_FILE, as docker/compose.yaml
# mounts docker/api-keys): a job needs the key, another key's job is 404, and the key is in no log.
#
#   bash ../shared/container-check.sh && docker/keys-check.sh    (as root, from the project root)
#
# It runs the image that container-check.sh builds (grundy:container-check, or $IMAGE) the same
# way, under chroot with its exported root file system (no OCI runtime needed); the key file is
# bind-mounted read-only into it.
set -euo pipefail
[ -f Dockerfile ] || { echo "keys-check: run it from the project root"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "keys-check: needs root (podman, chroot, mount)"; exit 2; }
image=${IMAGE:-grundy:container-check}
podman image exists "$image" || { echo "keys-check: no image $image (run container-check.sh first)"; exit 2; }
work=$(mktemp -d /tmp/keys-check.XXXXXX)
root=$work/rootfs
pid=
stop() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; fi; }
cleanup() {
  stop
  umount "$root/run/secrets/grundy-api-keys" "$root/proc" "$root/dev" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { printf 'keys-check: FAIL: %s\n' "$*"; for f in "$work"/*.log; do [ -f "$f" ] && tail -5 "$f"; done; exit 1; }
say() { printf '== %s\n' "$*"; }

cfg() { podman image inspect "$image" --format "{{json .Config.$1}}"; }
user=$(cfg User | tr -d '"'); wd=$(cfg WorkingDir | tr -d '"')
mapfile -t envs < <(cfg Env | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin) or []))')
mapfile -t cmd < <( (cfg Entrypoint; cfg Cmd) | python3 -c 'import json,sys; [print(x) for l in sys.stdin for x in (json.loads(l) or [])]')
mkdir -p "$root"
cid=$(podman create "$image")
podman export "$cid" | tar -x -C "$root"
podman rm "$cid" >/dev/null
mkdir -p "$root/proc" "$root/dev" "$root/run/secrets"
mount --bind /proc "$root/proc"; mount --bind /dev "$root/dev"
port=$((20000 + RANDOM % 20000))
base=http://127.0.0.1:$port
# in_image ENV... -- ARGS: the image's entrypoint command (or ARGS) as its user, with its env + ENV
in_image() {
  local -a extra=()
  while [ "$1" != -- ]; do extra+=("$1"); shift; done; shift
  env -i "${envs[@]}" "${extra[@]}" chroot --userspec="$user" "$root" sh -c "cd '${wd:-/}' && exec \"\$@\"" sh "$@"
}
start() { # start LOG ENV...: the server on 0.0.0.0:$port, as the image runs it
  local log=$1; shift
  in_image GRUNDY_ADDR=0.0.0.0:$port "$@" -- "${cmd[@]}" >"$work/$log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do curl -fs "$base/healthz" >/dev/null 2>&1 && return 0; sleep 0.2; done
  fail "no /healthz from the image ($log)"
}
job='{"code":"0.07","max_n":1000}'
post() { curl -sS -o "$work/body" -w '%{http_code}' -H 'content-type: application/json' -d "$job" "$@" "$base/v1/octal/jobs"; }

say "without keys on 0.0.0.0: job writes refused"
start open.log
code=$(post); [ "$code" = 403 ] || fail "a job without keys on 0.0.0.0 answered $code"
grep -q api-keys-required "$work/body" || fail "not the api-keys-required problem: $(cat "$work/body")"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' -d '{"position":[1,5,9]}' "$base/v1/welter/value")
[ "$code" = 200 ] || fail "compute answered $code"
grep -q "job writes refused" "$work/open.log" || fail "the start-up log does not say that job writes are refused"
stop

say "with a key file mounted at /run/secrets/grundy-api-keys"
for name in alice bob; do
  in_image -- /usr/local/bin/grundy keys new --name $name --scope jobs >"$work/$name.key" || fail "grundy keys new in the image"
  sed -n 2p "$work/$name.key" >>"$work/api-keys"
done
alice=$(sed -n 1p "$work/alice.key"); bob=$(sed -n 1p "$work/bob.key")
chmod 644 "$work/api-keys"
touch "$root/run/secrets/grundy-api-keys"
mount --bind -o ro "$work/api-keys" "$root/run/secrets/grundy-api-keys"
start keys.log GRUNDY_API_KEYS_FILE=/run/secrets/grundy-api-keys
code=$(post); [ "$code" = 401 ] || fail "a job without a key answered $code"
code=$(post -H "authorization: Bearer $alice"); [ "$code" = 202 ] || fail "alice's job answered $code: $(cat "$work/body")"
id=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["owner"]=="alice", d; print(d["id"])' "$work/body")
code=$(curl -s -o /dev/null -w '%{http_code}' -H "authorization: Bearer $bob" "$base/v1/octal/jobs/$id")
[ "$code" = 404 ] || fail "bob reading alice's job answered $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "authorization: Bearer $alice" "$base/v1/octal/jobs/$id")
[ "$code" = 200 ] || fail "alice reading her job answered $code"
grep -q "API keys: 2 key(s)" "$work/keys.log" || fail "the start-up log does not name the key mode"
stop
if grep -qF -e "$alice" -e "$bob" "$work/open.log" "$work/keys.log"; then fail "a key is in the container's log"; fi
echo "keys-check: PASS ($image as $user on 0.0.0.0: job writes refused without keys; with the key file mounted, 401 without a key, 202 with alice's, 404 for bob, no key in the logs)"
