# One Dockerfile for both binaries:
#   docker build --build-arg CMD=catalog -t exercisedb/catalog .
#   docker build --build-arg CMD=gateway -t exercisedb/gateway .
# Static, non-root, nothing but the binary and the health probe.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG CMD=catalog
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/app ./cmd/${CMD} \
 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/probe ./cmd/probe

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/app /app
COPY --from=build /out/probe /probe
USER nonroot:nonroot
ENTRYPOINT ["/app"]
