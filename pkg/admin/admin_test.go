package admin

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestHandler(t *testing.T) {
	var notReady error
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "test_total", Help: "A test counter."}))
	srv := httptest.NewServer(Handler(func() error { return notReady }, reg))
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
