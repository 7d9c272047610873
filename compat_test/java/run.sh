#!/usr/bin/env bash
# run.sh [MAVEN ARGS...]: runs the Java SDK tests (compat_test/java) against
# the emulator at $COSMOS_ENDPOINT (started by scripts/sdk-tests/with-emulator.sh,
# see mk/java.mk). It downloads the emulator's certificate from
# /_explorer/emulator.pem, imports it with keytool into a PKCS#12 trust store
# and hands that to the tests' JVM (-Djavax.net.ssl.trustStore), the way users
# trust it; one more surefire execution runs with the SDK's own switch
# COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true and no trust store.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${COSMOS_ENDPOINT:?COSMOS_ENDPOINT must name the emulator (run through with-emulator.sh)}"
work="${JAVA_SDK_WORK:-$here/target/trust}"
mkdir -p "$work"
curl -fsSk "${COSMOS_ENDPOINT%/}/_explorer/emulator.pem" -o "$work/emulator.pem"
rm -f "$work/truststore.p12"
keytool -importcert -noprompt -alias cosmos-emulator -file "$work/emulator.pem" \
	-keystore "$work/truststore.p12" -storetype PKCS12 -storepass changeit >/dev/null
cd "$here"
rm -rf target/surefire-reports target/surefire-reports-switch
rc=0
mvn -B -q test -Dcosmos.endpoint="$COSMOS_ENDPOINT" -Dcosmos.trustStore="$work/truststore.p12" \
	-Dcosmos.emulatorLog="${EMULATOR_LOG:-}" "$@" || rc=$?
# mvn -q prints nothing on success: sum up the surefire reports.
tests=0 failed=0 skipped=0
for f in target/surefire-reports/TEST-*.xml target/surefire-reports-switch/TEST-*.xml; do
	[[ -f "$f" ]] || continue
	line="$(grep -m1 -o '<testsuite [^>]*>' "$f")"
	attr() { sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p" <<<"$line"; }
	tests=$((tests + $(attr tests)))
	failed=$((failed + $(attr failures) + $(attr errors)))
	skipped=$((skipped + $(attr skipped)))
done
echo "java-sdk-tests: $((tests - failed - skipped)) passed, $failed failed, $skipped skipped"
if [[ $rc -eq 0 && $tests -eq 0 ]]; then
	echo "java-sdk-tests: no test ran" >&2
	exit 1
fi
exit "$rc"
