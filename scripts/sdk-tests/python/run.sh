#!/usr/bin/env bash
# run.sh [--full] [--update-baseline] [--list] [--files "F..."] [-k EXPR]
#
# Runs the official Python SDK's own emulator tests (azure-cosmos, the
# tests its CI runs against an emulator: pytest -m cosmosEmulator) against
# cosmos-emulator, prints a per-file PASS/FAIL/SKIP table and compares the
# result with scripts/sdk-tests/python/baseline.txt (the tests expected to
# pass).
#
#   1. creates a venv in $SDK_TESTS_DIR/python/venv (default
#      .sdk-tests/python/venv) and installs the SDK and the test tools from
#      requirements.txt, every file pinned by hash (--require-hashes,
#      wheels only);
#   2. downloads the SDK's source distribution (sdist.txt, pinned by hash),
#      which ships tests/, and unpacks it afresh;
#   3. patches the one expectation tied to Microsoft's emulator (the tests
#      call the host an emulator only when it is https://localhost:8081/)
#      and prints the diff; adds a stand-in for devtools_testutils (the
#      repository tooling test_config.py imports) and a pytest.ini with the
#      markers;
#   4. starts an ephemeral emulator on 127.0.0.1:$PY_SDK_TESTS_PORT
#      (default 18150) through with-emulator.sh, unless
#      SDK_TESTS_ENDPOINT_RUNNING=1. The tests' 30,000 RU/s containers get
#      5 partition key ranges and their 400 RU/s ones 1, as the service
#      sizes them (docs/partitioning.md), so no flag is needed for that;
#   5. runs pytest -m cosmosEmulator with ACCOUNT_HOST=https://localhost:PORT/,
#      the emulator key and AZURE_COSMOS_DISABLE_NON_STREAMING_ORDER_BY=True
#      (as the SDK's emulator CI lane), a per-test timeout, JUnit XML;
#   6. prints the table; exits 1 when a baseline test did not pass (a
#      regression), 2 when the tests could not run. Failing tests are listed
#      with their reason from expected-failures.md.
#
# Which tests: by default the CI set, the files listed in ci-files.txt (the
# -m cosmosEmulator files minus the slow ones, see its header); --full runs
# every -m cosmosEmulator test.
#
# Options:
#   --full             every -m cosmosEmulator test, not only ci-files.txt
#   --update-baseline  rewrite baseline.txt from this run's passing tests
#                      (needs --full)
#   --list             print the selected test files and exit
#   --files "F ..."    run only these test files (paths under tests/);
#                      only their baseline tests are judged
#   -k EXPR            pytest -k (a partial run: only the baseline tests of
#                      the files run are judged, and a deselected one counts
#                      as a regression, so use it with --files to explore)
#
# Results: .sdk-tests/python/junit.xml, results.tsv (id, outcome, seconds,
# message), pytest.log (the full pytest output), emulator log
# .sdk-tests/python/emulator.log.
#
# Environment:
#   PY_SDK_TESTS_PORT            emulator port (default 18150)
#   PY_SDK_TESTS_TIMEOUT         per-test timeout in seconds (default 240)
#   PYTHON                       interpreter for the venv (default python3;
#                                3.9 or later)
#   SDK_TESTS_DIR                work directory (default .sdk-tests)
#   SDK_TESTS_ENDPOINT_RUNNING=1 use the emulator already on the port
#   plus the EMULATOR_* variables of ../with-emulator.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
work="${SDK_TESTS_DIR:-$repo/.sdk-tests}/python"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
venv="$work/venv"
port="${PY_SDK_TESTS_PORT:-18150}"
version=4.17.1
src="$work/src/azure_cosmos-$version"
tests="$src/tests"
baseline="$here/baseline.txt"
expected="$here/expected-failures.md"
cifiles="$here/ci-files.txt"

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

