# One Dockerfile for the binaries:
#   docker build --build-arg CMD=catalog -t exercisedb/catalog .
#   docker build --build-arg CMD=gateway -t exercisedb/gateway .
#   docker build --build-arg CMD=mediagen --target mediagen -t exercisedb/mediagen .
# The context has no .git, so -version and exercisedb_build_info learn the
# build from VERSION and REVISION, e.g.
#   --build-arg VERSION=$(git describe --tags --always) --build-arg REVISION=$(git rev-parse HEAD)
# Static, non-root, nothing but the binary and the health probe; mediagen
# alone runs on Debian slim, for Debian's ffmpeg (it encodes the MP4s).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG CMD=catalog
ARG VERSION=""
ARG REVISION=""
RUN CGO_ENABLED=0 go build -trimpath -o /out/app \
      -ldflags="-s -w -X github.com/exercisedb/exercisedb/pkg/buildinfo.Version=${VERSION} -X github.com/exercisedb/exercisedb/pkg/buildinfo.Revision=${REVISION}" \
      ./cmd/${CMD} \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/probe ./cmd/probe

# The media set's renderer and publisher (build with CMD=mediagen):
#   docker run --rm exercisedb/mediagen render -out /tmp/media
# Debian 12 (bookworm), the release of the distroless base too; a user
# without a passwd entry, so HOME is set for it.
FROM debian:bookworm-slim AS mediagen
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/app /usr/local/bin/mediagen
USER 65532:65532
ENV HOME=/tmp
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/mediagen"]

# The default target, last: the catalog and the gateway.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/app /app
COPY --from=build /out/probe /probe
USER nonroot:nonroot
ENTRYPOINT ["/app"]
