# SDK compatibility targets; included from the top-level Makefile, so the
# recipes run from the repository root.
#
#   make sdk-tests                  the Go SDK's (azcosmos) own emulator tests
#                                   against ephemeral emulators on 127.0.0.1:8081
#                                   and :8903; fails on a regression against
#                                   scripts/sdk-tests/baseline.txt
#   make sdk-tests-update-baseline  rewrite baseline.txt from a full run
#   make js-smoke                   @azure/cosmos smoke and change feed tests (compat_test/js)
#                                   against an ephemeral emulator
#
# Variables: SDK_TESTS_ARGS (extra run.sh arguments, e.g. -run 'TestItem'),
# JS_SMOKE_PORT (default 8081). Environment: see scripts/sdk-tests/run.sh
# --help and scripts/sdk-tests/with-emulator.sh --help
# (SDK_TESTS_ENDPOINT_RUNNING=1 reuses running emulators, SDK_TESTS_RACE=1, ...).

SDK_TESTS_ARGS ?=
JS_SMOKE_PORT ?= 8081

.PHONY: sdk-tests sdk-tests-update-baseline js-smoke

sdk-tests:
	bash scripts/sdk-tests/run.sh $(SDK_TESTS_ARGS)

sdk-tests-update-baseline:
	bash scripts/sdk-tests/run.sh --update-baseline

js-smoke:
	cd compat_test/js && npm ci --no-audit --no-fund
	bash scripts/sdk-tests/with-emulator.sh $(JS_SMOKE_PORT) -- node compat_test/js/smoke.mjs
	bash scripts/sdk-tests/with-emulator.sh $(JS_SMOKE_PORT) -- node compat_test/js/changefeed.mjs
