#!/usr/bin/env bash
# Runs the whole system on its embedded defaults: builds both binaries,
# starts the catalog and the gateway with dev/gateway.yaml, creates a
# development key and prints a curl line for it. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

go build -o bin/ ./...
tmp=$(mktemp -d)
pids=()
cleanup() {
  [ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export GATEWAY_KEYS_FILE="$tmp/keys.yaml"
key=$(bin/gateway keys create -config dev/gateway.yaml -name "development key" \
  -product exercisedb=Pro -product exercisedb-video=Ultra)

bin/catalog -log-format text &
pids+=($!)
bin/gateway -config dev/gateway.yaml &
pids+=($!)

for _ in $(seq 100); do
  curl -sf http://127.0.0.1:9091/readyz >/dev/null 2>&1 && break
  sleep 0.1
done

cat <<TXT

The catalog listens on 127.0.0.1:9090 (gRPC) and the gateway on 127.0.0.1:8080.
Development key (plan Pro on exercisedb, Ultra on exercisedb-video): $key

  curl -s -H 'X-Gateway-Key: $key' 'http://127.0.0.1:8080/api/v1/exercises?bodyParts=chest&limit=2'

Ctrl-C stops both.
TXT
wait -n  # until Ctrl-C, or until either process exits
