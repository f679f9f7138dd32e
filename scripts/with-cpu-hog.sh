#!/usr/bin/env bash
# Runs a command while a busy loop at normal priority holds every core (issue 54): the test
# suite's verdict must not depend on how busy the machine is.
#   scripts/with-cpu-hog.sh cargo test
# HOGS=N sets the number of busy loops (default: one per core, `nproc`).
set -euo pipefail
hogs=()
stop() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop EXIT INT TERM
for _ in $(seq 1 "${HOGS:-$(nproc)}"); do
  bash -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "with-cpu-hog: ${#hogs[@]} busy loop(s) running: $*" >&2
"$@"
