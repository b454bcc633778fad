package systemtest

import (
	"os"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestResponseCache checks that a repeated request is answered without the
// catalog, and that a new catalogue version drops what was cached at once.
func TestResponseCache(t *testing.T) {
	s := start(t, options{cache: true})
	listing := request{path: "/api/v1/exercises/bodyparts?bodyParts=chest&limit=2", keyID: "key_pro"}
	calls := func() int { return strings.Count(s.log.String(), "CatalogService/ListExercises") }

	// Until the watch has reported a version nothing is cached.
	testnet.Eventually(t, "the cache learning the catalogue version", func() error {
		s.do(t, listing)
		return testnet.Unless(s.cache.Len() > 0, "an empty cache")
	})
	before := calls()
	first, body := s.do(t, listing)
	again, bodyAgain := s.do(t, listing)
	if calls() != before {
		t.Errorf("cached requests reached the catalog: %d calls, want %d", calls(), before)
	}
	if first.StatusCode != 200 || string(body) != string(bodyAgain) || first.Header.Get("ETag") != again.Header.Get("ETag") {
		t.Errorf("cached response differs: %d %s vs %s", first.StatusCode, body, bodyAgain)
	}
	if again.Header.Get("X-Ratelimit-Remaining") == first.Header.Get("X-Ratelimit-Remaining") {
		t.Error("a cached response skipped the rate limiter")
	}
	if r, _ := s.do(t, request{path: listing.path, keyID: "key_basic"}); r.Header.Get("ETag") == "" || calls() != before+1 {
		t.Errorf("another record cap shared the entry: %d calls", calls())
	}

	// A new catalogue: the watch reports it and the next request reaches it.
	data, err := os.ReadFile("testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	next, err := exercise.Load([]byte(strings.Replace(string(data), `"name": "plank"`, `"name": "front plank"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	s.svc.Swap(next)
	testnet.Eventually(t, "the listing of catalogue "+next.Version(), func() error {
		r, _ := s.do(t, listing)
		return testnet.Unless(strings.Contains(r.Header.Get("ETag"), next.Version()), "ETag "+r.Header.Get("ETag"))
	})
}

// TestResponseCacheSpellings checks that spellings of one listing share a
// cache entry once kept, whether found by their canonical form or as sent, and that
// a query sent alike for another path, product or plan does not.
func TestResponseCacheSpellings(t *testing.T) {
	s := start(t, options{cache: true})
	calls := func() int { return strings.Count(s.log.String(), "CatalogService/ListExercises") }
	const path = "/api/v1/exercises/bodyparts?"
	s.warm(t, path+"bodyParts=chest&limit=2")
	before := calls()
	var body, etag string
	for i, query := range []string{"bodyParts=back,chest", "bodyParts=chest,back", "bodyParts=back,chest", "bodyParts=CHEST,back", "bodyParts=chest,back"} {
		r, b := s.do(t, request{path: path + query, keyID: "key_mega"})
		if i == 0 {
			body, etag = string(b), r.Header.Get("ETag")
		}
		if r.StatusCode != 200 || string(b) != body || r.Header.Get("ETag") != etag {
			t.Errorf("%s: %d, ETag %s, want the first spelling's response", query, r.StatusCode, r.Header.Get("ETag"))
		}
	}
	// The first response only marks the key (respcache's doorkeeper); the
	// second is kept and serves the other three.
	if calls() != before+2 {
		t.Errorf("%d catalog calls for five spellings of one listing, want 2", calls()-before)
	}
	for _, r := range []request{
		{path: path + "bodyParts=back,chest", keyID: "key_basic"}, // another record cap
		{path: path + "bodyParts=back,chest", keyID: "key_video", host: "video.example.test"},
		{path: "/api/v1/exercises?bodyParts=back,chest", keyID: "key_mega"},
	} {
		before := calls()
		if resp, _ := s.do(t, r); resp.StatusCode != 200 || calls() != before+1 {
			t.Errorf("%+v: %d, %d catalog calls; want a response of its own", r, resp.StatusCode, calls()-before)
		}
	}
}
