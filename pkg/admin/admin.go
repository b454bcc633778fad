// Package admin is the operators' HTTP surface of a binary: liveness at
// /healthz, readiness at /readyz, Prometheus metrics at /metrics and, when
// enabled, the Go profiler at /debug/pprof/, the last two optionally behind
// a bearer token. It is served on its own address, never on the public one.
package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/exercisedb/exercisedb/pkg/english"
	"github.com/exercisedb/exercisedb/pkg/serve"
)

// Options are the operator's choices for the admin routes.
type Options struct {
	// TokenHash, "sha256:<hex>" (see HashToken), protects /metrics and the
	// profiler: they then need Authorization: Bearer <token>. Empty leaves
	// them open. /healthz and /readyz stay open, for probes.
	TokenHash string
	// Pprof serves the Go profiler at /debug/pprof/: off by default, as a
	// profile is a way to load a process and a view into its memory.
	Pprof bool
	// Throttle, when set, is told of every request whose token is wrong
	// or missing; blocked turns its 401 into a 429 with Retry-After, so
	// that a token cannot be guessed at the listener's speed. A request
	// with the right token is never refused.
	Throttle Throttle
}

// Throttle records a failed token from the client address addr and
// reports whether that address is over its budget of failures, and then
// for how long (the gateway's limit.Failures.Fail).
type Throttle func(ctx context.Context, addr string) (retryAfter time.Duration, blocked bool)

// Fail records r's failed token, charged to the address it came from (the
// admin listener is not behind the public proxies); a nil Throttle blocks
// nothing.
func (t Throttle) Fail(r *http.Request) (retryAfter time.Duration, blocked bool) {
	if t == nil {
		return 0, false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return t(r.Context(), host)
}

// RetryAfter is the Retry-After value of d: whole seconds, rounded up, at
// least 1.
func RetryAfter(d time.Duration) string { return strconv.Itoa(retrySeconds(d)) }

// retrySeconds is d in whole seconds, rounded up, at least 1.
func retrySeconds(d time.Duration) int { return max(1, int((d+time.Second-1)/time.Second)) }

// Handler returns the admin routes. ready reports why the process cannot
// take traffic, or nil when it can; gatherer supplies /metrics. A path
// that is not clean (see Unclean) is 404, never a redirect; a request with
// Transfer-Encoding is 400, its connection closed.
func Handler(ready func() error, gatherer prometheus.Gatherer, o Options) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := ready(); err != nil {
			writeText(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		writeText(w, http.StatusOK, "ready")
	})
	guard := func(h http.Handler) http.Handler { return requireToken(o, h) }
	mux.Handle("GET /metrics", guard(promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})))
	if o.Pprof {
		mux.Handle("GET /debug/pprof/", guard(http.HandlerFunc(pprof.Index)))
		mux.Handle("GET /debug/pprof/profile", guard(http.HandlerFunc(pprof.Profile)))
		mux.Handle("GET /debug/pprof/trace", guard(http.HandlerFunc(pprof.Trace)))
		// go tool pprof posts addresses here to name them. The index's
		// other link, cmdline, is left out on purpose: a command line
		// can hold a database URL with its password.
		mux.Handle("GET /debug/pprof/symbol", guard(http.HandlerFunc(pprof.Symbol)))
		mux.Handle("POST /debug/pprof/symbol", guard(http.HandlerFunc(pprof.Symbol)))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case serve.RefuseTransferEncoding(w, r):
			writeText(w, http.StatusBadRequest, TransferEncodingRefused)
		case Unclean(r.URL.Path):
			writeText(w, http.StatusNotFound, "404 page not found")
		default:
			mux.ServeHTTP(w, r)
		}
	})
}

// TransferEncodingRefused is the message of the 400 of a request carrying
// Transfer-Encoding on an admin listener (serve.RefuseTransferEncoding).
const TransferEncodingRefused = "Transfer-Encoding is not accepted: send a body with Content-Length " +
	"(a request with both Transfer-Encoding and Content-Length is refused and its connection closed)."

// CleanPath returns p as http.ServeMux routes it: rooted, without "//",
// "." or ".." elements, a trailing slash kept.
func CleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// Unclean reports whether http.ServeMux would answer the path p with a
// redirect to CleanPath(p) ("//metrics", "/admin/v1/./keys") rather than
// route it. The admin listener answers such a path 404 instead: a client
// of an API does not follow redirects, and no route has such a path.
func Unclean(p string) bool { return p != CleanPath(p) }

// HashToken returns the form of a token's hash that configuration holds:
// "sha256:" and the hex SHA-256 of the token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:])
}

var tokenHash = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// CheckTokenHash reports why h is not a hash HashToken makes, for the
// setting that holds it.
func CheckTokenHash(h string) error {
	if tokenHash.MatchString(h) {
		return nil
	}
	return errors.New("want sha256: and 64 lower-case hex digits, the SHA-256 of the token")
}

// requireToken lets through only requests whose bearer token hashes to
// o.TokenHash (compared in constant time); others get 401, or 429 once
// o.Throttle blocks their sender. An empty TokenHash lets every request
// through.
func requireToken(o Options, h http.Handler) http.Handler {
	if o.TokenHash == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ValidToken(o.TokenHash, r) {
			h.ServeHTTP(w, r)
			return
		}
		if wait, blocked := o.Throttle.Fail(r); blocked {
			w.Header().Set("Retry-After", RetryAfter(wait))
			writeText(w, http.StatusTooManyRequests, "too many wrong tokens from your address: retry in "+RetryIn(wait))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="admin"`)
		writeText(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer <admin token>")
	})
}

// ValidToken reports whether r carries one Authorization header, Bearer
// <token>, whose token hashes to tokenHash (compared in constant time).
// The scheme's case does not matter (RFC 9110, section 11.1: "bearer" is
// "Bearer"). Two Authorization headers are refused even if equal, as two
// keys are on the public API: which one counts is not the server's guess
// to make. An empty tokenHash matches nothing.
func ValidToken(tokenHash string, r *http.Request) bool {
	values := r.Header.Values("Authorization")
	if len(values) != 1 || tokenHash == "" {
		return false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	token = strings.TrimLeft(token, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && token != "" &&
		subtle.ConstantTimeCompare([]byte(HashToken(token)), []byte(tokenHash)) == 1
}

// RetryIn words d for a message as RetryAfter counts it: "1 second",
// "3 seconds".
func RetryIn(d time.Duration) string { return english.Count(retrySeconds(d), "second") }

// Server wraps h with the timeouts an admin listener needs; net/http's
// own complaints go to errorLog (logging.ServerErrors).
func Server(h http.Handler, errorLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ErrorLog:          errorLog,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
	}
}

func writeText(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(msg + "\n"))
}
