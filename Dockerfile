# One Dockerfile for both binaries:
#   docker build --build-arg CMD=catalog -t exercisedb/catalog .
#   docker build --build-arg CMD=gateway -t exercisedb/gateway .
# The context has no .git, so -version and exercisedb_build_info learn the
# build from VERSION and REVISION, e.g.
#   --build-arg VERSION=$(git describe --tags --always) --build-arg REVISION=$(git rev-parse HEAD)
# Static, non-root, nothing but the binary and the health probe.
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

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/app /app
COPY --from=build /out/probe /probe
USER nonroot:nonroot
ENTRYPOINT ["/app"]
