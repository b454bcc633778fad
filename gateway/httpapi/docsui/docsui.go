// Package docsui holds the interactive API reference served at /docs:
// Swagger UI, vendored from the npm package swagger-ui-dist into
// swagger-ui-dist/ by scripts/update-docs-ui.sh (its version is in
// swagger-ui-dist/VERSION), and the page that starts it on /openapi.json.
// Everything is embedded, so the page works offline.
package docsui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"path"
	"strings"
)

//go:embed page.html init.js swagger-ui-dist/swagger-ui-bundle.js swagger-ui-dist/swagger-ui.css
var files embed.FS

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
	for _, f := range []struct{ file, contentType string }{
		{"swagger-ui-dist/swagger-ui.css", "text/css; charset=utf-8"},
		{"swagger-ui-dist/swagger-ui-bundle.js", "text/javascript; charset=utf-8"},
		{"init.js", "text/javascript; charset=utf-8"},
	} {
		body := read(f.file)
		base := path.Base(f.file)
		sum := sha256.Sum256(body)
		ext := path.Ext(base)
		name := strings.TrimSuffix(base, ext) + "." + hex.EncodeToString(sum[:8]) + ext
		Assets = append(Assets, File{Name: name, ContentType: f.contentType, Body: body})
		names = append(names, "{{"+base+"}}", name)
	}
	Page = []byte(strings.NewReplacer(names...).Replace(string(read("page.html"))))
}

func read(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	return b
}
