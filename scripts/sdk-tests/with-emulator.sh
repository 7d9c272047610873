#!/usr/bin/env bash
# with-emulator.sh PORT [PORT...] -- COMMAND [ARGS...]
#
# Builds bin/cosmos-emulator, starts one ephemeral emulator per PORT on
# 127.0.0.1:PORT (each with its own private PostgreSQL and its own
# self-signed certificate), waits until GET /_emulator/health answers, runs
# COMMAND, and stops the emulators again whatever happens (trap). The exit
# code is COMMAND's.
#
# COMMAND runs from the directory with-emulator.sh was called from, with:
#   COSMOS_ENDPOINT   https://127.0.0.1:<first PORT>/
#   EMULATOR_LOG      log file of the first emulator
#   EMULATOR_PORTS    the PORTs, space separated
#
# Logs (stdout and stderr of each emulator) go to $EMULATOR_LOG_DIR
# (default .sdk-tests/ in the repo): emulator.log for the first PORT,
# emulator-PORT.log for the others. Their tails are printed when COMMAND
# fails or an emulator does not come up.
#
# Environment:
#   SDK_TESTS_ENDPOINT_RUNNING=1  do not build or start anything: use the
#                                 emulator(s) already listening on PORT(s)
#                                 (the first PORT must answer; a missing
#                                 other one is only warned about)
#   EMULATOR_BIN                  emulator binary (default bin/cosmos-emulator,
#                                 rebuilt with `go build` unless
#                                 EMULATOR_SKIP_BUILD=1)
#   EMULATOR_PROTOCOL             https (default) or http
#   EMULATOR_ARGS                 extra flags for the emulator, e.g.
#                                 "--log-level debug"
#   EMULATOR_START_TIMEOUT        seconds to wait for health (default 120)
#   EMULATOR_LOG_DIR              where the logs go (default .sdk-tests)
#
# The emulator listens on 127.0.0.1 only (--addr takes one address). Clients
# that dial "localhost" still reach it: /etc/hosts maps localhost to
# 127.0.0.1, and where it also maps ::1, Go and Node fall back from the
# refused ::1 connection to 127.0.0.1 at once.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

ports=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	*[!0-9]* | "") echo "with-emulator.sh: not a port: $1 (usage: with-emulator.sh PORT [PORT...] -- COMMAND...)" >&2; exit 2 ;;
	*) ports+=("$1") ;;
	esac
	shift
