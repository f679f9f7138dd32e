#!/usr/bin/env bash
# What README's two commands cost on a fresh clone (issue 54), and that nothing is rebuilt
# needlessly: clones HEAD into a temporary folder and times, in order,
#   1. cargo build --release           (README's first command builds this)
#   2. cargo build --release again     (must rebuild nothing)
#   3. cargo test --no-run, then cargo test   (README's second command: compile, then run)
#   4. cargo test --no-run again       (must rebuild nothing)
#   5. git status + git log, then cargo build --release  (git must trigger no rebuild)
#   6. an empty commit, then cargo build --release      (only the service package carries it)
# then, with RUNS=N (default 0), N runs of `cargo test` under a CPU hog on every core and N
# restricted to one core (`taskset -c 0`), each with its verdict and time.
# Usage: scripts/test-suite-times.sh [RUNS=3]   — a 2-core machine takes about 15 minutes
# without the extra runs, and about 5 minutes more for each of them.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-0}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
git clone -q "$here" "$dir/grundy"
cd "$dir/grundy"
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%F)"
timed() { # label, command…: prints the wall time and the packages cargo compiled
  local label="$1"; shift
  local start log; start=$(date +%s%N); log="$dir/log"
  "$@" >"$log" 2>&1 || { tail -n 30 "$log"; echo "$label: FAILED"; exit 1; }
  printf '%-44s %7.1f s  compiled: %s\n' "$label" "$(awk -v ns=$(( $(date +%s%N) - start )) 'BEGIN { print ns / 1e9 }')" \
    "$(grep -o 'Compiling [a-z0-9_-]*' "$log" | awk '{print $2}' | sort -u | tr '\n' ' ' | cut -c1-60)"
}
timed "cargo build --release (fresh)" cargo build --release
timed "cargo build --release (again)" cargo build --release
timed "cargo test --no-run (fresh)" cargo test --no-run
timed "cargo test (the run)" cargo test
timed "cargo test --no-run (again)" cargo test --no-run
git status >/dev/null; git log -1 >/dev/null
timed "cargo build --release (after git status/log)" cargo build --release
git -c user.name=t -c user.email=t@t commit -q --allow-empty -m "an empty commit"
timed "cargo build --release (after a commit)" cargo build --release
for i in $(seq 1 "$runs"); do
  timed "cargo test, CPU hog on every core ($i)" "$here/scripts/with-cpu-hog.sh" cargo test
done
for i in $(seq 1 "$runs"); do
  timed "cargo test, one core ($i)" taskset -c 0 cargo test
done
