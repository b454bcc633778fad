#!/bin/sh
# Makes a development CA and the certificates of the hop between the
# gateway and the catalog (mTLS), with openssl:
#
#   deploy/dev-certs.sh [dir]        (dir: deploy/certs by default)
#
#   ca.key, ca.crt          the CA; ca.crt is what both sides trust
#   catalog.crt, .key       the catalog's server certificate
#   gateway.crt, .key       the gateway's client certificate
#
# The CA is made once and kept; each run issues new catalog and gateway
# certificates from it, replacing the files by rename so that the running
# binaries reload them whole (rotation: run it again). Names the catalog's
# certificate carries: "catalog", "localhost", 127.0.0.1, and the
# space-separated DNS names in CATALOG_NAMES (for example
# "catalog.exercisedb.svc.cluster.local"). DAYS sets the validity (90).
#
# For development only: the keys are left readable by every user, so that
# the containers (user nonroot) can read them from a bind mount.
set -eu

dir=${1:-$(dirname "$0")/certs}
days=${DAYS:-90}
mkdir -p "$dir"
cd "$dir"

if [ ! -f ca.key ] || [ ! -f ca.crt ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout ca.key -out ca.crt -days 3650 -subj "/CN=exercisedb development CA" \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
	echo "made the CA: $dir/ca.crt"
fi

# issue NAME USAGE SAN: a key and a certificate signed by the CA, written
# beside their final names and renamed over them.
issue() {
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout ".$1.key.new" -out ".$1.csr" -subj "/CN=$1" 2>/dev/null
	printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\nsubjectAltName=%s\n' "$2" "$3" >".$1.ext"
	openssl x509 -req -in ".$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial \
		-days "$days" -extfile ".$1.ext" -out ".$1.crt.new" 2>/dev/null
	chmod 644 ".$1.key.new" ".$1.crt.new"
	rm -f ".$1.csr" ".$1.ext"
	# The key first: until the certificate follows, the pair does not match
	# and a reload keeps the previous one.
	mv ".$1.key.new" "$1.key"
	mv ".$1.crt.new" "$1.crt"
	echo "issued $dir/$1.crt ($2, $3)"
}

san="DNS:catalog,DNS:localhost,IP:127.0.0.1"
for name in ${CATALOG_NAMES:-}; do
	san="$san,DNS:$name"
done
issue catalog serverAuth "$san"
issue gateway clientAuth "DNS:gateway"
