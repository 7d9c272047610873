# Python SDK compatibility targets; included from the top-level Makefile, so
# the recipes run from the repository root.
#
#   make python-sdk-tests    the azure-cosmos (Python SDK) suite (compat_test/python),
#                            sync and asyncio clients, against an ephemeral emulator
#                            started by scripts/sdk-tests/with-emulator.sh on
#                            127.0.0.1:$(PY_SDK_PORT)
#   make python-bench        one client's ops/s (docs/benchmarks.md)
#   make python-helper-test  the pytest plugin of clients/python: its own tests start
#                            the emulator binary through the plugin (free ports)
#
# Each creates (once) a virtual environment under .sdk-tests/ (gitignored) and installs
# compat_test/python/requirements.txt with --require-hashes: every package,
# transitive ones included, pinned by version and hash (resolved for Python 3.11).
# They need python3 (3.11, Debian 12's, or later) with its venv module (Debian and
# Ubuntu: apt-get install python3-venv)
# and pip's access to PyPI, plus what the emulator needs (Go to build it, and
# PostgreSQL's server programs: apt-get install postgresql).
#
# Variables: PYTHON (default python3), PY_SDK_PORT (default 8081),
# PY_SDK_TESTS_ARGS (extra pytest arguments, e.g. -k changefeed -x).
# Environment: see scripts/sdk-tests/with-emulator.sh --help (EMULATOR_ARGS, ...).

PYTHON ?= python3
PY_SDK_PORT ?= 8081
PY_SDK_TESTS_ARGS ?=
PY_BENCH_ARGS ?=
PY_VENV := .sdk-tests/python-venv
PY_REQS := compat_test/python/requirements.txt

.PHONY: python-sdk-tests python-helper-test python-venv python-bench

# The venv is rebuilt when the requirements change (a stamp file records the
# installed requirements).
$(PY_VENV)/.installed: $(PY_REQS) clients/python/pyproject.toml $(wildcard clients/python/src/*/*.py)
	rm -rf $(PY_VENV)
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: -r $(PY_REQS)
	$(PY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation ./clients/python
	touch $@

python-venv: $(PY_VENV)/.installed

python-sdk-tests: build python-venv
	EMULATOR_SKIP_BUILD=1 EMULATOR_ARGS="--health-port 0 --explorer-port 0 $$EMULATOR_ARGS" bash scripts/sdk-tests/with-emulator.sh $(PY_SDK_PORT) -- \
		$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -c compat_test/python/pytest.ini --rootdir compat_test/python compat_test/python $(PY_SDK_TESTS_ARGS)

python-helper-test: build python-venv
	COSMOS_EMULATOR_BIN=$(CURDIR)/$(BIN) $(PY_VENV)/bin/python -m pytest -p no:cacheprovider -c clients/python/pytest.ini --rootdir clients/python clients/python/tests

# One client's ops/s (point reads, a create/read/replace/query mix) and the
# HTTPS floor, against an ephemeral emulator (docs/benchmarks.md, Python SDK).
python-bench: build python-venv
	EMULATOR_SKIP_BUILD=1 EMULATOR_ARGS="--health-port 0 --explorer-port 0 $$EMULATOR_ARGS" bash scripts/sdk-tests/with-emulator.sh $(PY_SDK_PORT) -- \
		env PYTHONWARNINGS=ignore $(PY_VENV)/bin/python compat_test/python/bench.py $(PY_BENCH_ARGS)
