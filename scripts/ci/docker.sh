#!/usr/bin/env bash
# docker.sh [--bases-only] [--keep]
#
# Proves the container setup for real, on a machine that has no Docker
# engine and no reachable image registry (as CI here):
#
#   1. installs docker.io, docker-compose and debootstrap if missing (apt),
#      and a JDK, Maven and python3-venv for steps 11 and 12;
#   2. starts dockerd (as root, --data-root $DOCKER_DATA_ROOT) unless an
#      engine already answers;
#   3. builds the local base images: a minimal Debian bookworm
#      (debootstrap --variant=minbase, its tarball cached in $CI_CACHE) and a
#      Go build image (that Debian plus the host's Go toolchain and CA
#      bundle). Existing images are reused;
#   4. builds the emulator image cosmos-emulator:local with `docker-compose
#      build` (the compose file's build section, the repository's Dockerfile)
#      with BUILD_IMAGE/RUNTIME_IMAGE set to those local bases (classic
#      builder, as testcontainers uses, so that the module tests' build of
#      the same Dockerfile reuses its layers);
#   5. `docker-compose up -d` on the repository's docker-compose.yml,
#      unchanged (its image cosmos-emulator:local exists, so it is not
#      rebuilt), and waits until the container is healthy;
#   6. writes a database, a container and an item through the REST API
#      (signed with the master key);
#   7. runs a subset of the Go SDK's emulator tests (scripts/sdk-tests/run.sh
#      against the running stack) and the JS SDK smoke test
#      (compat_test/js/smoke.mjs) against https://127.0.0.1:8081/;
#   8. `docker-compose restart`, waits for health again and reads the item
#      back: the data lives in the stack's volume;
#   9. runs the testcontainers module's tests (cosmoscontainer) for
#      real against cosmos-emulator:local, and its build-from-Dockerfile test;
#  10. tears the stack down (volumes included), freeing host port 8081;
#  11. runs Testcontainers for Java's CosmosDBEmulatorContainer as its users
#      write it (compat_test/testcontainers/java, mvn test; Maven Central for
#      the dependencies) against cosmos-emulator:local;
#  12. runs testcontainers-python's CosmosDBNoSQLEndpointContainer likewise
#      (compat_test/testcontainers/python, pytest in a venv under $CI_CACHE
#      installed with pip --require-hashes), on host port 8081 as the module
#      binds by default and on a random port;
#  and stops the dockerd it started, whatever happened (trap).
#
# Each step prints its duration; the total is printed at the end.
#
# Options:
#   --bases-only  stop after step 4 (the image is built)
#   --keep        leave the compose stack and dockerd running
#
# Environment:
#   CI_CACHE          cache directory (default ${XDG_CACHE_HOME:-~/.cache}/cosmos-emulator-ci):
#                     the Debian tarball, dockerd's log, the Python venv
#   DOCKER_DATA_ROOT  dockerd --data-root when it is started here
#                     (default /var/lib/docker-ci)
#   DEBIAN_MIRROR     mirror for debootstrap (default: the first Debian URI of
#                     the host's apt sources)
#   SDK_SUBSET        -run regexp of the Go SDK emulator tests to run
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

bases_only=0
keep=0
while [[ $# -gt 0 ]]; do
	case "$1" in
	--bases-only) bases_only=1 ;;
	--keep) keep=1 ;;
	-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "docker.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

cache="${CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cosmos-emulator-ci}"
data_root="${DOCKER_DATA_ROOT:-/var/lib/docker-ci}"
project=cosmos-ci
image=cosmos-emulator:local
debian_image=cosmos-emulator-ci/debian:bookworm-minbase
sdk_subset="${SDK_SUBSET:-^(TestDatabaseCRUD|TestContainerCRUD|TestItemCRUD|TestItemCRUDHierarchicalPartitionKey|TestSinglePartitionQuery|TestSinglePartitionQueryWithParameters|TestCrossPartitionQuery|TestItemTransactionalBatch|TestEmulatorContainerChangeFeed|TestReadMany_ReadSeveralItems|TestAAD)$}"
endpoint=https://127.0.0.1:8081
key="C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
mkdir -p "$cache"

