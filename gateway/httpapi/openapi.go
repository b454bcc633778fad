package httpapi

import (
	"crypto/sha256"
	_ "embed" // the OpenAPI document
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
)

// openAPIDocument is the OpenAPI 3.1 description of the public API. It is
// written by hand, not generated: internal/systemtest validates the
// gateway's real responses against it, so the two cannot drift apart
// unnoticed.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIETag is the strong entity tag of the document.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDocument)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}()

// openAPI serves the OpenAPI document. Like the error pages it is public:
// no key, no product. If-None-Match with its ETag gives 304.
func (a *api) openAPI(c *gin.Context) {
	c.Header("ETag", openAPIETag)
	c.Header("Cache-Control", "public, max-age=3600")
	if inm := c.GetHeader("If-None-Match"); inm != "" && matches(inm, openAPIETag, true) {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		return
	}
	c.Header("Content-Type", "application/json")
	c.Header("Content-Length", strconv.Itoa(len(openAPIDocument)))
	c.Status(http.StatusOK)
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.Write(openAPIDocument)
	} else {
		c.Writer.WriteHeaderNow()
	}
}
