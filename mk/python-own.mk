# The Python SDK's own emulator tests; included from the top-level Makefile,
# so the recipes run from the repository root.
#
#   make python-sdk-own-tests       azure-cosmos's own `pytest -m cosmosEmulator`
#                                   tests (the CI set, scripts/sdk-tests/python/
#                                   ci-files.txt) against an ephemeral emulator
#                                   on 127.0.0.1:18150; fails on a regression
#                                   against scripts/sdk-tests/python/baseline.txt
#   make python-sdk-own-tests-full  every -m cosmosEmulator test (longer)
#   make python-sdk-own-tests-update-baseline
#                                   rewrite the baseline from a full run
#
# Variables: PY_SDK_OWN_ARGS (extra run.sh arguments, e.g.
# --files "test_session.py"). Environment: see
# scripts/sdk-tests/python/run.sh --help (PY_SDK_TESTS_PORT, PYTHON, ...).

PY_SDK_OWN_ARGS ?=

.PHONY: python-sdk-own-tests python-sdk-own-tests-full python-sdk-own-tests-update-baseline

python-sdk-own-tests:
	bash scripts/sdk-tests/python/run.sh $(PY_SDK_OWN_ARGS)

python-sdk-own-tests-full:
	bash scripts/sdk-tests/python/run.sh --full $(PY_SDK_OWN_ARGS)

python-sdk-own-tests-update-baseline:
	bash scripts/sdk-tests/python/run.sh --full --update-baseline