inner=0
update=0
list=0
full=0
files=""
kexpr=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	--inner) inner=1 ;;
	--full) full=1 ;;
	--update-baseline) update=1 ;;
	--list) list=1 ;;
	--files)
		[[ $# -ge 2 ]] || { echo "run.sh: $1 needs a list of files" >&2; exit 2; }
		files="$2"
		shift
		;;
	-k)
		[[ $# -ge 2 ]] || { echo "run.sh: -k needs an expression" >&2; exit 2; }
		kexpr="$2"
		shift
		;;
	-h | --help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [[ $update -eq 1 && ($full -eq 0 || -n "$files" || -n "$kexpr") ]]; then
	echo "run.sh: --update-baseline needs a full run (--full, no --files, no -k)" >&2
	exit 2
fi

# The files to run, relative to tests/ (written to $work/selected.txt).
select_files() {
	if [[ -n "$files" ]]; then
		printf '%s\n' $files
	elif [[ $full -eq 1 ]]; then
		(cd "$tests" && grep -rl --include='test_*.py' 'cosmosEmulator' . | sed 's|^\./||' | sort)
	else
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/[[:space:]]*$//' "$cifiles"
	fi
}

if [[ $inner -eq 0 ]]; then
	start=$SECONDS
	# ---- 1. the venv, everything pinned by hash -------------------------------
	py="${PYTHON:-python3}"
	stamp="$venv/.requirements.sha256"
	want="$(cat "$here/requirements.txt" "$here/sdist.txt" | sha256sum | cut -d' ' -f1)"
	if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
		echo "run.sh: creating $venv"
		rm -rf "$venv"
		"$py" -m venv "$venv"
		"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
			--require-hashes --only-binary :all: -r "$here/requirements.txt"
		echo "$want" >"$stamp"
	fi

	# ---- 2. the source distribution with the tests ----------------------------
	dl="$work/dl"
	sdist="$dl/azure_cosmos-$version.tar.gz"
	if [[ ! -f "$sdist" ]]; then
		mkdir -p "$dl"
		"$venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
			--no-binary :all: --require-hashes -r "$here/sdist.txt" -d "$dl"
	fi
	# pip checked the hash on download; check the cached file too.
	sum="$(sed -n 's/.*--hash=sha256:\([0-9a-f]*\).*/\1/p' "$here/sdist.txt")"
	if ! echo "$sum  $sdist" | sha256sum -c --quiet -; then
		echo "run.sh: $sdist does not match the hash in sdist.txt" >&2
		rm -f "$sdist"
		exit 2
	fi
	rm -rf "$work/src"
	mkdir -p "$work/src"
	tar xzf "$sdist" -C "$work/src"
	if [[ ! -d "$tests" ]]; then
		echo "run.sh: $sdist holds no tests/ directory" >&2
		exit 2
	fi

	# ---- 3. patch, stand-in, pytest.ini ----------------------------------------
	# patch_file FILE PERL-SUBSTITUTION WHY: a substitution that must match
	# exactly once, so a new SDK version cannot silently slip past it.
	patch_file() {
		local file="$tests/$1" expr="$2" why="$3" n
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
	# test_config.py treats the host as the local emulator (is_emulator:
	# key auth, emulator-only tests and settings) only when it is the default
	# https://localhost:8081/; ours listens on another port.
	patch_file test_config.py "s{^    local_host = 'https://localhost:8081/'\$}{    local_host = os.getenv('ACCOUNT_HOST', 'https://localhost:8081/')}m" \
		'the emulator is whatever ACCOUNT_HOST names (another port than 8081)'
	# Microsoft's emulator advertises https://127.0.0.1:8081/ in GET / while
	# the tests dial localhost; cosmos-emulator advertises the host the client
	# dialled. The fault injection helpers turn the emulator into a
	# multi-region account whose first region is what GET / advertised and
	# whose other region is ACCOUNT_HOST, and the tests expect the first at
	# 127.0.0.1 (the sync mwr helper already says so explicitly).
	for f in _fault_injection_transport.py _fault_injection_transport_async.py; do
		patch_file $f 's{^(\s*)readable_locations\[0\]\["name"\] = write_region_name\n}{$1readable_locations[0]["name"] = write_region_name\n$1readable_locations[0]["databaseAccountEndpoint"] = test_config.TestConfig.local_host.replace("localhost", "127.0.0.1")\n$1writable_locations[0]["databaseAccountEndpoint"] = test_config.TestConfig.local_host.replace("localhost", "127.0.0.1")\n}m' \
			'the write region of the single-write topology is 127.0.0.1, as Microsoft'"'"'s emulator advertises'
	done
	patch_file _fault_injection_transport_async.py 's{^(\s*)first_region_url: str = None,\n}{$1first_region_url: str = test_config.TestConfig.local_host.replace("localhost", "127.0.0.1"),\n}m' \
		'the first region of the multi-write topology is 127.0.0.1, as in the sync helper'
	cp "$here/pytest.ini" "$tests/pytest.ini"

	select_files >"$work/selected.txt"
	missing=0
	while IFS= read -r f; do
		if [[ ! -f "$tests/$f" ]]; then
			echo "run.sh: no test file tests/$f" >&2
			missing=1
		fi
	done <"$work/selected.txt"
	[[ $missing -eq 0 ]] || exit 2
	echo "run.sh: $(wc -l <"$work/selected.txt") test files selected ($(
		if [[ -n "$files" ]]; then echo "--files"; elif [[ $full -eq 1 ]]; then echo "--full: every file with cosmosEmulator tests"; else echo "the CI set, ci-files.txt"; fi
	)); set up in $((SECONDS - start))s"
	if [[ $list -eq 1 ]]; then
		cat "$work/selected.txt"
		exit 0
	fi

	args=()
	[[ $update -eq 1 ]] && args+=(--update-baseline)
	[[ $full -eq 1 ]] && args+=(--full)
	[[ -n "$files" ]] && args+=(--files "$files")
	[[ -n "$kexpr" ]] && args+=(-k "$kexpr")
	export EMULATOR_LOG_DIR="$work"
	export EMULATOR_ARGS="--health-port 0 --explorer-port 0${EMULATOR_ARGS:+ $EMULATOR_ARGS}"
	exec "$here/../with-emulator.sh" "$port" -- bash "$here/run.sh" --inner ${args[@]+"${args[@]}"}
fi

# ---- inside with-emulator.sh: the emulator is up --------------------------------
export ACCOUNT_HOST="https://localhost:$port/"
export ACCOUNT_KEY='C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=='
# As the SDK's emulator CI lane: the local emulator has no non-streaming
# (vector) ORDER BY in its query plans there.
export AZURE_COSMOS_DISABLE_NON_STREAMING_ORDER_BY=True
# The stand-in for the repository's devtools_testutils.
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
unset COSMOS_TEST_DATA_AUTH_MODE COSMOS_TEST_DATABASE_ID ACCOUNT_CONNECTION_STR

sel=()
while IFS= read -r f; do sel+=("$f"); done <"$work/selected.txt"
pytest=("$venv/bin/python" -m pytest -m cosmosEmulator -p no:cacheprovider
	--timeout "${PY_SDK_TESTS_TIMEOUT:-240}" --junitxml "$work/junit.xml" -o junit_family=xunit1
	-q -rfE --durations 25)
[[ -n "$kexpr" ]] && pytest+=(-k "$kexpr")

report=("$venv/bin/python" "$here/report.py" "$work/junit.xml" --baseline "$baseline"
	--expected-failures "$expected" --tsv "$work/results.tsv")
if [[ $update -eq 1 ]]; then
	report+=(--update-baseline)
elif [[ $full -eq 0 || -n "$files" ]]; then
	report+=(--selected-files "$work/selected.txt")
fi

rm -f "$work/junit.xml"
echo "run.sh: ACCOUNT_HOST=$ACCOUNT_HOST pytest -m cosmosEmulator <${#sel[@]} files>  (in ${tests#"$repo"/}, log: ${work#"$repo"/}/pytest.log)"
start=$SECONDS
set +e
(cd "$tests" && "${pytest[@]}" "${sel[@]}") >"$work/pytest.log" 2>&1
prc=$?
set -e
# pytest's own closing lines (summary of failures and its totals).
grep -E '^(FAILED|ERROR) |^=+ .*(passed|failed|error|no tests ran).* =+$' "$work/pytest.log" | tail -n 400 || true
echo "run.sh: pytest exited $prc after $((SECONDS - start))s"
if [[ $prc -ge 2 && $prc -ne 5 ]] || [[ ! -s "$work/junit.xml" ]]; then
	echo "run.sh: pytest could not run the tests (exit $prc); last lines of pytest.log:" >&2
	tail -n 40 "$work/pytest.log" >&2
	exit 2
fi
set +e
"${report[@]}"
rc=$?
set -e
exit "$rc"
