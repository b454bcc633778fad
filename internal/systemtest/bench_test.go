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
