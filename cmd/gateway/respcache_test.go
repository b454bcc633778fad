package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestPaddedQueriesStayBounded sends padded query strings to a
// running gateway: padded spellings of one listing share one cache entry,
// an overlong query string is refused, and many distinct listings never
// take the cache past response_cache.max_bytes.
func TestPaddedQueriesStayBounded(t *testing.T) {
	const maxBytes = 256 << 10
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	appendConfig(t, config, "response_cache:\n  max_bytes: "+strconv.Itoa(maxBytes)+"\n")
	key := newKey(t, config, "key_padding", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	gauge := func(name string) float64 { return counter(t, c, g, "exercisedb_gateway_response_cache_"+name) }

	const listing = "/api/v1/exercises?bodyParts=chest&limit=25"
	testnet.Eventually(t, "the cache keeps a response", func() error {
		r := api(t, c, g, listing, key, gifHost)
		n := gauge("entries")
		return testnet.Unless(r.status == 200 && n == 1, r.String())
	})
	for i := range 100 {
		pad := strings.Repeat("%20", 5*i) // up to 3.5 KB in all, under the bound
		r := api(t, c, g, "/api/v1/exercises?limit="+strings.Repeat("0", 5*i)+"25&bodyParts="+pad+"CHEST"+pad, key, gifHost)
		if r.status != 200 {
			t.Fatalf("padded query %d: %s", i, r)
		}
	}
	if n := gauge("entries"); n != 1 {
		t.Errorf("100 padded spellings of one listing took %v cache entries, want 1", n)
	}

	r := api(t, c, g, "/api/v1/exercises?limit="+strings.Repeat("0", 64<<10-20)+"25", key, gifHost)
	if r.status != 400 || !strings.Contains(string(r.body), "at most 4096 are allowed") {
		t.Errorf("a 64 KiB query: %s", r)
	}

	// Distinct listings: pairs of body parts, five page sizes; about 2 MB
	// of pages, gzipped ones included (the client accepts gzip).
	parts := []string{"neck", "shoulders", "chest", "back", "upper%20arms", "lower%20arms", "waist", "hips", "upper%20legs", "lower%20legs"}
	var sent int
	for i, a := range parts {
		for _, b := range parts[i+1:] {
			for _, limit := range []string{"5", "10", "15", "20", "25"} {
				r := api(t, c, g, "/api/v1/exercises?bodyParts="+a+","+b+"&limit="+limit, key, gifHost)
				if r.status != 200 {
					t.Fatalf("%s,%s: %s", a, b, r)
				}
				sent += len(r.body)
			}
		}
		if n := gauge("bytes"); n > maxBytes {
			t.Fatalf("the cache holds %v bytes, over max_bytes %d", n, maxBytes)
		}
	}
	n := gauge("bytes")
	t.Logf("%d KB of distinct pages sent; the cache holds %.0f KB in %v entries (max_bytes %d KB); RSS %.1f MB",
		sent>>10, n/1024, gauge("entries"), maxBytes>>10, counter(t, c, g, "process_resident_memory_bytes")/(1<<20))
	if n > maxBytes || n < maxBytes/2 {
		t.Errorf("the cache holds %v bytes; want it filled to at most max_bytes, %d", n, maxBytes)
	}
}

// TestCompressionSetting checks gzip on the real binary: on by default,
// off with compression.enabled false.
func TestCompressionSetting(t *testing.T) {
	cat := startCatalog(t)
	for _, tt := range []struct {
		name, yaml string
		want       string
	}{
		{"default", "", "gzip"},
		{"disabled", "compression:\n  enabled: false\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			config := testConfig(t, cat.grpc, options{})
			appendConfig(t, config, tt.yaml)
			key := newKey(t, config, "key_gzip", "exercisedb=Mega")
			g := startGateway(t, config)
			plain, _ := do(newClient(t), withHeader(apiRequest(t, g, "/api/v1/exercises?limit=10", key, gifHost), "Accept-Encoding", "identity"))
			req := withHeader(apiRequest(t, g, "/api/v1/exercises?limit=10", key, gifHost), "Accept-Encoding", "gzip")
			r, err := do(newClient(t), req) // an explicit Accept-Encoding: the transport does not decompress
			if err != nil {
				t.Fatal(err)
			}
			if got := r.header.Get("Content-Encoding"); r.status != 200 || got != tt.want {
				t.Fatalf("%d, Content-Encoding %q, want %q", r.status, got, tt.want)
			}
			body := r.body
			if tt.want == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				t.Logf("a 10-record listing: %d bytes, %d gzipped", len(plain.body), len(r.body))
			}
			if plain.status != 200 || !bytes.Equal(body, plain.body) {
				t.Errorf("the body differs from the plain one (%d, %d bytes)", plain.status, len(plain.body))
			}
		})
	}
}

func withHeader(req *http.Request, name, value string) *http.Request {
	req.Header.Set(name, value)
	return req
}
