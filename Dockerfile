# syntax=docker/dockerfile:1

# Azure Cosmos DB emulator image.
#
#   docker build -t cosmos-emulator .
#   docker run --rm -p 8081:8081 -e COSMOS_EMULATOR_PG='postgres://…' cosmos-emulator
#
# Every flag can also be set with an environment variable
# COSMOS_EMULATOR_<FLAG> (upper case, dashes as underscores). See
# docker-compose.yml for a ready-to-run setup with PostgreSQL.

ARG GO_VERSION=1.26

# ---- build ------------------------------------------------------------------
FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src

# Dependencies first, so that this layer is reused while only sources change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download

COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/cosmos-emulator ./cmd/cosmos-emulator

# ---- runtime ----------------------------------------------------------------
# debian-slim rather than distroless so that the health check can use curl.
FROM debian:bookworm-slim AS runtime

RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 cosmos \
    && useradd --system --uid 10001 --gid cosmos --home-dir /var/lib/cosmos-emulator --no-create-home --shell /usr/sbin/nologin cosmos \
    && install -d -o cosmos -g cosmos -m 0750 /var/lib/cosmos-emulator

COPY --from=build /out/cosmos-emulator /usr/local/bin/cosmos-emulator

# The data directory holds the generated TLS certificate (emulator.pem, also
# served at /_explorer/emulator.pem); mount a volume there to keep it, and so
# the trust clients put in it, across container restarts.
ENV COSMOS_EMULATOR_DATA_DIR=/var/lib/cosmos-emulator
WORKDIR /var/lib/cosmos-emulator
USER cosmos:cosmos

EXPOSE 8081

# Works for both --protocol https (the default; the self-signed certificate
# is not verified here) and --protocol http.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD curl -fsk https://127.0.0.1:8081/_emulator/health || curl -fs http://127.0.0.1:8081/_emulator/health || exit 1

# Arguments given to `docker run IMAGE …` (or compose's `command:`) are
# appended to these.
ENTRYPOINT ["/usr/local/bin/cosmos-emulator", "--addr", "0.0.0.0:8081"]