t_all=$SECONDS
t_step=$SECONDS
step() {
	if [[ -n "${step_name:-}" ]]; then
		echo "docker.sh: -- ${step_name}: $((SECONDS - t_step)) s"
	fi
	step_name="$1"
	t_step=$SECONDS
	echo "docker.sh: == $1"
}

started_dockerd=""
compose_up=0
compose() { docker-compose -p "$project" -f "$repo/docker-compose.yml" "$@"; }

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ $rc -ne 0 && $compose_up -eq 1 ]]; then
		echo "docker.sh: ----- last 60 lines of the emulator container's log -----" >&2
		compose logs --no-color --tail 60 >&2 || true
	fi
	if [[ $keep -eq 0 ]]; then
		if [[ $compose_up -eq 1 ]]; then
			compose down -v --remove-orphans >/dev/null 2>&1 || true
		fi
		if [[ -n "$started_dockerd" ]]; then
			kill -TERM "$started_dockerd" 2>/dev/null || true
			for _ in $(seq 1 100); do kill -0 "$started_dockerd" 2>/dev/null || break; sleep 0.2; done
		fi
	fi
	if [[ -n "${step_name:-}" ]]; then
		echo "docker.sh: -- ${step_name}: $((SECONDS - t_step)) s"
	fi
	echo "docker.sh: total $((SECONDS - t_all)) s, exit status $rc"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- 1. packages ------------------------------------------------------------
step "packages"
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [[ ${#need[@]} -gt 0 ]]; then
	echo "docker.sh: installing ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# ---- 2. engine --------------------------------------------------------------
step "docker engine"
if ! docker info >/dev/null 2>&1; then
	if [[ $(id -u) -ne 0 ]]; then
		echo "docker.sh: no Docker engine answers and starting dockerd needs root" >&2
		exit 1
	fi
	mkdir -p "$data_root"
	echo "docker.sh: starting dockerd --data-root $data_root (log: $cache/dockerd.log)"
	setsid dockerd --data-root "$data_root" >"$cache/dockerd.log" 2>&1 </dev/null &
	started_dockerd=$!
	for _ in $(seq 1 150); do
		docker info >/dev/null 2>&1 && break
		if ! kill -0 "$started_dockerd" 2>/dev/null; then
			echo "docker.sh: dockerd exited; its log:" >&2
			tail -n 30 "$cache/dockerd.log" >&2
			started_dockerd=""
			exit 1
		fi
		sleep 0.2
	done
	docker info >/dev/null
fi
docker version --format 'docker.sh: engine {{.Server.Version}}, client {{.Client.Version}}'

# ---- 3. local base images ---------------------------------------------------
step "local base images"
if ! docker image inspect "$debian_image" >/dev/null 2>&1; then
	tarball="$cache/debian-bookworm-minbase.tar"
	if [[ ! -s "$tarball" ]]; then
		mirror="${DEBIAN_MIRROR:-}"
		if [[ -z "$mirror" ]]; then
			mirror="$( (grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'
				grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}') |
				grep -v security | head -n 1)" || true
		fi
		if [[ -z "$mirror" ]]; then
			echo "docker.sh: no Debian mirror in the host's apt sources; set DEBIAN_MIRROR" >&2
			exit 1
		fi
		rootfs="$(mktemp -d "$cache/rootfs.XXXXXX")"
		echo "docker.sh: debootstrap --variant=minbase bookworm from $mirror"
		if ! debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1; then
			tail -n 20 "$cache/debootstrap.log" >&2
			rm -rf "$rootfs"
			exit 1
		fi
		rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
		tar -C "$rootfs" -cf "$tarball.tmp" .
		mv "$tarball.tmp" "$tarball"
		rm -rf "$rootfs"
	else
		echo "docker.sh: using the cached $tarball"
	fi
	docker import --change 'CMD ["/bin/bash"]' "$tarball" "$debian_image" >/dev/null
fi
go_version="$(go env GOVERSION)"
go_version="${go_version#go}"
go_image="cosmos-emulator-ci/golang:${go_version}-bookworm"
want_go="$(sed -n 's/^ARG GO_VERSION=//p' Dockerfile)"
if [[ "$go_version" != "$want_go" ]]; then
	echo "docker.sh: note: the host's Go is $go_version, the Dockerfile's default $want_go; the local build image uses the host's"
fi
if ! docker image inspect "$go_image" >/dev/null 2>&1; then
	ctx="$(mktemp -d)"
	cp "$here/golang.Dockerfile" "$ctx/Dockerfile"
	cp /etc/ssl/certs/ca-certificates.crt "$ctx/"
	goroot="$(go env GOROOT)"
	echo "docker.sh: building $go_image from $debian_image and $goroot"
	tar -C "$ctx" -c Dockerfile ca-certificates.crt -C "$(dirname "$goroot")" --transform "s,^$(basename "$goroot"),go," "$(basename "$goroot")" |
		DOCKER_BUILDKIT=0 docker build -q --build-arg "BASE_IMAGE=$debian_image" -t "$go_image" - >/dev/null
	rm -rf "$ctx"
fi
docker image ls --format 'docker.sh: {{.Repository}}:{{.Tag}} {{.Size}}' | grep cosmos-emulator-ci/ || true

# ---- 4. emulator image ------------------------------------------------------
step "emulator image (docker-compose build)"
# Through the compose file's build section, so that it is proven too; the
# classic builder, whose layer cache the module tests' build then reuses.
compose build --build-arg "BUILD_IMAGE=$go_image" --build-arg "RUNTIME_IMAGE=$debian_image" \
	--build-arg "GOPROXY=$(go env GOPROXY)" --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || true)" \
	>"$cache/build.log" 2>&1 || {
	tail -n 40 "$cache/build.log" >&2
	exit 1
}
docker image ls --format 'docker.sh: {{.Repository}}:{{.Tag}} {{.Size}}' "$image"
# The image says which version it is: the OCI label and --version agree
# with the Makefile's VERSION.
want_version="$(sed -n 's/^VERSION *?= *//p' Makefile)"
label_version="$(docker image inspect --format '{{ index .Config.Labels "org.opencontainers.image.version" }}' "$image")"
if [[ "$label_version" != "$want_version" ]]; then
	echo "docker.sh: image label org.opencontainers.image.version is '$label_version', want '$want_version'" >&2
	exit 1
