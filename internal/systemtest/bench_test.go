package systemtest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkListingInclude measures a 25-record page of the embedded
// catalogue through the whole gateway (guard, catalog call over Exchange
// on bufconn, rendering; no response cache), without content, with
// include=instructions and with every content field, and the relation
// lists:
//
//	go test -run '^$' -bench BenchmarkListingInclude -count 6 ./internal/systemtest | benchstat -
func BenchmarkListingInclude(b *testing.B) {
	s := start(b, options{embedded: true})
	for _, tc := range []struct{ name, path string }{
		{"plain", "/api/v1/exercises?bodyParts=chest,back&limit=25"},
		{"include=instructions", "/api/v1/exercises?bodyParts=chest,back&limit=25&include=instructions"},
		{"include=all", "/api/v1/exercises?bodyParts=chest,back&limit=25&include=description,instructions,tips,aliases"},
		{"alternatives", "/api/v1/exercises/humnn3ws/alternatives?limit=25"},
		{"variations", "/api/v1/exercises/humnn3ws/variations?limit=25"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			req.Header.Set("X-Gateway-Key", testKeys["key_mega"].key)
			req.Header.Set("X-Gateway-Host", "api.example.test")
			var size int
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				s.handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", tc.path, rec.Code, rec.Body)
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/page")
		})
	}
}

// BenchmarkCacheHit measures warm response cache hits through the whole
// gateway (guard, query parsing, cache, writing), for a plain client and
// for a gzip client whose compressed body the cache already holds, on
// listings of 10 and 25 records and of 25 with every content field;
// bytes/page is the body sent:
//
//	go test -run '^$' -bench BenchmarkCacheHit -count 10 ./internal/systemtest | benchstat -col /coding -
func BenchmarkCacheHit(b *testing.B) {
	s := start(b, options{embedded: true, cache: true, compression: true})
	for _, listing := range []struct{ name, path string }{
		{"limit=10", "/api/v1/exercises?limit=10"},
		{"limit=25", "/api/v1/exercises?limit=25"},
		{"limit=25,include=all", "/api/v1/exercises?limit=25&include=description,instructions,tips,aliases"},
	} {
		s.warm(b, listing.path)
		for _, coding := range []string{"plain", "gzip"} {
			b.Run("listing="+listing.name+"/coding="+coding, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, listing.path, nil)
				req.Header.Set("X-Gateway-Key", testKeys["key_mega"].key)
				req.Header.Set("X-Gateway-Host", "api.example.test")
				if coding == "gzip" {
					req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
				}
				s.handler.ServeHTTP(httptest.NewRecorder(), req) // the first gzip request compresses; b.Loop restarts the timer
				var size int
				b.ReportAllocs()
				for b.Loop() {
					rec := httptest.NewRecorder()
					s.handler.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK || (coding == "gzip") != (rec.Header().Get("Content-Encoding") == "gzip") {
						b.Fatalf("%s: %d, Content-Encoding %q", listing.path, rec.Code, rec.Header().Get("Content-Encoding"))
					}
					size = rec.Body.Len()
				}
				b.ReportMetric(float64(size), "bytes/page")
			})
		}
	}
}
