# Cosmos DB emulator over PostgreSQL. `make run` serves on
# https://127.0.0.1:8081 with a private PostgreSQL it manages; `make test`
# runs the whole suite (it starts its own PostgreSQL unless COSMOS_TEST_PG
# names one).
GO       ?= go
BIN      := bin/cosmos-emulator
GOFLAGS_TEST ?= -race -count=1 -timeout 30m

.PHONY: build run test lint bench bench-check sdk-tests js-smoke node-helper-test fuzz clean docker-test image reliability fuzz-rntbd

# The release version (semantic) --version, /_emulator/health and the
# image's labels report. It is server.Version's default (a test keeps them
# equal); override it to name a build otherwise, e.g. make build
# VERSION=0.9.1-rc.1.
VERSION  ?= 0.9.0

# The VCS revision --version reports, stamped at link time so that it is
# known even under GOFLAGS=-buildvcs=false; empty outside a git checkout
# (the binary then reads Go's build information, or says unknown).
REVISION := $(shell git rev-parse HEAD 2>/dev/null)$(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -modified)
LDFLAGS  := -X github.com/cosmos-emulator/cosmos-emulator/server.Version=$(VERSION)$(if $(REVISION), -X github.com/cosmos-emulator/cosmos-emulator/server.Revision=$(REVISION))

build:
	@echo "make: building $(BIN) (go build; the first build downloads and compiles the dependencies, a minute or two)"
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/cosmos-emulator

# ARGS passes flags, e.g. make run ARGS="--port 8082 --protocol http".
run: build
	@echo "make: starting $(BIN) $(ARGS) (it prints its URL when ready; a first start runs initdb first)"
	./$(BIN) $(ARGS)

# make test reports as it runs (internal/testprogress over go test -json):
# a line per package as it ends, a failed test's output at once, every
# $(TEST_PROGRESS_EVERY) the packages still running, and at the end the
# slowest packages, the skipped tests with their reasons and the counts. It
# fails when a test or a build fails. docs/testing.md has its wall time.
TEST_PROGRESS_EVERY ?= 30s
test:
	$(GO) vet ./...
	$(GO) run ./internal/testprogress -go $(GO) -every $(TEST_PROGRESS_EVERY) -- $(GOFLAGS_TEST) ./...

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	@echo "make: staticcheck (pinned in go.mod's tool directive; the first run builds it)"
	$(GO) tool staticcheck ./...
	$(GO) test -count=1 -run 'TestPackageBoundaries|TestForbiddenDepsCatchesViolations|TestTestHelpersLeaveDockerOut' ./server/

# Builds the image cosmos-emulator:$(VERSION) (also tagged :local, the name
# docker-compose.yml uses), stamped with the version and revision: --version
# and the OCI labels org.opencontainers.image.version and .revision. Base
# images can be given as build arguments, e.g.
# make image DOCKER_BUILD_ARGS="--build-arg RUNTIME_IMAGE=my/debian:bookworm".
image:
	docker build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) $(DOCKER_BUILD_ARGS) \
		-t cosmos-emulator:$(VERSION) -t cosmos-emulator:local .

# The Node helper (clients/node): its vitest example starts the binary
# through the helper's global set-up and uses it with @azure/cosmos; then
# the packed package, installed into a fresh project, starts one too.
node-helper-test: build
	cd clients/node/test && npm ci --no-audit --no-fund
	cd clients/node/test && COSMOS_EMULATOR_BIN=$(CURDIR)/$(BIN) npx vitest run
	COSMOS_EMULATOR_BIN=$(CURDIR)/$(BIN) bash clients/node/test/installed.sh

# Builds the image (local base images, no registry needed), runs the compose
# stack, the SDK smoke tests against it, a restart, and the testcontainers
# module's tests; installs and starts Docker if needed (root). See
# scripts/ci/docker.sh --help.
docker-test:
	bash scripts/ci/docker.sh $(DOCKER_TEST_ARGS)

