package admin

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestHandler(t *testing.T) {
	var notReady error
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "test_total", Help: "A test counter."}))
	srv := httptest.NewServer(Handler(func() error { return notReady }, reg, Options{Pprof: true}))
	defer srv.Close()
	get := func(method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		method, path string
		notReady     error
		code         int
		body         string
	}{
		{"GET", "/healthz", nil, 200, "ok"},
		{"GET", "/readyz", nil, 200, "ready"},
		{"GET", "/readyz", errors.New("shutting down"), 503, "not ready: shutting down"},
		{"GET", "/healthz", errors.New("shutting down"), 200, "ok"},
		{"GET", "/metrics", nil, 200, "test_total 0"},
		{"GET", "/debug/pprof/", nil, 200, "goroutine"},
		{"GET", "/debug/pprof/heap?debug=1", nil, 200, "heap profile"},
		{"GET", "/debug/pprof/symbol", nil, 200, "num_symbols"},
		{"POST", "/debug/pprof/symbol", nil, 200, "num_symbols"},
		{"GET", "/debug/pprof/cmdline", nil, 404, ""},
		{"POST", "/healthz", nil, 405, ""},
		{"GET", "/nope", nil, 404, ""},
	}
	for _, tt := range tests {
		notReady = tt.notReady
		code, body := get(tt.method, tt.path)
		if code != tt.code || !strings.Contains(body, tt.body) {
			t.Errorf("%s %s (not ready: %v) = %d %q, want %d containing %q", tt.method, tt.path, tt.notReady, code, body, tt.code, tt.body)
		}
	}
}

func TestOptions(t *testing.T) {
	reg := prometheus.NewRegistry()
	get := func(h http.Handler, path, auth string) int {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", path)
		}
		return w.Code
	}
	ready := func() error { return nil }

	// By default the profiler is off and /metrics open.
	h := Handler(ready, reg, Options{})
	if code := get(h, "/debug/pprof/", ""); code != http.StatusNotFound {
		t.Errorf("pprof by default: %d, want 404", code)
	}
	if code := get(h, "/metrics", ""); code != http.StatusOK {
		t.Errorf("/metrics without a token configured: %d", code)
	}

	// With a token, /metrics and pprof need it; probes never do.
	h = Handler(ready, reg, Options{Pprof: true, TokenHash: HashToken("s3cret")})
	for _, tt := range []struct {
		path, auth string
		code       int
	}{
		{"/metrics", "", 401},
		{"/metrics", "Bearer wrong", 401},
		{"/metrics", "Basic czNjcmV0", 401},
		{"/metrics", "Bearer s3cret", 200},
		{"/metrics", "bearer s3cret", 200}, // RFC 9110: the scheme is case-insensitive
		{"/metrics", "BEARER  s3cret", 200},
		{"/metrics", "Bearer ", 401},
		{"/metrics", "Bearers3cret", 401},
		{"/debug/pprof/", "", 401},
		{"/debug/pprof/", "Bearer s3cret", 200},
		{"/healthz", "", 200},
		{"/readyz", "", 200},
	} {
		if code := get(h, tt.path, tt.auth); code != tt.code {
			t.Errorf("%s with %q: %d, want %d", tt.path, tt.auth, code, tt.code)
		}
	}
	twice := httptest.NewRequest("GET", "/metrics", nil)
	twice.Header.Add("Authorization", "Bearer s3cret")
	twice.Header.Add("Authorization", "Bearer s3cret")
	if ValidToken(HashToken("s3cret"), twice) {
		t.Error("two Authorization headers are accepted; want them refused, as two keys are")
	}
	if got := HashToken("s3cret"); !strings.HasPrefix(got, "sha256:") || len(got) != len("sha256:")+64 {
		t.Errorf("HashToken = %q", got)
	}

	// A throttle sees each wrong token with its sender's address, and
	// refuses over its budget; the right token always passes.
	var addrs []string
	throttle := func(_ context.Context, addr string) (time.Duration, bool) {
		addrs = append(addrs, addr)
		return 1500 * time.Millisecond, len(addrs) > 2
	}
	h = Handler(ready, reg, Options{TokenHash: HashToken("s3cret"), Throttle: throttle})
	for i, want := range []int{401, 401, 429, 200, 429} {
		auth := "Bearer wrong"
		if i == 3 {
			auth = "Bearer s3cret"
		}
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Header.Set("Authorization", auth)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("request %d (%s): %d, want %d", i, auth, w.Code, want)
		}
		if want == 429 && w.Header().Get("Retry-After") != "2" {
			t.Errorf("request %d: Retry-After %q, want 2 (1.5 s rounded up)", i, w.Header().Get("Retry-After"))
		}
	}
	if len(addrs) != 4 || addrs[0] != "192.0.2.1" {
		t.Errorf("throttle saw %q, want the four wrong tokens from 192.0.2.1 (httptest's address)", addrs)
	}
}

// TestUncleanPaths: a path http.ServeMux would redirect to its clean form
// is 404, never a redirect; clean paths still route.
func TestUncleanPaths(t *testing.T) {
	h := Handler(func() error { return nil }, prometheus.NewRegistry(), Options{Pprof: true})
	for path, want := range map[string]int{
		"//metrics":          404,
		"/./metrics":         404,
		"/x/../metrics":      404,
		"//healthz":          404,
		"/debug//pprof/":     404,
		"/debug/pprof/./":    404,
		"/metrics":           200,
		"/healthz":           200,
		"/debug/pprof/":      200,
		"/debug/pprof/heap/": 404, // clean, but no route
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL.Path = path
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != want || w.Header().Get("Location") != "" {
			t.Errorf("GET %s: %d (Location %q), want %d", path, w.Code, w.Header().Get("Location"), want)
		}
	}
}

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{"": "/", "a": "/a", "/a//b/": "/a/b/", "/a/./b": "/a/b", "/a/../../b": "/b", "/": "/", "/a/b/": "/a/b/"} {
		if got := CleanPath(in); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckTokenHash(t *testing.T) {
	if err := CheckTokenHash(HashToken("s3cret")); err != nil {
		t.Errorf("a hash HashToken made: %v", err)
	}
	for _, h := range []string{strings.ToUpper(HashToken("s3cret")), "sha256:" + strings.ToUpper(HashToken("s3cret")[7:]), "sha256:abc", "s3cret"} {
		if err := CheckTokenHash(h); err == nil || !strings.Contains(err.Error(), "lower-case") {
			t.Errorf("CheckTokenHash(%q) = %v, want an error that says lower-case", h, err)
		}
	}
}
