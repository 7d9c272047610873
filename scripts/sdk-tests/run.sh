#!/usr/bin/env bash
# run.sh [--update-baseline] [--list] [-run REGEXP]
#
# Runs the emulator tests of the official Go SDK (github.com/Azure/
# azure-sdk-for-go/sdk/data/azcosmos, its emulator_*_test.go files) against
# cosmos-emulator, prints a PASS/FAIL/SKIP table and compares the result with
# scripts/sdk-tests/baseline.txt (the tests expected to pass).
#
#   1. copies the module from the Go module cache (downloading it if needed)
#      into $SDK_TESTS_DIR/azcosmos (default .sdk-tests/azcosmos), writable;
#      the cache itself is never modified;
#   2. patches the one expectation tied to Microsoft's emulator (the
#      advertised endpoint) and prints the diff;
#   3. starts two ephemeral emulators with --consistency Strong (as the
#      SDK's CI starts Microsoft's), 127.0.0.1:8081 (42 tests) and
#      127.0.0.1:8903 (TestItemIdEncodingComputeGW's "compute gateway"),
#      through with-emulator.sh, unless SDK_TESTS_ENDPOINT_RUNNING=1;
#   4. makes the default TLS transport (used by the AAD tests) trust the
#      emulators' self-signed certificates through SSL_CERT_FILE;
#   5. runs EMULATOR=true go test -json on the emulator tests only;
#   6. prints the table; exits 1 when a baseline test did not pass (a
#      regression), 2 when the tests could not run. Tests that pass but are
#      not in the baseline are listed, not failed.
#
# Options:
#   --update-baseline  rewrite baseline.txt from this run's passing tests
#   --list             print the emulator test names and exit
#   -run REGEXP        run only the emulator tests matching REGEXP; only
#                      the selected baseline tests are judged
#
# Notes:
#   * The tests dial https://localhost:8081/; the emulator listens on
#     127.0.0.1 only. localhost resolves to 127.0.0.1 here; where it also
#     resolves to ::1 (first), Go's dialer gets "connection refused" from ::1
#     at once and falls back to 127.0.0.1, so nothing needs ::1.
#   * The span name "query_databases localhost" in TestDatabaseCRUD holds the
#     endpoint host; the endpoint stays localhost, so it is not patched.
#   * Results: .sdk-tests/go-test.json (full output), .sdk-tests/results.tsv,
#     emulator logs .sdk-tests/emulator.log and emulator-8903.log.
#
# Environment:
#   SDK_TESTS_ENDPOINT_RUNNING=1  use emulators already running on
#                                 127.0.0.1:8081 (and :8903), started with
#                                 --consistency Strong
#   SDK_TESTS_RACE=1              go test -race
#   SDK_TESTS_TIMEOUT             go test -timeout (default 15m)
#   SDK_TESTS_DIR                 work directory (default .sdk-tests)
#   AZCOSMOS_VERSION              module version (default v1.5.0)
#   plus the EMULATOR_* variables of with-emulator.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
module=github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos
version="${AZCOSMOS_VERSION:-v1.5.0}"
work="${SDK_TESTS_DIR:-$repo/.sdk-tests}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
copy="$work/azcosmos"
baseline="$here/baseline.txt"
expected="$here/expected-failures.md"
ports=(8081 8903)

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

