# Azure Cosmos DB emulator image: one container, like Microsoft's emulator.
# The emulator runs its own PostgreSQL (Debian's postgresql-15, C locale)
# inside the container, as an unprivileged user, with its data in /data.
#
#   docker build -t cosmos-emulator .
#   docker run --rm -p 8081:8081 cosmos-emulator              # http://localhost:8081/
#   docker run -p 8081:8081 -p 8080:8080 -v cosmos-data:/data \
#       -e PROTOCOL=https cosmos-emulator                      # https, data kept
#
# Like Microsoft's image it serves plain HTTP unless PROTOCOL=https, and
# takes Microsoft's variables (PORT, PROTOCOL, ENABLE_EXPLORER, ...) and
# flags (--enable-explorer false, ...). Every flag of the emulator can also
# be set with COSMOS_EMULATOR_<FLAG> (upper case, dashes as underscores),
# which wins over Microsoft's variables; arguments given to
# `docker run IMAGE ...` (or compose's `command:`) are passed to the
# emulator. To use an external PostgreSQL instead of the embedded one, pass
# --pg postgres://...
#
# Base images are build arguments, so that machines without a registry can
# build from local images (scripts/ci/docker.sh does):
#
#   docker build --build-arg BUILD_IMAGE=my/golang:1.26.8 \
#                --build-arg RUNTIME_IMAGE=my/debian:bookworm -t cosmos-emulator .
#
# The Dockerfile needs no BuildKit feature (testcontainers builds with the
# classic builder).

# The Go version of go.mod's go directive (a test checks they match).
ARG GO_VERSION=1.26.8
# The emulator's release version (server.Version's default; a test checks
# they match) and the VCS revision (git rev-parse HEAD; the build context
# has no .git), stamped into the binary (--version) and the image's labels.
# make image passes both.
ARG VERSION=0.9.0
ARG REVISION=
ARG BUILD_IMAGE=golang:${GO_VERSION}-bookworm
# Debian 12.11 (bookworm): its postgresql-15 is the PostgreSQL inside.
ARG RUNTIME_IMAGE=debian:12.11-slim

# ---- build ------------------------------------------------------------------
FROM ${BUILD_IMAGE} AS build
# The module proxy to download from (default: go's own default).
ARG GOPROXY
ENV GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
WORKDIR /src

# Dependencies first, so that this layer is reused while only sources change.
COPY go.mod go.sum ./
RUN go mod download

COPY . .
ARG VERSION
ARG REVISION
RUN CGO_ENABLED=0 go build -trimpath \
        -ldflags="-s -w -X github.com/cosmos-emulator/cosmos-emulator/server.Version=${VERSION} -X github.com/cosmos-emulator/cosmos-emulator/server.Revision=${REVISION}" \
        -o /out/cosmos-emulator ./cmd/cosmos-emulator

# ---- runtime ----------------------------------------------------------------
FROM ${RUNTIME_IMAGE} AS runtime
ARG PG_MAJOR=15

# postgresql-common would create a "main" cluster on install: the emulator
# creates its own in /data on first start (initdb, UTF8, locale C). curl is
# for health checks (compose and GitHub service containers run them inside
# the container), tini reaps orphans as PID 1. Not unpacked: documentation,
# translations and PostgreSQL's LLVM JIT (about 130 MB; without its provider
# PostgreSQL simply does not JIT-compile).
RUN set -eux; \
    printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
        'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' \
        'path-exclude=/usr/lib/*/libLLVM-*' 'path-exclude=/usr/lib/postgresql/*/lib/llvmjit*' \
        >/etc/dpkg/dpkg.cfg.d/cosmos-emulator-slim; \
    mkdir -p /etc/postgresql-common/createcluster.d; \
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/cosmos-emulator.conf; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        "postgresql-${PG_MAJOR}" ca-certificates curl tini; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb; \
    test -x "/usr/lib/postgresql/${PG_MAJOR}/bin/initdb"; \
    groupadd --system --gid 10001 cosmos; \
    useradd --system --uid 10001 --gid cosmos --home-dir /data --no-create-home --shell /usr/sbin/nologin cosmos; \
    install -d -o cosmos -g cosmos -m 0750 /data

COPY --from=build /out/cosmos-emulator /usr/local/bin/cosmos-emulator

# After the packages, so that a new revision does not re-run apt-get.
ARG VERSION
ARG REVISION
LABEL org.opencontainers.image.title="cosmos-emulator" \
      org.opencontainers.image.description="Azure Cosmos DB for NoSQL emulator over PostgreSQL" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/cosmos-emulator/cosmos-emulator"

# Microsoft's image's defaults, through the same variables, so that the
# tools that start that image can set them: PROTOCOL=http (https when asked),
# PORT (8081 unless set; the address here names no port, so PORT applies),
# the health server on 8080 (/alive, /ready), DATA_PATH=/data. /data holds
# the PostgreSQL cluster (/data/postgres) and the TLS certificate
# (emulator.pem, also served at /_explorer/emulator.pem). Mount a volume
# there to keep both across container re-creation. With PROTOCOL=https the
# certificate is also written where Microsoft's classic image keeps it,
# which testcontainers-python copies out of the container.
# Durability: /data is a volume, so writes are flushed to disk (full). A
# throwaway container whose data is removed with it can set
# COSMOS_EMULATOR_DURABILITY=process: no flush, and an acknowledged write
# still survives a kill of the emulator or PostgreSQL (not a host crash);
# the Go testcontainers module does so when it mounts nothing.
ENV COSMOS_EMULATOR_ADDR=0.0.0.0 \
    PROTOCOL=http \
    COSMOS_EMULATOR_CERT_EXPORT=/tmp/cosmos/appdata/.system/profiles/Client/AppData/Local/CosmosDBEmulator/emulator.pem \
    DATA_PATH=/data
VOLUME ["/data"]
WORKDIR /data
USER cosmos:cosmos

EXPOSE 8081 8080 1234 10251

# The health server's /ready (plain http whatever PROTOCOL), else the main
# port's health endpoint over http or https.
HEALTHCHECK --interval=5s --timeout=5s --start-period=60s --retries=3 \
    CMD curl -fs "http://127.0.0.1:${HEALTH_PORT:-8080}/ready" || curl -fs "http://127.0.0.1:${PORT:-8081}/_emulator/health" || curl -fsk "https://127.0.0.1:${PORT:-8081}/_emulator/health" || exit 1

ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/cosmos-emulator"]
