#!/usr/bin/env bash
# One game on every core: the octal engine's wall time with 1, 2, 4, 8 and 16 threads (those the
# machine has), each game's runs in one process one after the other (examples/octal_time
# --threads 1,2,4,…), the speed-up against one thread and the total CPU per thread count.
#
# Usage: scripts/octal-scaling.sh [GAME:N ...]
#   default: 0.167:2^26 0.014:2^24 grundy:2^24 (the issue's games; on 16 cores use
#   0.167:268435456 0.014:67108864 for the 2^28 / 2^26 sizes).
#   THREADS (environment): the thread counts, default "1 2 4 8 16" cut to the CPUs this process
#     may use (nproc); REPEAT=2 lists each count twice (1,2,1,2…) to show the noise.
#   EXTRA (environment): more octal_time arguments, e.g. "--statistics --window 16777216".
#
# It prints the CPU model first: speed-ups mean something only on a quiet machine whose other
# cores are idle (this is a whole-machine measurement, not a microbenchmark). The engine runs
# with its periodicity detector, as the service runs it; G(0..N) is the same for every count
# (the tests check that; here octal_time's engine line shows the same largest value).
set -euo pipefail
cd "$(dirname "$0")/.."

games=("$@")
[[ ${#games[@]} -gt 0 ]] || games=(0.167:67108864 0.014:16777216 grundy:16777216)
cpus=$(nproc)
want="${THREADS:-1 2 4 8 16}"
list=""
for t in $want; do
    if (( t <= cpus )); then
        list="${list:+$list,}$t"
        [[ "${REPEAT:-1}" == 2 ]] && list="$list,$t"
    fi
done

echo "== machine"
grep -m1 'model name' /proc/cpuinfo || true
echo "cpus this process may use: $cpus; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "thread counts: $list"

cargo build --release --example octal_time
bin="${CARGO_TARGET_DIR:-target}/release/examples/octal_time"

for spec in "${games[@]}"; do
    code="${spec%%:*}"
    n="${spec##*:}"
    echo
    echo "== $code to $n"
    # shellcheck disable=SC2086 # EXTRA is a list of arguments
    "$bin" "$code" --n "$n" --threads "$list" ${EXTRA:-} \
        | grep -E '^(threads=|speed-up|engine:)' | sed 's/ values\/s=[0-9]*//'
done
