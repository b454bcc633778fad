package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/httpapi/docsui"
)

// staticFile is a public response fixed at build time: the OpenAPI
// document, the /docs page and its assets.
type staticFile struct {
	body         []byte
	contentType  string
	etag         string // strong, from the content
	cacheControl string
	// gzipped, if not nil, is the body compressed once, on first use.
	gzipped func() []byte
}

func newStaticFile(body []byte, contentType, cacheControl string, compress bool) *staticFile {
	sum := sha256.Sum256(body)
	f := &staticFile{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, cacheControl: cacheControl}
	if compress && len(body) >= minCompressed {
		f.gzipped = sync.OnceValue(func() []byte { return gzipBody(body) })
	}
	return f
}

// serveStatic writes f, gzipped when compression is on and the client
// accepts it; If-None-Match with its ETag gives 304, an If-Match without
// it 412, as on the API's routes; HEAD no body.
func (a *api) serveStatic(c *gin.Context, f *staticFile, compression bool) {
	etag, body := f.etag, f.body
	var cd *coding
	if compression && f.gzipped != nil {
		c.Writer.Header().Add("Vary", "Accept-Encoding")
		if cd = negotiate(c.GetHeader("Accept-Encoding")); cd != nil {
			etag = cd.etag(f.etag)
		}
	}
	c.Header("ETag", etag)
	c.Header("Cache-Control", f.cacheControl)
	if a.preconditions(c, etag) {
		return
	}
	if cd != nil {
		body = f.gzipped()
		c.Header("Content-Encoding", cd.name)
	}
	c.Header("Content-Type", f.contentType)
	c.Header("Content-Length", strconv.Itoa(len(body)))
	c.Status(http.StatusOK)
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.Write(body)
	} else {
		c.Writer.WriteHeaderNow()
	}
}

// The page revalidates on every visit (a cheap 304), so that after an
// upgrade it never links assets this gateway no longer has; the assets'
// names change with their content, so they are cached for ever.
var (
	referencePage   = newStaticFile(docsui.Page, "text/html; charset=utf-8", "public, no-cache", true)
	referenceAssets = func() map[string]*staticFile {
		m := map[string]*staticFile{}
		for _, f := range docsui.Assets {
			m[f.Name] = newStaticFile(f.Body, f.ContentType, "public, max-age=31536000, immutable", true)
		}
		return m
	}()
)

// apiReference serves /docs, the interactive reference: public like the
// error pages, and the same for every request, whatever its Host.
func (a *api) apiReference(c *gin.Context) {
	c.Header("Content-Security-Policy", docsui.ContentSecurityPolicy)
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Referrer-Policy", "no-referrer")
	a.serveStatic(c, referencePage, a.Compression)
}

// docsSlash sends /docs/ to /docs with a 301, as gin's RedirectTrailingSlash
// would: people type the slash, and the page's relative links do not work
// from there. It is the one redirect: paths are otherwise exact, since an
// API client should not follow redirects with its key. The Location is
// relative, as the page's links are, so it holds behind a path prefix; the
// query goes along.
func docsSlash(c *gin.Context) {
	loc := "../docs"
	if q := c.Request.URL.RawQuery; q != "" {
		loc += "?" + q
	}
	c.Header("Location", loc)
	c.Status(http.StatusMovedPermanently)
	c.Writer.WriteHeaderNow()
}

// referenceAsset serves a file of the /docs page.
func (a *api) referenceAsset(c *gin.Context) {
	f, ok := referenceAssets[c.Param("file")]
	if !ok {
		a.noRoute(c)
		return
	}
	c.Header("X-Content-Type-Options", "nosniff")
	a.serveStatic(c, f, a.Compression)
}
