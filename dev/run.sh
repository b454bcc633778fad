#!/usr/bin/env bash
# Runs the whole system on its embedded defaults: builds both binaries,
# starts the catalog and the gateway with dev/gateway.yaml, and prints the
# development key (made on the first run, then kept) and a curl line for
# it. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

# Refuse at once, before building, if another make run (or anything else)
# holds one of the ports: the gateway 8080, its admin 9091, the catalog
# 9090 and its admin 9092.
for port in 8080 9091 9090 9092; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "make run: 127.0.0.1:$port is taken (another make run?); stop it first." >&2
    exit 1
  fi
done

echo "Building bin/catalog and bin/gateway (the first build downloads modules and compiles for a few minutes; later ones take seconds)..."
start=$SECONDS
go build -o bin/ ./cmd/catalog ./cmd/gateway
echo "Built in $((SECONDS - start))s."
pids=()
cleanup() {
  [ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The keys live in dev/keys.yaml (not in git), which the gateway follows:
# keys made with "bin/gateway keys create -config dev/gateway.yaml" while
# it runs work at once, and stay for the next run. The development key is
# kept beside them in dev/dev-key (not in git; the keys file holds only its
# hash), so a key exported in a shell keeps working after a restart. It is
# made again only when the keys file no longer has it (make reset, or the
# file deleted).
keys_file=${GATEWAY_KEYS_FILE:-dev/keys.yaml}
key_file=$(dirname "$keys_file")/dev-key
key=
if [ -s "$key_file" ]; then
  key=$(cat "$key_file")
  hash="sha256:$(printf '%s' "$key" | sha256sum | cut -d' ' -f1)"
  grep -qF "$hash" "$keys_file" 2>/dev/null || key=
fi
if [ -n "$key" ]; then
  key_note="kept in $key_file"
else
  bin/gateway keys delete -config dev/gateway.yaml key_dev 2>/dev/null || true
  key=$(bin/gateway keys create -config dev/gateway.yaml -id key_dev -name "development key" \
    -product exercisedb=Pro -product exercisedb-video=Ultra)
  (umask 077 && printf '%s\n' "$key" > "$key_file")
  key_note="new, kept in $key_file until make reset"
fi

# The media URLs' signing secret stays across runs (dev/media-secret, not
# in git), so that URLs an app kept keep working after a restart.
[ -s dev/media-secret ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > dev/media-secret
export GATEWAY_MEDIA_SIGNING_SECRET="$(cat dev/media-secret)"

bin/catalog -log-format text &
pids+=($!)
bin/gateway -config dev/gateway.yaml &
pids+=($!)

ready=
for _ in $(seq 150); do
  if curl -sf http://127.0.0.1:9091/readyz >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.1
done
if [ -z "$ready" ]; then
  echo "make run: the gateway is not ready after 15s; see the log lines above." >&2
  exit 1
fi

cat <<TXT

The catalog listens on 127.0.0.1:9090 (gRPC) and the gateway on 127.0.0.1:8080.
Development key ($key_note; plan Pro on exercisedb, Ultra on exercisedb-video):

$key

Try it:

  curl -s -H 'X-Gateway-Key: $key' 'http://127.0.0.1:8080/api/v1/exercises?bodyParts=chest&limit=2'

Ctrl-C stops both.
TXT
wait -n  # until Ctrl-C, or until either process exits
