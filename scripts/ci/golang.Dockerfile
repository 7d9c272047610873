# A Go build image made from a local Debian base and the host's Go
# toolchain, for machines that cannot pull golang:<version> (see
# scripts/ci/docker.sh, which builds it with the toolchain directory "go"
# next to this file in the build context). Same layout as the official
# golang image: Go in /usr/local/go, GOPATH /go. It trusts the host's CA
# bundle (ca-certificates.crt in the build context), so that `go mod
# download` works behind a proxy the host trusts.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN set -eux; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates git; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY go /usr/local/go
ENV GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin GOTOOLCHAIN=local
WORKDIR /go
