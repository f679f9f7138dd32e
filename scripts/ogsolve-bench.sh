#!/usr/bin/env bash
# grundy's octal engine against P. Beling's `ogsolve` (https://github.com/beling/impartial-games,
# crate ogsolve), one thread each, on the same machine, interleaved run by run: CPU seconds of
# each, their ratio grundy/ogsolve per pair, and the medians.
#
# Usage: scripts/ogsolve-bench.sh [OGSOLVE_BIN]
#   OGSOLVE_BIN (argument or environment): a built `ogsolve`; without one the script clones his
#     repository (BELING_REPO, default his GitHub address; a local git directory works too) into
#     peers/beling and builds it as its README says (`RUSTFLAGS="-C target-cpu=native"`, release)
#     into peers/beling-target. peers/ is ignored by git: his code never enters this repository.
#   CODE (environment): the game, default 0.6 (Officers); N: the last heap, default 1000000.
#   METHODS: ogsolve's methods to time, default "rcs rc2s" (its RC methods with static rebuilds,
#     the fastest of its four on Officers); the ratio is taken against the fastest median.
#   RUNS: pairs per method, default 5.
#
# ogsolve runs as `ogsolve -m METHOD -n N CODE` (G(0..=N)); grundy runs examples/octal_time
# `CODE --n N+1 --threads 1` (the same heaps). CPU = user + system from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."

og="${1:-${OGSOLVE_BIN:-}}"
if [[ -z "$og" ]]; then
    repo="${BELING_REPO:-https://github.com/beling/impartial-games}"
    mkdir -p peers
    [[ -d peers/beling/.git ]] || git clone --quiet "$repo" peers/beling
    (cd peers/beling && RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$PWD/../beling-target" \
        cargo build --quiet --release -p ogsolve)
    og="peers/beling-target/release/ogsolve"
fi
[[ -x "$og" ]] || { echo "error: $og is not an executable (a built ogsolve)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time (GNU time) is needed" >&2; exit 2; }
code="${CODE:-0.6}"
n="${N:-1000000}"
runs="${RUNS:-5}"
methods="${METHODS:-rcs rc2s}"

cargo build --release --example octal_time
grundy="${CARGO_TARGET_DIR:-target}/release/examples/octal_time"

# cpu CMD...: user + system seconds of one run.
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.3f", $1 + $2 }'; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

best_og=""
g_all=()
for m in $methods; do
    og_times=()
    for ((i = 0; i < runs; i++)); do
        g_all+=("$(cpu "$grundy" "$code" --n $((n + 1)) --threads 1)")
        og_times+=("$(cpu "$og" -m "$m" -n "$n" "$code")")
    done
    med=$(printf '%s\n' "${og_times[@]}" | median)
    echo "ogsolve -m $m: CPU ${og_times[*]} s (median $med)"
    if [[ -z "$best_og" ]] || awk -v a="$med" -v b="$best_og" 'BEGIN { exit !(a < b) }'; then
        best_og="$med"
    fi
done
g_med=$(printf '%s\n' "${g_all[@]}" | median)
echo "grundy: CPU ${g_all[*]} s (median $g_med)"
awk -v g="$g_med" -v o="$best_og" -v c="$code" -v n="$n" \
    'BEGIN { printf "%s to %d: grundy %.2f s, fastest ogsolve method %.2f s: ratio %.3f\n", c, n, g, o, g / o }'