fi
echo "docker.sh: image version label $label_version"
if [[ $bases_only -eq 1 ]]; then
	exit 0
fi

# ---- 5. compose up ----------------------------------------------------------
wait_healthy() { # seconds
	local cid status i
	cid="$(compose ps -q cosmos-emulator)"
	for ((i = 0; i < $1 * 5; i++)); do
		status="$(docker inspect -f '{{.State.Health.Status}}' "$cid" 2>/dev/null || echo missing)"
		if [[ "$status" == healthy ]] && curl -fsk --max-time 2 -o /dev/null "$endpoint/_emulator/health"; then
			echo "docker.sh: healthy after $((i / 5)) s"
			return 0
		fi
		sleep 0.2
	done
	echo "docker.sh: the emulator container is not healthy after $1 s (status $status)" >&2
	return 1
}

step "docker-compose up"
compose down -v --remove-orphans >/dev/null 2>&1 || true
compose_up=1
compose up -d
wait_healthy 120

# ---- 6. write data ----------------------------------------------------------
# cosmos VERB PATH RESOURCE-TYPE RESOURCE-LINK [BODY [PARTITION-KEY]]: a
# master-key signed REST request; prints the body, fails on a non-2xx.
cosmos() {
	local verb="$1" path="$2" rtype="$3" link="$4" body="${5:-}" pk="${6:-}" date sig hexkey
	date="$(LC_ALL=C TZ=GMT date '+%a, %d %b %Y %H:%M:%S GMT')"
	hexkey="$(printf '%s' "$key" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
	sig="$(printf '%s\n%s\n%s\n%s\n\n' "${verb,,}" "${rtype,,}" "$link" "${date,,}" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | base64)"
	local args=(-fsS --cacert "$cache/emulator.pem" --max-time 30 -X "$verb"
		-H "x-ms-date: $date" -H "x-ms-version: 2018-12-31" -H "Content-Type: application/json"
		-H "Authorization: $(printf 'type=master&ver=1.0&sig=%s' "$sig" | sed -e 's/%/%25/g' -e 's/&/%26/g' -e 's/=/%3D/g' -e 's/+/%2B/g' -e 's,/,%2F,g')")
	[[ -n "$pk" ]] && args+=(-H "x-ms-documentdb-partitionkey: $pk")
	[[ -n "$body" ]] && args+=(--data "$body")
	curl "${args[@]}" "$endpoint/$path"
}

