// Package docsui holds the interactive API reference served at /docs:
// Swagger UI, vendored from the npm package swagger-ui-dist into
// swagger-ui-dist/ by scripts/update-docs-ui.sh (its version is in
// swagger-ui-dist/VERSION), and the page that starts it on /openapi.json.
// Everything is embedded, so the page works offline.
package docsui

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"path"
	"strings"
)

// The files are embedded one variable each rather than as an embed.FS,
// whose ReadFile copies a file to the heap: 2.4 MB the gateway would keep
// live for a page few requests ask for, and the collector would pace
// itself by (see cmd/gateway's memory limit). Embedded variables stay in
// the binary's data, read from the file only when served.
var (
	//go:embed page.html
	pageHTML []byte
	//go:embed init.js
	initJS []byte
	//go:embed swagger-ui-dist/swagger-ui-bundle.js
	bundleJS []byte
	//go:embed swagger-ui-dist/swagger-ui.css
	uiCSS []byte
)

// ContentSecurityPolicy is the policy of the page: scripts, styles and
// requests from its own origin only, no inline script or style. Swagger
// UI's stylesheet draws some icons as data: images.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// File is an asset of the page.
type File struct {
	// Name is the file's name under /docs/assets/. It contains a hash of
	// the content, so a response for it may be cached for ever.
	Name        string
	ContentType string
	Body        []byte
}

// Page is the HTML of /docs. It links the assets by name, relative to
// /docs, and depends on nothing of the request.
var Page []byte

// Assets are the files Page loads.
var Assets []File

func init() {
	var names []string
	for _, f := range []struct {
		file, contentType string
		body              []byte
	}{
		{"swagger-ui-dist/swagger-ui.css", "text/css; charset=utf-8", uiCSS},
		{"swagger-ui-dist/swagger-ui-bundle.js", "text/javascript; charset=utf-8", bundleJS},
		{"init.js", "text/javascript; charset=utf-8", initJS},
	} {
		base := path.Base(f.file)
		sum := sha256.Sum256(f.body)
		ext := path.Ext(base)
		name := strings.TrimSuffix(base, ext) + "." + hex.EncodeToString(sum[:8]) + ext
		Assets = append(Assets, File{Name: name, ContentType: f.contentType, Body: f.body})
		names = append(names, "{{"+base+"}}", name)
	}
	Page = []byte(strings.NewReplacer(names...).Replace(string(pageHTML)))
}
