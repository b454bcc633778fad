package systemtest

import (
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// cpuTime is the CPU time the process has used so far, user and system,
// every goroutine's.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs op as the benchmark's loop and reports, besides the wall time
// per op, the process's CPU time per op (cpu-ns/op): the gateway's and the
// catalog's together, garbage collection included, and unlike ns/op not
// the time other processes had the core (the machine is shared).
func loop(b *testing.B, op func()) {
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

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
			loop(b, func() {
				rec := httptest.NewRecorder()
				s.handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", tc.path, rec.Code, rec.Body)
				}
				size = rec.Body.Len()
			})
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
				loop(b, func() {
					rec := httptest.NewRecorder()
					s.handler.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK || (coding == "gzip") != (rec.Header().Get("Content-Encoding") == "gzip") {
						b.Fatalf("%s: %d, Content-Encoding %q", listing.path, rec.Code, rec.Header().Get("Content-Encoding"))
					}
					size = rec.Body.Len()
				})
				b.ReportMetric(float64(size), "bytes/page")
			})
		}
	}
}

// BenchmarkCacheMiss measures listings whose query never repeats through
// the whole gateway with its response cache on, as the load command's
// cache-off listing makes them: a listing of 10 after each id in turn of
// the first thousand, crossed with three filters (more distinct queries
// than the cache holds), each reaching the catalog and then kept:
//
//	go test -run '^$' -bench BenchmarkCacheMiss -count 6 ./internal/systemtest | benchstat -
func BenchmarkCacheMiss(b *testing.B) {
	s := start(b, options{embedded: true, cache: true})
	s.warm(b, "/api/v1/exercises?limit=10")
	var ids []string
	for after := ""; len(ids) < 1000; {
		page, err := s.svc.Catalogue().List(exercise.Filter{}, exercise.PageRequest{Limit: exercise.MaxLimit, After: after})
		if err != nil {
			b.Fatal(err)
		}
		for _, x := range page.Exercises {
			ids = append(ids, x.ID)
		}
		if !page.HasNextPage {
			break
		}
		after = page.NextCursor
	}
	var paths []string
	for _, id := range ids {
		for _, f := range []string{"", "&bodyParts=chest", "&difficulty=beginner"} {
			paths = append(paths, "/api/v1/exercises?limit=10&after="+id+f)
		}
	}
	var n int
	loop(b, func() {
		req := httptest.NewRequest(http.MethodGet, paths[n%len(paths)], nil)
		n++
		req.Header.Set("X-Gateway-Key", testKeys["key_mega"].key)
		req.Header.Set("X-Gateway-Host", "api.example.test")
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", req.URL, rec.Code, rec.Body)
		}
	})
	b.ReportMetric(float64(len(paths)), "queries")
}

// BenchmarkReference measures what cmd/loadtest's reference server does
// per request (gin writing a pre-encoded body with its Content-Type), on
// the body of BenchmarkCacheHit's listing of 10, through the same
// recorder: the floor a cache hit is compared with.
func BenchmarkReference(b *testing.B) {
	s := start(b, options{embedded: true})
	body := s.serve(b, http.MethodGet, "/api/v1/exercises?limit=10", "key_mega").Body.Bytes()
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.GET("/*path", func(c *gin.Context) { c.Data(http.StatusOK, "application/json; charset=utf-8", body) })
	req := httptest.NewRequest(http.MethodGet, "/api/v1/exercises?limit=10", nil)
	loop(b, func() {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.Len() != len(body) {
			b.Fatalf("%d, %d bytes", rec.Code, rec.Body.Len())
		}
	})
}