inner=0
update=0
list=0
filter=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	--inner) inner=1 ;;
	--update-baseline) update=1 ;;
	--list) list=1 ;;
	-run | --run)
		[[ $# -ge 2 ]] || { echo "run.sh: $1 needs a regexp" >&2; exit 2; }
		filter="$2"
		shift
		;;
	-h | --help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

# The emulator test names, in file order.
list_tests() {
	grep -ho '^func Test[A-Za-z0-9_]*(t \*testing\.T)' "$copy"/emulator_*_test.go | sed -e 's/^func //' -e 's/(.*//'
}

if [[ $inner -eq 0 ]]; then
	# ---- 1. copy the module out of the cache -------------------------------
	# Outside any module, so the repo's go.mod/go.sum are not touched.
	tmpd="$(mktemp -d)"
	src="$(cd "$tmpd" && GOFLAGS='' GOWORK=off go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')" || true
	rmdir "$tmpd"
	if [[ -z "$src" || ! -d "$src" ]]; then
		echo "run.sh: could not find or download $module@$version" >&2
		exit 2
	fi
	echo "run.sh: copying $module@$version from $src"
	if [[ -d "$copy" ]]; then
		chmod -R u+w "$copy"
		rm -rf "$copy"
	fi
	cp -R "$src" "$copy"
	chmod -R u+w "$copy"

	# ---- 2. patch expectations tied to Microsoft's emulator -----------------
	# patch_file FILE PERL-SUBSTITUTION WHY: applies a substitution that must match
	# exactly once, so a new SDK version cannot silently slip past it.
	patch_file() {
		local file="$copy/$1" expr="$2" why="$3" n
		n="$(perl -0777 -ne "\$n = ($expr); print \$n + 0" "$file")"
		if [[ "$n" != 1 ]]; then
			echo "run.sh: patch for $1 matched $n times instead of once: $expr" >&2
			exit 2
		fi
		cp "$file" "$file.before"
		perl -0777 -pi -e "$expr" "$file"
		echo "run.sh: patched $1: $why"
		diff -u "$file.before" "$file" | sed -n '/^[-+][^-+]/s/^/    /p' || true
		rm -f "$file.before"
	}
	# The SDK's CI dials Microsoft's emulator as localhost while it
	# advertises 127.0.0.1. cosmos-emulator advertises the host the client
	# dialled (so the SDK keeps using https://localhost:8081/). The SDK's
	# CI also starts that emulator with /consistency=Strong: ours get
	# --consistency Strong below, so that expectation needs no patch.
	f=emulator_cosmos_global_endpoint_manager_test.go
	patch_file $f 's{accountRegion\{Name: emulatorRegionName, Endpoint: "https://127\.0\.0\.1:8081/"\}}{accountRegion{Name: emulatorRegionName, Endpoint: "https://localhost:8081/"}}g' \
		'advertised region endpoint is the dialled host https://localhost:8081/, not 127.0.0.1'

	list_tests >"$work/tests.txt"
	echo "run.sh: $(wc -l <"$work/tests.txt") emulator tests in $(find "$copy" -maxdepth 1 -name 'emulator_*_test.go' | wc -l) files"
	if [[ $list -eq 1 ]]; then
		cat "$work/tests.txt"
		exit 0
	fi

	# The report helper is built from the repo (stdlib only).
	(cd "$here" && go build -o "$work/sdk-report" report.go)

	args=()
	[[ $update -eq 1 ]] && args+=(--update-baseline)
	[[ -n "$filter" ]] && args+=(-run "$filter")
	export EMULATOR_ARGS="--consistency Strong${EMULATOR_ARGS:+ $EMULATOR_ARGS}"
	exec "$here/with-emulator.sh" "${ports[@]}" -- bash "$here/run.sh" --inner ${args[@]+"${args[@]}"}
fi

# ---- inside with-emulator.sh: the emulators are up --------------------------

# 4. Trust the emulators' certificates in Go's default transport (AAD tests).
bundle="$work/ca-bundle.pem"
: >"$bundle.tmp"
for port in "${ports[@]}"; do
	if ! curl -skf --max-time 10 "https://127.0.0.1:$port/_explorer/emulator.pem" >>"$bundle.tmp"; then
		echo "run.sh: WARNING: no certificate from https://127.0.0.1:$port/_explorer/emulator.pem (is an emulator running there?)" >&2
	fi
	echo >>"$bundle.tmp"
done
for sys in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt; do
	if [[ -f "$sys" ]]; then
		cat "$sys" >>"$bundle.tmp"
		break
	fi
done
mv "$bundle.tmp" "$bundle"
export SSL_CERT_FILE="$bundle"

# 5. Run the emulator tests, and nothing else of the module.
tests=()
while IFS= read -r t; do tests+=("$t"); done <"$work/tests.txt"
if [[ -n "$filter" ]]; then
	sel=()
	for t in "${tests[@]}"; do
		if [[ "$t" =~ $filter ]]; then sel+=("$t"); fi
	done
	if [[ ${#sel[@]} -eq 0 ]]; then
		echo "run.sh: no emulator test matches -run '$filter'" >&2
		exit 2
	fi
	tests=("${sel[@]}")
	printf '%s\n' "${tests[@]}" >"$work/selected.txt"
else
	cp "$work/tests.txt" "$work/selected.txt"
fi
regex="^($(IFS='|'; echo "${tests[*]}"))\$"

gotest=(go test -count=1 -timeout "${SDK_TESTS_TIMEOUT:-15m}" -json)
[[ -n "${SDK_TESTS_RACE:-}" ]] && gotest+=(-race)
gotest+=(-run "$regex" ./)

report=("$work/sdk-report" -tests "$work/selected.txt" -expected-failures "$expected" -tsv "$work/results.tsv")
if [[ $update -eq 1 ]]; then
	if [[ -n "$filter" ]]; then
		echo "run.sh: --update-baseline needs a full run (no -run)" >&2
		exit 2
	fi
	report+=(-baseline "$baseline" -update-baseline)
elif [[ -n "$filter" ]]; then
	# A partial run judges only the selected baseline tests.
	grep -Fxf "$work/selected.txt" "$baseline" >"$work/baseline-selected.txt" || true
	report+=(-baseline "$work/baseline-selected.txt")
else
	report+=(-baseline "$baseline")
fi

echo "run.sh: EMULATOR=true ${gotest[*]:0:${#gotest[@]}-3} -run '<${#tests[@]} emulator tests>' ./   (in ${copy#"$repo"/}, log: ${work#"$repo"/}/go-test.json)"
set +e
(
	cd "$copy"
	EMULATOR=true GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod" GOWORK=off "${gotest[@]}" 2>&1
) | tee "$work/go-test.json" | "${report[@]}"
statuses=("${PIPESTATUS[@]}")
set -e
rc="${statuses[2]}"
if [[ $rc -eq 0 && ${statuses[0]} -ne 0 && ${statuses[0]} -ne 1 ]]; then
	echo "run.sh: go test exited with status ${statuses[0]}" >&2
	rc=2
fi
exit "$rc"
