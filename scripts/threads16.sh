#!/usr/bin/env bash
# One game on sixteen cores (issue 45): the octal engine's one-thread runs and profiles beside its
# 8- and 16-thread runs, on a quiet many-core host (a lent `device` machine: see DEVELOPERS.md).
#
# Usage (repository root; BIN defaults to .devkit/bin/octal_time, else the release build):
#   bash scripts/threads16.sh            # writes $OUT/threads16.txt (OUT defaults to /tmp)
#
# - One-thread runs, plain and `--profile`, two at a time, pinned to two different physical
#   cores (never SMT siblings), each game's pair alone: the profile's serial_share and
#   predicted_8 / predicted_16 come from the same host as the speed-ups.
# - Then each game's 2-, 8- and 16-thread runs in one process (`--threads 2,8,16`), alone.
# - Every run prints `values: n=… digest=…`: the digests of one game must all agree.
set -u
BIN=${BIN:-$PWD/.devkit/bin/octal_time}
[[ -x $BIN ]] || BIN=${CARGO_TARGET_DIR:-target}/release/examples/octal_time
O=${OUT:-/tmp}; mkdir -p "$O"
GAMES=${GAMES:-"0.167:268435456 0.014:67108864 grundy:16777216 0.6:10000000"}
exec > >(tee "$O/threads16.txt") 2>&1
echo "== host"; nproc; grep -m1 'model name' /proc/cpuinfo; cat /proc/loadavg
lscpu | grep -E '^(Thread|Core|Socket|NUMA node\(s\))' || true
# A second CPU that is not cpu0's SMT sibling.
sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null || echo 0)
other=1
for c in $(seq 1 $(( $(nproc) - 1 ))); do
  if ! grep -qw "$c" <<<"$(echo "$sib" | tr ',-' '  ')"; then other=$c; break; fi
done
echo "one-thread runs on cpu 0 and cpu $other (cpu0's siblings: $sib)"
keep='^(threads|profile|stages|values|statistics)'
for spec in $GAMES; do
  code=${spec%%:*}; n=${spec##*:}
  echo "== $code to $n: one thread, plain (cpu 0) and profiled (cpu $other)"
  taskset -c 0 "$BIN" "$code" --n "$n" --threads 1 >"$O/p1" 2>&1 & a=$!
  taskset -c "$other" "$BIN" "$code" --n "$n" --threads 1 --profile >"$O/p2" 2>&1 & b=$!
  wait $a $b
  grep -E "$keep" "$O/p1" | sed 's/^/plain   /'
  grep -E "$keep" "$O/p2" | sed 's/^/profile /'
done
for spec in $GAMES; do
  code=${spec%%:*}; n=${spec##*:}
  echo "== $code to $n: 2, 8 and 16 threads"
  taskset -c 0-$(( $(nproc) - 1 )) "$BIN" "$code" --n "$n" --threads 2,8,16 2>&1 | grep -E "$keep|speed-up"
done
rm -f "$O/p1" "$O/p2"
echo "== done"; cat /proc/loadavg
