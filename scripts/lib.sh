# shellcheck shell=bash
# One way for the scripts to start a server, wait until it answers, and clean up on exit.
#
#   set -euo pipefail
#   cd "$(dirname "$0")/.."                   # most scripts run from the repository root
#   . scripts/lib.sh                          # or: . "$(dirname "$0")/lib.sh"
#
#   WORK=$(mktemp -d /tmp/grundy-x.XXXXXX); grundy_rm_on_exit "$WORK"
#   port=$(free_port)
#   grundy_start -b "$BIN" -l "$WORK/server.log" "$port" GRUNDY_DATABASE_URL="sqlite://$WORK/s.db" RUST_LOG=warn
#   grundy_wait_ready "$port" /readyz || die "the server did not start"
#   ... "$STARTED_PID" is the server's pid ...
#
# Functions:
#   free_port
#       prints a free TCP port on 127.0.0.1.
#   grundy_rm_on_exit PATH ...
#       temporary files or directories (a database, a work directory) to remove on exit.
#   grundy_start [-b BIN] [-c CPUS] [-l LOG] PORT [VAR=value ...] [-- ARG ...]
#       starts BIN (default ${CARGO_TARGET_DIR:-target}/release/grundy) in the background with
#       GRUNDY_ADDR=127.0.0.1:PORT, GRUNDY_SHUTDOWN_GRACE_MS=0 (scripts stop their own servers: no
#       grace period to wait out; a VAR=value pair or the caller's environment overrides it) and
#       the VAR=value pairs added to its environment (later pairs win) and the ARGs on its command line; under `taskset -c CPUS` when -c is given; its stdout
#       and stderr appended to LOG (-l; default: the script's own). Sets STARTED_PID (the server's
#       own pid: env and taskset exec into it). The server is stopped on exit; a LOG that is a
#       file is shown (its last lines) when the script fails.
#   grundy_wait_ready [-d JSON] PORT [PATH] [TIMEOUT]
#       polls http://127.0.0.1:PORT/PATH (default /healthz) every 0.05 s until it answers 2xx
#       (a POST of JSON with -d), at most TIMEOUT whole seconds (default 30). Returns 1, with the
#       reason on stderr, on timeout or as soon as the server started on PORT has exited.
#   grundy_stop [-s SIGNAL] [-t GRACE] [PID]
#       sends SIGNAL (default TERM) to a started process (default: the last one started), waits up
#       to GRACE seconds (default 5; 0: no limit) for it to exit, then kills it (-9), and reaps it.
#   grundy_track PID
#       another background process (not started by grundy_start) to stop on exit.
#   grundy_target
#       sets TARGET to the cargo target directory (${CARGO_TARGET_DIR:-target}), made absolute
#       against the current directory (the repository root, after the script's cd).
#   grundy_build PROFILE
#       builds the grundy binary quietly, with --release when PROFILE is release.
#   grundy_venv VENV REQS
#       (re)creates the Python venv VENV with the pinned requirements file REQS installed, unless
#       VENV/.reqs already equals REQS.
#   grundy_on_exit COMMAND
#       a command (a function's name, say; run with eval) to run on exit, after the processes are
#       stopped (docker/smoke.sh drops its database).
#
# On exit (any exit: success, failure, `exit N`, INT/TERM): the processes still running are
# stopped (TERM, up to 5 s, then -9), the on-exit commands run, on a non-zero status the last 30
# lines of each server log are printed, the temporary paths are removed, and the script
# exits with its own status (130 after INT/TERM). A script sourcing this file must not set its own
# EXIT trap (use grundy_on_exit).

STARTED_PID=
_LIB_PIDS=()
_LIB_LOGS=()
_LIB_TEMP=()
_LIB_ON_EXIT=()
declare -gA _LIB_PORT_PID=()

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

grundy_rm_on_exit() {
  _LIB_TEMP+=("$@")
}

grundy_start() {
  local OPTIND=1 opt bin=${CARGO_TARGET_DIR:-target}/release/grundy cpus='' log='' port
  local -a envs=() args=() pin=()
  while getopts b:c:l: opt; do
    case $opt in
      b) bin=$OPTARG ;;
      c) cpus=$OPTARG ;;
      l) log=$OPTARG ;;
      *) echo "grundy_start: usage: grundy_start [-b BIN] [-c CPUS] [-l LOG] PORT [VAR=value ...] [-- ARG ...]" >&2; return 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  port=${1:?grundy_start: no port}; shift
  while (($#)); do
    case $1 in
      --) shift; args=("$@"); break ;;
      [A-Za-z_]*=*) envs+=("$1"); shift ;;
      *) echo "grundy_start: expected VAR=value or --, got '$1'" >&2; return 2 ;;
    esac
  done
  if [[ -n $cpus ]]; then pin=(taskset -c "$cpus"); fi
  if [[ -n $log ]]; then
    : >>"$log"
    if [[ -f $log ]]; then _LIB_LOGS+=("$log"); fi
    env GRUNDY_ADDR="127.0.0.1:$port" GRUNDY_SHUTDOWN_GRACE_MS="${GRUNDY_SHUTDOWN_GRACE_MS:-0}" "${envs[@]}" "${pin[@]}" "$bin" "${args[@]}" >>"$log" 2>&1 &
  else
    env GRUNDY_ADDR="127.0.0.1:$port" GRUNDY_SHUTDOWN_GRACE_MS="${GRUNDY_SHUTDOWN_GRACE_MS:-0}" "${envs[@]}" "${pin[@]}" "$bin" "${args[@]}" &
  fi
  STARTED_PID=$!
  _LIB_PIDS+=("$STARTED_PID")
  _LIB_PORT_PID[$port]=$STARTED_PID
}