step "write data"
# The certificate from the container's volume (not from the network), so the
# checks below verify TLS for real.
docker cp "$(compose ps -q cosmos-emulator):/data/emulator.pem" "$cache/emulator.pem"
cosmos POST dbs dbs "" '{"id":"cidb"}' >/dev/null
cosmos POST dbs/cidb/colls colls dbs/cidb '{"id":"cicoll","partitionKey":{"paths":["/pk"],"kind":"Hash"}}' >/dev/null
cosmos POST dbs/cidb/colls/cicoll/docs docs dbs/cidb/colls/cicoll '{"id":"kept","pk":"a","note":"written before restart"}' '["a"]' >/dev/null
echo "docker.sh: wrote dbs/cidb/colls/cicoll/docs/kept"

# ---- 7. SDK smoke tests -----------------------------------------------------
step "Go SDK emulator tests (subset) against the compose stack"
SDK_TESTS_ENDPOINT_RUNNING=1 bash scripts/sdk-tests/run.sh -run "$sdk_subset"

step "JS SDK smoke test against the compose stack"
if [[ ! -d compat_test/js/node_modules ]]; then
	(cd compat_test/js && npm ci --no-audit --no-fund >/dev/null)
fi
COSMOS_ENDPOINT="$endpoint/" node compat_test/js/smoke.mjs

# ---- 8. restart -------------------------------------------------------------
step "docker-compose restart keeps the data"
compose restart
wait_healthy 120
got="$(cosmos GET dbs/cidb/colls/cicoll/docs/kept docs dbs/cidb/colls/cicoll/docs/kept "" '["a"]')"
if [[ "$got" != *'"note":"written before restart"'* ]]; then
	echo "docker.sh: after the restart the item reads $got" >&2
	exit 1
fi
echo "docker.sh: the item survived the restart"

# ---- 9. testcontainers module -----------------------------------------------
step "testcontainers module tests (cosmoscontainer)"
# testcontainers takes a machine with /.dockerenv for a container and would
# dial the default gateway; the engine here is local. Ryuk's image cannot be
# pulled without a registry; the tests terminate their containers.
if [[ -z "${DOCKER_HOST:-}" && -z "${TESTCONTAINERS_HOST_OVERRIDE:-}" ]]; then
	export TESTCONTAINERS_HOST_OVERRIDE=localhost
fi
# COSMOS_COMPOSE_CONTAINER: the stack's emulator, which TestComposeStack
# checks (health, loopback-only ports, named volume, certificate names).
CI=true COSMOS_DOCKER_TESTS=1 COSMOS_EMULATOR_IMAGE="$image" \
	COSMOS_COMPOSE_CONTAINER="$(compose ps -q cosmos-emulator)" \
	COSMOS_DOCKER_BUILD_ARGS="BUILD_IMAGE=$go_image RUNTIME_IMAGE=$debian_image GOPROXY=$(go env GOPROXY)" \
	TESTCONTAINERS_RYUK_DISABLED=true \
	go test -count=1 -v -timeout 15m ./cosmoscontainer/

step "tear down the compose stack"
compose down -v --remove-orphans
compose_up=0

# ---- 11, 12. Testcontainers for Java and Python -----------------------------
# As their users run them on a laptop: the reaper's image cannot be pulled
# here, and testcontainers-python would reach the containers through the
# bridge network when it finds /.dockerenv (docker_host: the mapped ports).
export TESTCONTAINERS_RYUK_DISABLED=true
step "Testcontainers for Java (compat_test/testcontainers/java)"
mvn -B -ntp -f compat_test/testcontainers/java/pom.xml test

step "testcontainers-python (compat_test/testcontainers/python)"
venv="$cache/testcontainers-python"
reqs=compat_test/testcontainers/python/requirements.txt
if ! cmp -s "$reqs" "$venv/requirements.txt"; then
	rm -rf "$venv"
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check --require-hashes -r "$reqs"
	cp "$reqs" "$venv/requirements.txt"
fi
TESTCONTAINERS_CONNECTION_MODE=docker_host "$venv/bin/python" -m pytest -p no:cacheprovider -v compat_test/testcontainers/python

step "done"
echo "docker.sh: all container checks passed"
