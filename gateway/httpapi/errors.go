package httpapi

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/queryparam"
	"github.com/exercisedb/exercisedb/pkg/english"
)

// fail answers with the error envelope and stops the chain. It is the one
// writer of error responses: 404, 405, panics and timeouts all come here.
func (a *api) fail(c *gin.Context, err error) {
	e := apierror.From(publicError(err))
	if e.Err != nil {
		level := slog.LevelWarn
		switch {
		case e.Status == http.StatusServiceUnavailable:
			// A dependency is down: the catalog client and the limit
			// store log each outage once, not once per request.
			level = slog.LevelDebug
		case e.Status >= 500:
			level = slog.LevelError
		}
		a.Log.LogAttrs(c, level, "request failed", slog.String("request_id", requestIDOf(c)),
			slog.Int("status", e.Status), slog.String("error", e.Err.Error()))
	}
	if e.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(max(1, limit.Seconds(e.RetryAfter))))
	}
	c.Header("Cache-Control", "no-store")
	writeJSON(c, e.Status, e.Body(a.docsURL(c), requestIDOf(c)))
	c.Abort()
}

// docsURL is the base of the documentation links.
func (a *api) docsURL(c *gin.Context) string {
	if a.DocsURL != "" {
		return a.DocsURL
	}
	scheme := "http"
	if c.Request.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + linkHost(c.Request) + "/docs"
}

// linkHost is the host of r's links: the Host it was sent to, unless that
// is no plain host[:port] (HTTP/2 lets an :authority such as a"b<c> through,
// which would make the link no URI), and then the address it reached.
func linkHost(r *http.Request) string {
	plain := r.Host != "" && len(r.Host) <= 255 && !strings.ContainsFunc(r.Host, func(c rune) bool {
		return !(c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~:[]", c)))
	})
	if plain {
		return r.Host
	}
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return addr.String()
	}
	return "localhost"
}

func (a *api) noRoute(c *gin.Context) {
	if c.Request.Method == http.MethodConnect { // authority-form: there is no path to name
		c.Header("Allow", "GET, HEAD")
		a.fail(c, apierror.New(http.StatusMethodNotAllowed, "CONNECT is not supported: this is an API, not a proxy; use GET or HEAD."))
		return
	}
	a.fail(c, apierror.New(http.StatusNotFound, "There is no endpoint %s. The endpoints are %s.",
		queryparam.Show(c.Request.URL.EscapedPath()), english.List(a.endpoints, "and")))
}

// exactPath answers 404 for a path that spells a slash as %2F: it is not
// the path with a slash (RFC 3986 keeps them apart), and paths are exact,
// but the router matches the decoded path, where the two are one. Such a
// request is logged and counted as unmatched.
func (a *api) exactPath(c *gin.Context) {
	if !strings.Contains(c.Request.URL.RawPath, "%2F") && !strings.Contains(c.Request.URL.RawPath, "%2f") {
		return
	}
	stateOf(c).unmatched = true
	a.noRoute(c)
}

func (a *api) noMethod(c *gin.Context) {
	c.Header("Allow", "GET, HEAD")
	a.fail(c, apierror.New(http.StatusMethodNotAllowed, "%s is not supported on %s; use GET or HEAD.", c.Request.Method, c.Request.URL.Path))
}

// recover turns a panic into a 500 envelope; the stack goes to the log.
func (a *api) recover(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			a.Log.Error("panic", "request_id", requestIDOf(c), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			if !c.Writer.Written() {
				a.fail(c, apierror.Internal(fmt.Errorf("panic: %v", r)))
			}
			c.Abort()
		}
	}()
	c.Next()
}

// writeJSON writes a JSON body with its length; HEAD gets the headers only.
func writeJSON(c *gin.Context, status int, body []byte) {
	writeBody(c, status, body, []string{strconv.Itoa(len(body))})
}

// seconds writes a whole number of seconds for a message.
func seconds(d time.Duration) string {
	return english.Count(max(1, limit.Seconds(d)), "second")
}

// roughly writes d for a message in its two largest units, the smaller
// rounded up so that a client that waits that long is never early: "9
// days 12 hours", "3 hours", "4 minutes 10 seconds", "1 second".
func roughly(d time.Duration) string {
	units := []struct {
		name string
		size int
	}{{"day", 24 * 60 * 60}, {"hour", 60 * 60}, {"minute", 60}, {"second", 1}}
	n := max(1, limit.Seconds(d))
	for i, u := range units[:len(units)-1] {
		if n < u.size {
			continue
		}
		small := units[i+1]
		n = (n + small.size - 1) / small.size * small.size
		out := english.Count(n/u.size, u.name)
		if rest := n % u.size / small.size; rest > 0 {
			out += " " + english.Count(rest, small.name)
		}
		return out
	}
	return english.Count(n, "second")
}