grundy_wait_ready() {
  local OPTIND=1 opt data='' port path timeout url pid i
  while getopts d: opt; do
    case $opt in
      d) data=$OPTARG ;;
      *) echo "grundy_wait_ready: usage: grundy_wait_ready [-d JSON] PORT [PATH] [TIMEOUT]" >&2; return 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  port=${1:?grundy_wait_ready: no port}; path=${2:-/healthz}; timeout=${3:-30}
  url=http://127.0.0.1:$port$path
  pid=${_LIB_PORT_PID[$port]:-}
  for ((i = 0; i < timeout * 20; i++)); do
    if [[ -n $data ]]; then
      curl -fsS -o /dev/null --max-time 1 -H 'content-type: application/json' -d "$data" "$url" 2>/dev/null && return 0
    else
      curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null && return 0
    fi
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      echo "grundy_wait_ready: the server on port $port (pid $pid) exited at start-up" >&2
      return 1
    fi
    sleep 0.05
  done
  echo "grundy_wait_ready: no answer from $url within $timeout s" >&2
  return 1
}

# _lib_forget PID: drop PID from the processes stopped on exit.
_lib_forget() {
  local p keep=()
  for p in "${_LIB_PIDS[@]}"; do
    if [[ $p != "$1" ]]; then keep+=("$p"); fi
  done
  _LIB_PIDS=("${keep[@]}")
}

# _lib_reap GRACE PID: wait up to GRACE seconds (0: no limit) for PID to exit, kill -9, reap.
_lib_reap() {
  local i
  for ((i = 0; $1 == 0 || i < $1 * 10; i++)); do
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$2" 2>/dev/null || true
  wait "$2" 2>/dev/null || true
}

grundy_stop() {
  local OPTIND=1 opt sig=TERM grace=5 pid
  while getopts s:t: opt; do
    case $opt in
      s) sig=$OPTARG ;;
      t) grace=$OPTARG ;;
      *) echo "grundy_stop: usage: grundy_stop [-s SIGNAL] [-t GRACE] [PID]" >&2; return 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  pid=${1:-$STARTED_PID}
  [[ -n $pid ]] || return 0
  _lib_forget "$pid"
  kill -s "$sig" "$pid" 2>/dev/null || true
  _lib_reap "$grace" "$pid"
}

grundy_track() {
  _LIB_PIDS+=("$1")
}

grundy_on_exit() {
  _LIB_ON_EXIT+=("$1")
}

_lib_cleanup() {
  local rc=$? p cmd f seen=' '
  set +e
  trap '' INT TERM # a second Ctrl-C does not cut the cleanup short (at most 5 s per process)
  for p in "${_LIB_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${_LIB_PIDS[@]}"; do _lib_reap 5 "$p"; done
  _LIB_PIDS=()
  for cmd in "${_LIB_ON_EXIT[@]}"; do eval "$cmd"; done
  if [[ $rc -ne 0 ]]; then
    for f in "${_LIB_LOGS[@]}"; do
      [[ $seen == *" $f "* ]] && continue
      seen+="$f "
      if [[ -s $f ]]; then echo "--- last lines of $f"; tail -n 30 "$f"; fi
    done
  fi
  if [[ ${#_LIB_TEMP[@]} -gt 0 ]]; then rm -rf "${_LIB_TEMP[@]}"; fi
  exit "$rc"
}
trap _lib_cleanup EXIT
trap 'exit 130' INT TERM

grundy_target() {
  TARGET=${CARGO_TARGET_DIR:-target}
  case $TARGET in /*) ;; *) TARGET=$PWD/$TARGET ;; esac
}

grundy_build() {
  if [[ $1 == release ]]; then
    cargo build --release --bin grundy --quiet
  else
    cargo build --bin grundy --quiet
  fi
}

grundy_venv() {
  local venv=$1 reqs=$2
  if [[ ! -f $venv/.reqs ]] || ! cmp -s "$reqs" "$venv/.reqs"; then
    printf '== %s\n' "installing $(grep -v '^#' "$reqs" | tr '\n' ' ')into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$reqs"
    cp "$reqs" "$venv/.reqs"
  fi
}