done
if [[ $# -lt 2 || ${#ports[@]} -eq 0 ]]; then
	echo "usage: with-emulator.sh PORT [PORT...] -- COMMAND [ARGS...]" >&2
	exit 2
fi
shift # --

if ! command -v curl >/dev/null; then
	echo "with-emulator.sh: curl is needed (apt-get install -y curl)" >&2
	exit 2
fi

proto="${EMULATOR_PROTOCOL:-https}"
log_dir="${EMULATOR_LOG_DIR:-$repo/.sdk-tests}"
timeout="${EMULATOR_START_TIMEOUT:-120}"
bin="${EMULATOR_BIN:-$repo/bin/cosmos-emulator}"
running="${SDK_TESTS_ENDPOINT_RUNNING:-}"
mkdir -p "$log_dir"

log_of() { # port index
	if [[ $2 -eq 0 ]]; then echo "$log_dir/emulator.log"; else echo "$log_dir/emulator-$1.log"; fi
}

healthy() { # port
	curl -sk --max-time 2 -o /dev/null -w '%{http_code}' "$proto://127.0.0.1:$1/_emulator/health" 2>/dev/null | grep -q '^200$'
}

pids=()
logs=()
cmd_pid=""
show_logs() {
	local l
	for l in "${logs[@]}"; do
		[[ -f "$l" ]] || continue
		echo "----- last 40 lines of $l -----" >&2
		tail -n 40 "$l" >&2 || true
	done
}

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local rc=$? pid i
	trap - EXIT INT TERM
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		# Graceful shutdown also stops the private PostgreSQL; give it 30 s.
		for ((i = 0; i < 300; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "with-emulator.sh: emulator pid $pid did not stop in 30 s; killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
	done
	exit "$rc"
}
# On INT/TERM: stop COMMAND's whole process group first, then (EXIT trap)
# the emulators.
# shellcheck disable=SC2317 # called by the traps
on_signal() {
	local code=$1 i
	if [[ -n "$cmd_pid" ]] && kill -0 "$cmd_pid" 2>/dev/null; then
		echo "with-emulator.sh: interrupted; stopping the command" >&2
		kill -TERM -- "-$cmd_pid" 2>/dev/null || kill -TERM "$cmd_pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			kill -0 "$cmd_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL -- "-$cmd_pid" 2>/dev/null || true
	fi
	exit "$code"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

if [[ -n "$running" ]]; then
	echo "with-emulator.sh: SDK_TESTS_ENDPOINT_RUNNING set: using the emulator(s) on port(s) ${ports[*]}"
	for i in "${!ports[@]}"; do
		logs+=("$(log_of "${ports[$i]}" "$i")")
		if ! healthy "${ports[$i]}"; then
			if [[ $i -eq 0 ]]; then
				echo "with-emulator.sh: nothing healthy at $proto://127.0.0.1:${ports[$i]}/_emulator/health" >&2
				exit 1
			fi
			echo "with-emulator.sh: WARNING: nothing healthy at $proto://127.0.0.1:${ports[$i]}/_emulator/health; going on without it" >&2
		fi
	done
else
	if [[ -z "${EMULATOR_SKIP_BUILD:-}" && -z "${EMULATOR_BIN:-}" ]]; then
		echo "with-emulator.sh: go build -o bin/cosmos-emulator ./cmd/cosmos-emulator"
		(cd "$repo" && go build -o "$bin" ./cmd/cosmos-emulator)
	fi
	for i in "${!ports[@]}"; do
		port="${ports[$i]}"
		log="$(log_of "$port" "$i")"
		logs+=("$log")
		if healthy "$port"; then
			echo "with-emulator.sh: an emulator already answers on port $port; stop it, or set SDK_TESTS_ENDPOINT_RUNNING=1 to use it" >&2
			exit 1
		fi
		# shellcheck disable=SC2086 # EMULATOR_ARGS is a list of flags
		"$bin" --ephemeral --protocol "$proto" --addr "127.0.0.1:$port" ${EMULATOR_ARGS:-} >"$log" 2>&1 &
		pids+=("$!")
		echo "with-emulator.sh: started emulator pid $! on $proto://127.0.0.1:$port/ (log: ${log#"$repo"/})"
	done
	start=$SECONDS
	for i in "${!ports[@]}"; do
		port="${ports[$i]}"
		until healthy "$port"; do
			if ! kill -0 "${pids[$i]}" 2>/dev/null; then
				echo "with-emulator.sh: the emulator on port $port exited during startup" >&2
				show_logs
				exit 1
			fi
			if ((SECONDS - start > timeout)); then
				echo "with-emulator.sh: the emulator on port $port was not healthy after ${timeout}s" >&2
				show_logs
				exit 1
			fi
			sleep 0.2
		done
	done
	echo "with-emulator.sh: emulator(s) healthy after $((SECONDS - start))s"
fi

export COSMOS_ENDPOINT="$proto://127.0.0.1:${ports[0]}/"
export EMULATOR_LOG="${logs[0]}"
export EMULATOR_PORTS="${ports[*]}"

# COMMAND runs in the background, in its own process group (set -m), so
# that a signal to this script is handled at once (bash runs traps only
# between commands) and can stop COMMAND with all its children (go test and
# its test binary, say).
set +e
set -m
"$@" &
cmd_pid=$!
set +m
wait "$cmd_pid"
rc=$?
cmd_pid=""
set -e

for i in "${!pids[@]}"; do
	if ! kill -0 "${pids[$i]}" 2>/dev/null; then
		echo "with-emulator.sh: the emulator on port ${ports[$i]} died while the command ran" >&2
		rc=$((rc == 0 ? 1 : rc))
	fi
done
if [[ $rc -ne 0 ]]; then
	echo "with-emulator.sh: command exited with status $rc" >&2
	show_logs
fi
exit "$rc"
