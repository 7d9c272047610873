# Java SDK targets; included from the top-level Makefile, so the recipes run
# from the repository root.
#
#   make java-sdk-tests    the official Java SDK (com.azure:azure-cosmos, gateway
#                          mode) against an ephemeral emulator: compat_test/java
#                          (Maven, JUnit 5), trusting the emulator's certificate
#                          through a keytool trust store and, in a second
#                          surefire execution, through the SDK's emulator switch
#   make java-helper-test  the JUnit 5 extension of clients/java, tested with
#                          the emulator binary it starts itself
#
# Variables: JAVA_SDK_PORT (default 8081), JAVA_SDK_ARGS (extra Maven
# arguments, e.g. -Dtest=QueryTest). Needs Java 17+ and Maven 3.8+ (Maven
# Central reachable; the local repository is the default ~/.m2).

JAVA_SDK_PORT ?= 8081
JAVA_SDK_ARGS ?=

.PHONY: java-sdk-tests java-helper-test

java-sdk-tests: build
	EMULATOR_SKIP_BUILD=1 EMULATOR_ARGS="--log-requests --health-port 0 --explorer-port 0 $(EMULATOR_ARGS)" \
		bash scripts/sdk-tests/with-emulator.sh $(JAVA_SDK_PORT) -- bash compat_test/java/run.sh $(JAVA_SDK_ARGS)

java-helper-test: build
	cd clients/java && COSMOS_EMULATOR_BIN=$(CURDIR)/$(BIN) mvn -B -ntp test
