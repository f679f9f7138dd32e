#!/usr/bin/env bash
# grundy's octal engine against A. Rogalski's sparse-space solver
# (https://github.com/rogalski-wmii-uni-lodz-pl/octal), one thread each, one run each, on the
# same machine, interleaved game by game: wall and CPU time, the ratios grundy/Rogalski and the
# peak RSS of both (/usr/bin/time -v), plus the largest value each reports as a cheap
# cross-check.
#
# Usage: scripts/rogalski-bench.sh [--big] [ROGALSKI_BIN]
#   ROGALSKI_BIN (argument or environment): the `octal` binary of Rogalski's solver, built
#     outside this repository's history (e.g. under peers/, which .gitignore keeps out): his
#     code and binaries never enter this repository, and this script does not fetch or build
#     them.
#   GAMES (environment): the games, default "0.167 0.161 0.014".
#   N (environment): heaps 0..N-1, default 2^24 (16777216); --big: 2^28.
#
# Rogalski's solver is run as `octal CODE N 0` (its "full memory" mode: G(0..N) in one array,
# then its period check; tail mode off), in a scratch directory (with a tail it writes files
# into the working directory). grundy runs examples/octal_time with `--threads 1` (the engine
# with the periodicity detector, as the service runs it).
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
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) rog="$arg" ;;
    esac
done
rog="${rog:-${ROGALSKI_BIN:-}}"
if [[ -z "$rog" || ! -x "$rog" ]]; then
    echo "error: give the path of Rogalski's built \`octal\` binary (argument or ROGALSKI_BIN)" >&2
    exit 2
fi
rog="$(cd "$(dirname "$rog")" && pwd)/$(basename "$rog")"
games="${GAMES:-0.167 0.161 0.014}"
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

printf '%-7s %9s %9s %7s %9s %9s %7s %9s %9s %6s %6s\n' game g_wall_s r_wall_s ratio \
    g_cpu_s r_cpu_s ratio g_MiB r_MiB g_max r_max
for code in $games; do
    # Rogalski first, then grundy (one run each).
    (cd "$work" && /usr/bin/time -v "$rog" "$code" "$n" 0 >"$work/r.out" 2>"$work/r.time")
    /usr/bin/time -v "$grundy" "$code" --n "$n" --threads 1 >"$work/g.out" 2>"$work/g.time"
    rw=$(seconds "$(field "$work/r.time" 'Elapsed (wall clock)')")
    gw=$(seconds "$(field "$work/g.time" 'Elapsed (wall clock)')")
    rm=$(( $(field "$work/r.time" 'Maximum resident set size') / 1024 ))
    gm=$(( $(field "$work/g.time" 'Maximum resident set size') / 1024 ))
    # Largest value: Rogalski's last stats line "largest=V @ I"; grundy's engine stats.
    rmax=$(grep -o 'largest=[0-9]*' "$work/r.out" | tail -1 | cut -d= -f2)
    gmax=$(grep -o 'max_value: [0-9]*' "$work/g.out" | tail -1 | cut -d' ' -f2)
    # CPU seconds (user + system): the fairer measure on a shared host.
    rc=$(awk -v u="$(field "$work/r.time" 'User time')" -v s="$(field "$work/r.time" 'System time')" \
        'BEGIN { printf "%.2f", u + s }')
    gc=$(awk -v u="$(field "$work/g.time" 'User time')" -v s="$(field "$work/g.time" 'System time')" \
        'BEGIN { printf "%.2f", u + s }')
    ratio=$(awk -v g="$gw" -v r="$rw" 'BEGIN { printf "%.3f", (r > 0 ? g / r : 0) }')
    cratio=$(awk -v g="$gc" -v r="$rc" 'BEGIN { printf "%.3f", (r > 0 ? g / r : 0) }')
    printf '%-7s %9s %9s %7s %9s %9s %7s %9s %9s %6s %6s\n' "$code" "$gw" "$rw" "$ratio" \
        "$gc" "$rc" "$cratio" "$gm" "$rm" "${gmax:-?}" "${rmax:-?}"
    if [[ "${gmax:-}" != "${rmax:-}" ]]; then
        echo "warning: $code: largest values differ (grundy ${gmax:-?}, Rogalski ${rmax:-?})" >&2
    fi
    grep -E '^(threads=|verdict)' "$work/g.out" | sed "s/^/  grundy $code: /"
done
echo "n=$n heaps (0..n-1); ratio = grundy / Rogalski (below 1: grundy faster); MiB = peak RSS"