# make bench BENCHARGS="..." passes flags to cmd/cosmos-bench. BASELINE=rev
# (a commit hash) also builds that revision as bin/cosmos-emulator-rev and
# passes it as -baseline-bin, for the Targets row that compares the suite
# cycle with an earlier build; the binary is kept and reused.
BASELINE ?=
BASELINE_BIN := $(if $(BASELINE),bin/cosmos-emulator-$(BASELINE))

bench: build $(BASELINE_BIN)
	$(GO) run ./cmd/cosmos-bench $(if $(BASELINE_BIN),-baseline-bin $(BASELINE_BIN)) $(BENCHARGS)

# Every Go benchmark once (-benchtime=1x, -short: the smaller sizes), so
# that each one's result checks run: a benchmark that stops measuring what
# it claims fails here. BENCH_PKGS are the packages with a func Benchmark.
BENCH_PKGS = $(sort $(dir $(shell git grep -l '^func Benchmark' -- '*_test.go')))
bench-check:
	$(GO) test -count=1 -short -run '^$$' -bench . -benchtime=1x $(addprefix ./,$(BENCH_PKGS))

# An earlier revision, built from git archive in a temporary directory (no
# checkout, no worktree), with the same flags as build.
bin/cosmos-emulator-%:
	@echo "make: building revision $* into $@ (git archive into a temporary directory)"
	@mkdir -p bin
	tmp=$$(mktemp -d) && git archive $* | tar -x -C $$tmp && \
	(cd $$tmp && $(GO) build -trimpath -ldflags "-X github.com/cosmos-emulator/cosmos-emulator/server.Revision=$$(git -C $(CURDIR) rev-parse $*)" -o $(CURDIR)/$@ ./cmd/cosmos-emulator); \
	rc=$$?; rm -rf $$tmp; exit $$rc

# The reliability suite alone (make test runs it too): the processes killed
# under write load, write races, and one emulator shared by hostile clients.
# docs/reliability.md says what each test does and what it measured.
RELIABILITY_TESTS := TestKillPostmasterUnderLoad|TestKillEmulatorUnderLoad|TestIfMatchRace|TestConcurrentWriteRaces|TestLongProceduresLeaveThePoolToOthers|TestParallelRegexpProceduresNeverAnswerNoMatch|TestDeleteDatabaseWhileCreatingContainer
reliability:
	$(GO) test -count=1 -v -run '^($(RELIABILITY_TESTS))$$' ./compat_test/
	$(GO) test -count=1 -v -run '^(TestConnLimiter|TestSlowClients|TestMetaTxRetriesConflicts|TestChangeFeedReadsAcknowledgedWritesOnSharedServer)$$' ./server/ ./pgstore/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzNormalizeContainer -fuzztime 30s -fuzzminimizetime 2s ./emulator/
	$(GO) test -run '^$$' -fuzz FuzzParsePartitionKeyHeader -fuzztime 30s ./wire/
	$(GO) test -run '^$$' -fuzz FuzzParseAuthorization -fuzztime 30s ./wire/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./emulator/cosmosql/
	$(GO) test -run '^$$' -fuzz FuzzTranslate -fuzztime 30s ./pgstore/sqlgen/
	$(GO) test -run '^$$' -fuzz FuzzRunScript -fuzztime 30s ./emulator/jsengine/
	$(GO) test -run '^$$' -fuzz FuzzReadRequest -fuzztime 30s ./wire/rntbd/

# The direct-mode frame decoder's fuzzer for a bounded number of inputs (CI
# runs it). A count, not a duration: with a duration Go's fuzzing coordinator
# can report its own deadline as a failure ("context deadline exceeded") when
# the time runs out while a worker is minimising a new input.
fuzz-rntbd:
	$(GO) test -run '^$$' -fuzz FuzzReadRequest -fuzztime 1000000x ./wire/rntbd/

clean:
	rm -rf bin .sdk-tests

# Per-language SDK targets (sdk.mk: Go and JS; python.mk, java.mk, ...).
include $(sort $(wildcard mk/*.mk))
