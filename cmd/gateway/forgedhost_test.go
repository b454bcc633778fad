package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// publiclyCacheable reports whether a shared cache (a CDN, a proxy) may
// keep a response with these headers and serve it to others: Cache-Control
// public or a max-age, without no-store or private.
func publiclyCacheable(h http.Header) bool {
	cc := strings.ToLower(strings.Join(h.Values("Cache-Control"), ","))
	if strings.Contains(cc, "no-store") || strings.Contains(cc, "private") {
		return false
	}
	return strings.Contains(cc, "public") || regexp.MustCompile(`(^|[ ,])(s-)?max-age=`).MatchString(cc)
}

// TestForgedHostNotInCacheableOutput sends a forged Host and
// X-Forwarded-Host to the real gateway, configured without docs_url, and
// checks that no publicly cacheable response shows the forged host, in a
// header or the body: a cache keyed on the path would
// serve the attacker's links to everyone. The error envelope of a missing
// page is no-store, so its docs link may follow the Host.
func TestForgedHostNotInCacheableOutput(t *testing.T) {
	const forged = "evil.example.net"
	config := testConfig(t, "127.0.0.1:1", options{}) // the pages need no catalog
	newKey(t, config, "key_pro", "exercisedb=Pro")    // the gateway starts with a keys file
	g := startGateway(t, config)
	c := newClient(t)
	cacheable := 0
	for _, path := range []string{"/docs/errors", "/docs/errors/code/NOT_FOUND", "/openapi.json", "/docs", "/docs/errors/code/NOPE"} {
		req, err := http.NewRequest(http.MethodGet, "http://"+g.http+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = forged
		req.Header.Set("X-Forwarded-Host", forged)
		r, err := do(c, req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		public := publiclyCacheable(r.header)
		t.Logf("GET %s: %d, Cache-Control %q, publicly cacheable: %v", path, r.status, r.header.Get("Cache-Control"), public)
		if public {
			cacheable++
		} else {
			continue
		}
		for name, values := range r.header {
			for _, v := range values {
				if strings.Contains(strings.ToLower(v), forged) {
					t.Errorf("GET %s (%d, publicly cacheable): header %s: %s shows the forged host", path, r.status, name, v)
				}
			}
		}
		if i := strings.Index(strings.ToLower(string(r.body)), forged); i >= 0 {
			t.Errorf("GET %s (%d, publicly cacheable): the body shows the forged host: ...%s...",
				path, r.status, r.body[max(0, i-80):min(len(r.body), i+len(forged)+20)])
		}
	}
	if cacheable < 4 {
		t.Errorf("%d of the responses are publicly cacheable, want the four pages: the test checks nothing", cacheable)
	}
}
