#!/usr/bin/env bash
# Refreshes the Swagger UI files that /docs serves from the npm registry:
#   scripts/update-docs-ui.sh [version|latest]   (default: the version in VERSION)
# It copies the bundle, its stylesheet and the licences into
# gateway/httpapi/docsui/swagger-ui-dist/ and records the version there.
# Review the diff, then run the browser test:
#   go test -run TestAPIReferenceInBrowser ./internal/systemtest
set -euo pipefail
cd "$(dirname "$0")/.."
dest=gateway/httpapi/docsui/swagger-ui-dist
version="${1:-$(cat "$dest/VERSION")}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "swagger-ui-dist@$version" >/dev/null && tar -xzf swagger-ui-dist-*.tgz)
got=$(node -p 'require(process.argv[1]).version' "$tmp/package/package.json")
[ "$version" = latest ] && version=$got
[ "$got" = "$version" ] || { echo "npm gave swagger-ui-dist $got, not $version" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest"
# The UMD bundle and its stylesheet are all the page loads: no source maps,
# no standalone preset (its top bar loads any URL), no sample index.html.
for f in swagger-ui-bundle.js swagger-ui.css LICENSE NOTICE swagger-ui-bundle.js.LICENSE.txt; do
  cp "$tmp/package/$f" "$dest/$f"
done
# The stylesheet ends with a sourceMappingURL to a map that is not vendored.
sed -i 's|/\*# sourceMappingURL=[^*]*\*/||' "$dest/swagger-ui.css"
echo "$version" >"$dest/VERSION"
echo "swagger-ui-dist $version in $dest"
