package httpapi

import (
	_ "embed" // the OpenAPI document

	"github.com/gin-gonic/gin"
)

// openAPIDocument is the OpenAPI 3.1 description of the public API. It is
// written by hand, not generated: internal/systemtest validates the
// gateway's real responses against it, so the two cannot drift apart
// unnoticed.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIFile is the document as served: gzipped, like the /docs page
// that fetches it, to clients that accept it (72 KB plain, 9 KB gzipped).
var openAPIFile = newStaticFile(openAPIDocument, "application/json", "public, max-age=3600", true)

// openAPI serves the OpenAPI document. Like the error pages it is public:
// no key, no product. If-None-Match with its ETag gives 304.
func (a *api) openAPI(c *gin.Context) { a.serveStatic(c, openAPIFile, a.Compression) }
