package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/rs/cors"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/pkg/serve"
)

// withCORS lets browser apps of the allowed origins call the API: it answers
// their preflights (204, before any key is asked for, since a browser never
// sends one on a preflight) and marks every response to them, error
// envelopes included, with the origin and the headers a client needs to
// read. rs/cors does the negotiation: the rules (which preflights, Vary:
// Origin, the "*" origin, header matching) are subtle and well covered there.
// No origins means no CORS headers at all.
//
// Two instances share the options: preflights may ask only for GET and
// HEAD, but the answer to any method (a 405 to a POST) carries the
// headers, so that the browser lets the app read its envelope; rs/cors
// would leave them off a method it does not allow.
//
// rs/cors answers a preflight itself, before the chain that gives every
// request its id, so the preflight gets its X-Request-Id here: every
// response carries one (docs/api.md), allowed origin or not.
func withCORS(h http.Handler, allowedOrigins []string) http.Handler {
	if len(allowedOrigins) == 0 {
		return h
	}
	o := cors.Options{
		AllowedOrigins: allowedOrigins,
		AllowedMethods: []string{http.MethodGet, http.MethodHead},
		AllowedHeaders: []string{"X-Gateway-Key", "X-Gateway-Host", "If-None-Match", "If-Match", "Traceparent", "Tracestate"},
		ExposedHeaders: []string{
			"X-Request-Id", "ETag", "Retry-After", "RateLimit", "RateLimit-Policy",
			"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
			"X-RateLimit-Requests-Limit", "X-RateLimit-Requests-Remaining", "X-RateLimit-Requests-Reset",
		},
		// Keys travel in a header, never in cookies: no credentials.
		MaxAge: int((10 * time.Minute).Seconds()),
	}
	preflights := cors.New(o)
	o.AllowedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodConnect, http.MethodTrace}
	responses := cors.New(o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isPreflight(r) {
			w.Header().Set("X-Request-Id", newRequestID())
			preflights.HandlerFunc(w, r)
			return
		}
		responses.HandlerFunc(w, r)
		h.ServeHTTP(w, r)
	})
}

// isPreflight reports whether rs/cors answers r as a preflight.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// refuseBodies refuses a request that carries a body by Transfer-Encoding,
// and closes its connection (serve.RefuseTransferEncoding says why). No
// route of the API takes a body.
func (a *api) refuseBodies(c *gin.Context) {
	if !serve.RefuseTransferEncoding(c.Writer, c.Request) {
		return
	}
	a.fail(c, apierror.New(http.StatusBadRequest,
		"Transfer-Encoding is not accepted: requests to this API carry no body (a request with both Transfer-Encoding and Content-Length is refused and its connection closed)."))
}
