# Java SDK targets; included from the top-level Makefile, so the recipes run
# from the repository root.
#
#   make java-sdk-tests    the official Java SDK (com.azure:azure-cosmos, gateway
#                          mode) against an ephemeral emulator: compat_test/java
#                          (Maven, JUnit 5), trusting the emulator's certificate
#                          through a keytool trust store and, in a second
#                          surefire execution, through the SDK's emulator switch
#   make java-bench        PointReadBench: point reads through one client in
#                          gateway mode and in the SDK's default direct mode,
#                          side by side, 1 and 8 callers (JAVA_BENCH_READS reads
#                          per row), against an emulator without --log-requests
#   make java-helper-test  the JUnit 5 extension of clients/java, tested with
#                          the emulator binary it starts itself
#
# Variables: JAVA_SDK_PORT (default 8081), JAVA_SDK_ARGS (extra Maven
# arguments, e.g. -Dtest=QueryTest). Needs Java 17+ and Maven 3.8+ (Maven
# Central reachable; the local repository is the default ~/.m2).

JAVA_SDK_PORT ?= 8081
JAVA_SDK_ARGS ?=
JAVA_BENCH_READS ?= 5000

.PHONY: java-sdk-tests java-bench java-helper-test

java-sdk-tests: build
	EMULATOR_SKIP_BUILD=1 EMULATOR_ARGS="--log-requests --health-port 0 --explorer-port 0 $(EMULATOR_ARGS)" \
		bash scripts/sdk-tests/with-emulator.sh $(JAVA_SDK_PORT) -- bash compat_test/java/run.sh $(JAVA_SDK_ARGS)

java-bench: build
	EMULATOR_SKIP_BUILD=1 EMULATOR_ARGS="--health-port 0 --explorer-port 0 $(EMULATOR_ARGS)" \
		bash scripts/sdk-tests/with-emulator.sh $(JAVA_SDK_PORT) -- bash compat_test/java/run.sh \
		-Dtest=PointReadBench -Dcosmos.bench=$(JAVA_BENCH_READS) $(JAVA_SDK_ARGS)

java-helper-test: build
	cd clients/java && COSMOS_EMULATOR_BIN=$(CURDIR)/$(BIN) mvn -B -ntp test
