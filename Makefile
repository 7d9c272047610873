# Cosmos DB emulator over PostgreSQL. `make run` serves on
# https://127.0.0.1:8081 with a private PostgreSQL it manages; `make test`
# runs the whole suite (it starts its own PostgreSQL unless COSMOS_TEST_PG
# names one).
GO       ?= go
BIN      := bin/cosmos-emulator
GOFLAGS_TEST ?= -race -count=1 -timeout 30m

.PHONY: build run test lint bench sdk-tests js-smoke fuzz clean docker-test

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/cosmos-emulator

run: build
	./$(BIN) $(ARGS)

test:
	$(GO) vet ./...
	$(GO) test $(GOFLAGS_TEST) ./...

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 -run TestPackageBoundaries ./server/

# Builds the image (local base images, no registry needed), runs the compose
# stack, the SDK smoke tests against it, a restart, and the testcontainers
# module's tests; installs and starts Docker if needed (root). See
# scripts/ci/docker.sh --help.
docker-test:
	bash scripts/ci/docker.sh $(DOCKER_TEST_ARGS)

bench: build
	$(GO) run ./cmd/cosmos-bench $(BENCHARGS)

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzNormalizeContainer -fuzztime 30s -fuzzminimizetime 2s ./emulator/
	$(GO) test -run '^$$' -fuzz FuzzParsePartitionKeyHeader -fuzztime 30s ./wire/
	$(GO) test -run '^$$' -fuzz FuzzParseAuthorization -fuzztime 30s ./wire/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./emulator/cosmosql/
	$(GO) test -run '^$$' -fuzz FuzzTranslate -fuzztime 30s ./pgstore/sqlgen/

clean:
	rm -rf bin .sdk-tests

-include mk/sdk.mk
