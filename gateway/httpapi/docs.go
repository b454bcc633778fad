package httpapi

import (
	"cmp"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/queryparam"
)

// errorDocs describes when the gateway answers each code.
var errorDocs = map[string]string{
	apierror.CodeBadRequest: "The query is invalid: an unknown parameter, a limit outside 1 to 25, an unknown filter value, " +
		"a malformed or unknown cursor, or after and before together. The message names the parameter and the value.",
	apierror.CodeUnauthorized: "The X-Gateway-Key header is missing, or the key is unknown or disabled.",
	apierror.CodeForbidden: "The key is valid but its plan does not allow this: no subscription to the product, an operation " +
		"outside the plan, or a cursor beyond the plan's record cap.",
	apierror.CodeNotFound:         "No such endpoint, no product at the host named by X-Gateway-Host (or Host), or no exercise with this id.",
	apierror.CodeMethodNotAllowed: "The endpoint exists but answers only GET and HEAD; the Allow header lists them.",
	apierror.CodeConflict:         "The request conflicts with the current state of the server: the admin API's create names a key id that exists already. The public API does not use it.",
	apierror.CodeContentTooLarge:  "The request body is larger than the endpoint takes: the admin API's bodies are at most 64 KiB. The public API takes no bodies.",
	apierror.CodePreconditionFailed: "If-Match was sent and none of its entity tags matches the response's ETag " +
		"(the catalogue changed since the tag was taken).",
	apierror.CodeTooManyRequests: "The plan's rate limit or quota is exhausted, or the address failed authentication too often. " +
		"Retry-After says how many seconds to wait; the X-RateLimit-* and RateLimit headers give the details.",
	apierror.CodeInternal: "The gateway failed unexpectedly. Quote the requestId when reporting it.",
	apierror.CodeServiceUnavailable: "The exercise catalogue is unreachable or too slow, or rate limits cannot be checked. " +
		"Retry after the number of seconds in Retry-After.",
}

func statusOf(code string) int {
	for status, c := range apierror.Codes() {
		if c == code {
			return status
		}
	}
	return 0
}

// errorDoc serves the page a docs link points to.
func (a *api) errorDoc(c *gin.Context) {
	code := c.Param("code")
	text, ok := errorDocs[code]
	if !ok {
		a.fail(c, apierror.New(http.StatusNotFound, "There is no error code %s; see %s/errors for the list.", queryparam.Show(code), a.docsURL(c)))
		return
	}
	status := statusOf(code)
	writeHTML(c, code, fmt.Sprintf("<p>HTTP status <b>%d %s</b>.</p>\n<p>%s</p>\n<p>Every error has the body "+
		"<code>{\"error\":{\"code\",\"docs\",\"message\",\"requestId\"}}</code>; the message says what to change.</p>\n"+
		"<p><a href=\"%s/errors\">All error codes</a> · <a href=\"%[4]s\">API reference</a></p>\n",
		status, html.EscapeString(http.StatusText(status)), html.EscapeString(text), html.EscapeString(a.pageDocsURL())))
}

// pageDocsURL is the base of the links in the documentation pages. The
// pages are publicly cacheable, so without docs_url their links are
// relative to this gateway rather than built from the request's Host, which
// a client controls.
func (a *api) pageDocsURL() string { return cmp.Or(a.DocsURL, "/docs") }

// errorIndex lists every code.
func (a *api) errorIndex(c *gin.Context) {
	var codes []string
	for code := range errorDocs {
		codes = append(codes, code)
	}
	slices.SortFunc(codes, func(x, y string) int { return statusOf(x) - statusOf(y) })
	var b strings.Builder
	b.WriteString("<ul>\n")
	for _, code := range codes {
		fmt.Fprintf(&b, "<li><a href=\"%s/errors/code/%s\">%d %s</a></li>\n", html.EscapeString(a.pageDocsURL()), code, statusOf(code), code)
	}
	fmt.Fprintf(&b, "</ul>\n<p><a href=\"%s\">API reference</a>: every operation, tried with your key.</p>\n", html.EscapeString(a.pageDocsURL()))
	writeHTML(c, "Error codes", b.String())
}

func writeHTML(c *gin.Context, title, body string) {
	page := "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) +
		"</title></head>\n<body>\n<h1>" + html.EscapeString(title) + "</h1>\n" + body + "</body></html>\n"
	c.Header("Content-Type", "text/html; charset=utf-8")
	c.Header("Content-Length", strconv.Itoa(len(page)))
	c.Header("Cache-Control", "public, max-age=3600")
	c.Status(http.StatusOK)
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.WriteString(page)
	}
}
