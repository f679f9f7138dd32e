#!/usr/bin/env bash
# grundy's octal engine against A. Rogalski's sparse-space solver
# (https://github.com/rogalski-wmii-uni-lodz-pl/octal), one thread each, one run each, on the
# same machine, interleaved game by game: wall and CPU time, the ratios grundy/Rogalski and the
# peak RSS of both (/usr/bin/time -v), plus the largest value each reports as a cheap
# cross-check.
#
# Usage: scripts/rogalski-bench.sh [--big] [ROGALSKI_BIN]
#   Rogalski's solver: ROGALSKI_BIN (argument or environment), a built `octal` binary; without
#     one the script clones his repository (ROGALSKI_REPO, default his GitHub address; a local
#     git directory works too) into peers/rogalski and builds it with cargo into
#     peers/rogalski-target. peers/ is ignored by git: his code and binaries never enter this
#     repository's history.
#   GAMES (environment): the games, default "0.167 0.161 0.014".
#   N (environment): heaps 0..N-1, default 2^24 (16777216); --big: 2^28.
#   WINDOW (environment): grundy's window in the second run, default 4194304 (2^22).
#
# Rogalski's solver is run as `octal CODE N 0` (its "full memory" mode: G(0..N) in one array,
# then its period check; tail mode off), in a scratch directory (with a tail it writes files
# into the working directory). grundy runs examples/octal_time with `--threads 1` (the engine
# with the periodicity detector, as the service runs it) twice: keeping every value, and as a
# census job runs it — with the tables' statistics kept and in window mode (`--statistics
# --window W`, W from the environment, default 2^22: the front G(0..W) and the last W values).
#
# On a shared or loaded host the wall clock measures the neighbours too: compare the CPU
# ratios, and run the script twice to see the noise.
set -euo pipefail
cd "$(dirname "$0")/.."

n="${N:-16777216}"
rog=""
for arg in "$@"; do
    case "$arg" in
        --big) n=268435456 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) rog="$arg" ;;
    esac
done
rog="${rog:-${ROGALSKI_BIN:-}}"
if [[ -z "$rog" ]]; then
    repo="${ROGALSKI_REPO:-https://github.com/rogalski-wmii-uni-lodz-pl/octal}"
    mkdir -p peers
    [[ -d peers/rogalski/.git ]] || git clone --quiet "$repo" peers/rogalski
    # His crate builds one binary, `octal`, from its own Cargo.toml (release profile).
    CARGO_TARGET_DIR="$PWD/peers/rogalski-target" cargo build --quiet --release \
        --manifest-path peers/rogalski/Cargo.toml
    rog="peers/rogalski-target/release/octal"
fi
if [[ ! -x "$rog" ]]; then
    echo "error: $rog is not an executable (Rogalski's built \`octal\` binary)" >&2
    exit 2
fi
rog="$(cd "$(dirname "$rog")" && pwd)/$(basename "$rog")"
games="${GAMES:-0.167 0.161 0.014}"
window="${WINDOW:-4194304}"
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time (GNU time) is needed for -v" >&2; exit 2; }

cargo build --release --example octal_time
grundy="${CARGO_TARGET_DIR:-target}/release/examples/octal_time"
grundy="$(cd "$(dirname "$grundy")" && pwd)/$(basename "$grundy")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# field FILE LABEL: the value of a /usr/bin/time -v line.
field() { grep -F "$2" "$1" | tail -1 | sed 's/.*: //'; }
# seconds "h:mm:ss" or "m:ss.cc" -> seconds.
seconds() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$1"; }

printf '%-7s %8s %8s %8s %6s %6s %7s %7s %7s %6s %6s\n' game g_cpu_s gw_cpu_s r_cpu_s ratio ratio_w \
    g_MiB gw_MiB r_MiB g_max r_max
cpu() {
    awk -v u="$(field "$1" 'User time')" -v s="$(field "$1" 'System time')" \
        'BEGIN { printf "%.2f", u + s }'
}
rss() { echo $(( $(field "$1" 'Maximum resident set size') / 1024 )); }
for code in $games; do
    # Rogalski first, then grundy keeping every value, then grundy with statistics in a window.
    (cd "$work" && /usr/bin/time -v "$rog" "$code" "$n" 0 >"$work/r.out" 2>"$work/r.time")
    /usr/bin/time -v "$grundy" "$code" --n "$n" --threads 1 >"$work/g.out" 2>"$work/g.time"
    /usr/bin/time -v "$grundy" "$code" --n "$n" --threads 1 --statistics --window "$window" \
        >"$work/w.out" 2>"$work/w.time"
    # Largest value: Rogalski's last stats line "largest=V @ I"; grundy's engine stats.
    rmax=$(grep -o 'largest=[0-9]*' "$work/r.out" | tail -1 | cut -d= -f2)
    gmax=$(grep -o 'max_value: [0-9]*' "$work/g.out" | tail -1 | cut -d' ' -f2)
    wmax=$(grep -o 'statistics: n=[0-9]* max_value=[0-9]*' "$work/w.out" | tail -1 | sed 's/.*=//')
    # CPU seconds (user + system): the fairer measure on a shared host.
    rc=$(cpu "$work/r.time"); gc=$(cpu "$work/g.time"); wc=$(cpu "$work/w.time")
    ratio=$(awk -v g="$gc" -v r="$rc" 'BEGIN { printf "%.3f", (r > 0 ? g / r : 0) }')
    wratio=$(awk -v g="$wc" -v r="$rc" 'BEGIN { printf "%.3f", (r > 0 ? g / r : 0) }')
    printf '%-7s %8s %8s %8s %6s %6s %7s %7s %7s %6s %6s\n' "$code" "$gc" "$wc" "$rc" "$ratio" \
        "$wratio" "$(rss "$work/g.time")" "$(rss "$work/w.time")" "$(rss "$work/r.time")" \
        "${gmax:-?}" "${rmax:-?}"
    if [[ "${gmax:-}" != "${rmax:-}" || "${wmax:-}" != "${gmax:-}" ]]; then
        echo "warning: $code: largest values differ (grundy ${gmax:-?}, window ${wmax:-?}, Rogalski ${rmax:-?})" >&2
    fi
    grep -E '^(threads=|verdict|statistics|window)' "$work/w.out" | sed "s/^/  grundy (window) $code: /"
done
echo "n=$n heaps (0..n-1); window=$window; ratio = grundy / Rogalski in CPU seconds (below 1: grundy"
echo "faster); ratio_w: grundy with statistics in window mode; MiB = peak RSS"
