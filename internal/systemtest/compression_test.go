package systemtest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// serve sends a request straight to the handler, so that no transport
// adds or strips Accept-Encoding or decompresses; headers are name, value
// pairs.
func (s *system) serve(t testing.TB, method, path, keyID string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("X-Gateway-Host", "api.example.test")
	req.Header.Set("X-Gateway-Key", testKeys[keyID].key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec
}

// warm waits until the cache knows the catalogue version, so that
// responses are kept.
func (s *system) warm(t testing.TB, path string) {
	t.Helper()
	testnet.Eventually(t, "the cache learning the catalogue version", func() error {
		s.serve(t, http.MethodGet, path, "key_mega")
		return testnet.Unless(s.cache.Len() > 0, "an empty cache")
	})
}

func gunzip(t *testing.T, body []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCompression(t *testing.T) {
	s := start(t, options{cache: true, compression: true})
	const listing = "/api/v1/exercises?limit=10"
	s.warm(t, listing)

	plain := s.serve(t, http.MethodGet, listing, "key_mega")
	plainTag := plain.Header().Get("ETag")
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("Vary") != "Accept-Encoding" || plain.Body.Len() < 1024 {
		t.Fatalf("plain: %d, Content-Encoding %q, Vary %q, %d bytes", plain.Code, plain.Header().Get("Content-Encoding"), plain.Header().Get("Vary"), plain.Body.Len())
	}
	gzipTag := strings.TrimSuffix(plainTag, `"`) + `-gz"`

	before := s.cache.Bytes()
	first := s.serve(t, http.MethodGet, listing, "key_mega", "Accept-Encoding", "gzip, deflate, br")
	h := first.Header()
	if first.Code != 200 || h.Get("Content-Encoding") != "gzip" || h.Get("Vary") != "Accept-Encoding" || h.Get("ETag") != gzipTag {
		t.Fatalf("gzip: %d, Content-Encoding %q, Vary %q, ETag %s (plain %s)", first.Code, h.Get("Content-Encoding"), h.Get("Vary"), h.Get("ETag"), plainTag)
	}
	if h.Get("Content-Length") != strconv.Itoa(first.Body.Len()) || h.Get("Content-Type") != plain.Header().Get("Content-Type") {
		t.Errorf("gzip: Content-Length %s for %d bytes, Content-Type %q", h.Get("Content-Length"), first.Body.Len(), h.Get("Content-Type"))
	}
	if !bytes.Equal(gunzip(t, first.Body.Bytes()), plain.Body.Bytes()) {
		t.Error("the gzip body does not decompress to the plain one")
	}
	if first.Body.Len() > plain.Body.Len()/3 {
		t.Errorf("%d bytes gzipped to %d", plain.Body.Len(), first.Body.Len())
	}
	kept := s.cache.Bytes()
	if kept < before+int64(first.Body.Len()) {
		t.Errorf("the gzip body was not kept in the cache: %d bytes, then %d", before, kept)
	}

	// A warm gzip hit: the same bytes, nothing compressed or kept again.
	calls := strings.Count(s.log.String(), "CatalogService/ListExercises")
	again := s.serve(t, http.MethodGet, listing, "key_mega", "Accept-Encoding", "gzip")
	if !bytes.Equal(again.Body.Bytes(), first.Body.Bytes()) || again.Header().Get("ETag") != gzipTag {
		t.Error("a cached gzip hit differs from the first gzip response")
	}
	if n := strings.Count(s.log.String(), "CatalogService/ListExercises"); n != calls || s.cache.Bytes() != kept {
		t.Errorf("a gzip hit reached the catalog (%d calls, before %d) or grew the cache (%d bytes, before %d)", n, calls, s.cache.Bytes(), kept)
	}

	// HEAD: the headers of GET, no body.
	head := s.serve(t, http.MethodHead, listing, "key_mega", "Accept-Encoding", "gzip")
	for _, k := range []string{"Content-Encoding", "Content-Length", "Content-Type", "ETag", "Vary", "Cache-Control"} {
		if head.Header().Get(k) != h.Get(k) {
			t.Errorf("HEAD %s = %q, GET's %q", k, head.Header().Get(k), h.Get(k))
		}
	}
	if head.Body.Len() != 0 {
		t.Errorf("HEAD has a body of %d bytes", head.Body.Len())
	}

	// Conditional requests compare the representation's own tag.
	for _, tt := range []struct {
		name, acceptEncoding, ifNoneMatch string
		status                            int
		etag, encoding                    string
	}{
		{"gzip tag, gzip client", "gzip", gzipTag, 304, gzipTag, ""},
		{"weak gzip tag, gzip client", "gzip", "W/" + gzipTag, 304, gzipTag, ""},
		{"plain tag, gzip client", "gzip", plainTag, 200, gzipTag, "gzip"},
		{"gzip tag, plain client", "", gzipTag, 200, plainTag, ""},
		{"plain tag, plain client", "", plainTag, 304, plainTag, ""},
	} {
		r := s.serve(t, http.MethodGet, listing, "key_mega", "Accept-Encoding", tt.acceptEncoding, "If-None-Match", tt.ifNoneMatch)
		if r.Code != tt.status || r.Header().Get("ETag") != tt.etag || r.Header().Get("Content-Encoding") != tt.encoding || r.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: %d, ETag %s, Content-Encoding %q, Vary %q; want %d, %s, %q", tt.name, r.Code, r.Header().Get("ETag"),
				r.Header().Get("Content-Encoding"), r.Header().Get("Vary"), tt.status, tt.etag, tt.encoding)
		}
	}
	if r := s.serve(t, http.MethodGet, listing, "key_mega", "Accept-Encoding", "gzip", "If-Match", plainTag); r.Code != http.StatusPreconditionFailed {
		t.Errorf("If-Match with the plain tag from a gzip client: %d, want 412", r.Code)
	}

	// Negotiation through the handler.
	for ae, want := range map[string]string{
		"gzip;q=0": "", "identity;q=0": "", "identity;q=0, gzip": "gzip", "*": "gzip", "*;q=0": "",
		"gzip;q=0.4, identity;q=0.5": "", "deflate": "", "GZip;Q=0.1": "gzip", "x-gzip": "gzip",
	} {
		r := s.serve(t, http.MethodGet, listing, "key_mega", "Accept-Encoding", ae)
		if r.Code != 200 || r.Header().Get("Content-Encoding") != want {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, want %q", ae, r.Code, r.Header().Get("Content-Encoding"), want)
		}
	}

	// Small bodies and errors go out as they are, without Vary.
	for _, path := range []string{"/api/v1/bodyparts", "/api/v1/exercises?limit=0", "/api/v1/exercises/zzzzzzzz", "/api/v1/liveness"} {
		r := s.serve(t, http.MethodGet, path, "key_mega", "Accept-Encoding", "gzip")
		if r.Header().Get("Content-Encoding") != "" || r.Header().Get("Vary") != "" || !bytes.HasPrefix(r.Body.Bytes(), []byte("{")) {
			t.Errorf("%s: %d, Content-Encoding %q, Vary %q, body %.40q", path, r.Code, r.Header().Get("Content-Encoding"), r.Header().Get("Vary"), r.Body.String())
		}
	}
}

func TestCompressionOff(t *testing.T) {
	s := start(t, options{cache: true})
	r := s.serve(t, http.MethodGet, "/api/v1/exercises?limit=10", "key_mega", "Accept-Encoding", "gzip")
	if r.Code != 200 || r.Header().Get("Content-Encoding") != "" || r.Header().Get("Vary") != "" {
		t.Errorf("compression off: %d, Content-Encoding %q, Vary %q", r.Code, r.Header().Get("Content-Encoding"), r.Header().Get("Vary"))
	}
}

// TestCompressionKeepsPlainResponses checks that clients that do not ask
// for compression get what the golden files hold: the same body and
// headers whether compression is on or off, but Vary.
func TestCompressionKeepsPlainResponses(t *testing.T) {
	on, off := start(t, options{compression: true}), start(t, options{})
	for _, path := range []string{
		"/api/v1/exercises/bodyparts?bodyParts=chest&limit=3",
		"/api/v1/exercises/bodyparts",
		"/api/v1/exercises?bodyParts=CHEST,%20back&equipments=barbell&difficulty=intermediate,advanced",
		"/api/v1/exercises/humnn3ws",
		"/api/v1/exercises/humnn3ws/alternatives",
		"/api/v1/exercisetypes",
		"/api/v1/muscles",
		"/api/v1/exercises?limit=26",
	} {
		a, b := on.serve(t, http.MethodGet, path, "key_pro"), off.serve(t, http.MethodGet, path, "key_pro")
		if !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) && a.Code < 400 {
			t.Errorf("%s: the body differs with compression on", path)
		}
		ha, hb := a.Header().Clone(), b.Header().Clone()
		for _, k := range []string{"X-Request-Id", "Vary"} {
			ha.Del(k)
			hb.Del(k)
		}
		for k, v := range hb {
			if !slices.Equal(ha[k], v) {
				t.Errorf("%s: %s is %q with compression on, %q off", path, k, ha[k], v)
			}
		}
		if len(ha) != len(hb) {
			t.Errorf("%s: headers %v with compression on, %v off", path, ha, hb)
		}
	}
}

// TestCanonicalQueries checks that spellings of one listing share one
// cache entry, and that an overlong query is refused.
func TestCanonicalQueries(t *testing.T) {
	s := start(t, options{cache: true})
	const listing = "/api/v1/exercises?bodyParts=chest,back&limit=10"
	s.warm(t, listing)
	want := s.serve(t, http.MethodGet, listing, "key_mega")
	calls, entries := strings.Count(s.log.String(), "CatalogService/ListExercises"), s.cache.Len()
	for _, path := range []string{
		"/api/v1/exercises?limit=010&bodyParts=back,CHEST",
		"/api/v1/exercises?bodyParts=%20%20chest%20%20,,back,chest&limit=0000000010",
		"/api/v1/exercises?bodyParts=back&bodyParts=Chest&limit=10",
		"/api/v1/exercises?bodyParts=chest,back" + strings.Repeat("%20", 1000) + "&limit=" + strings.Repeat("0", 1000) + "10",
	} {
		r := s.serve(t, http.MethodGet, path, "key_mega")
		if r.Code != 200 || !bytes.Equal(r.Body.Bytes(), want.Body.Bytes()) || r.Header().Get("ETag") != want.Header().Get("ETag") {
			t.Errorf("%s: %d, a body other than %s's", path, r.Code, listing)
		}
	}
	if n := strings.Count(s.log.String(), "CatalogService/ListExercises"); n != calls || s.cache.Len() != entries {
		t.Errorf("spellings of one listing reached the catalog (%d calls, before %d) or took entries (%d, before %d)", n, calls, s.cache.Len(), entries)
	}

	r := s.serve(t, http.MethodGet, "/api/v1/exercises?limit="+strings.Repeat("0", 64<<10)+"10", "key_mega")
	if r.Code != 400 || !strings.Contains(r.Body.String(), `"code":"BAD_REQUEST"`) || !strings.Contains(r.Body.String(), "The query string is 65544 bytes long; at most 4096 are allowed.") {
		t.Errorf("an overlong query: %d %s", r.Code, r.Body)
	}
}

// TestCompressedOpenAPI: the OpenAPI document, which /docs fetches on
// every visit, is gzipped like the page, with its own strong ETag.
func TestCompressedOpenAPI(t *testing.T) {
	s := start(t, options{compression: true})
	plain := s.serve(t, http.MethodGet, "/openapi.json", "key_none")
	gz := s.serve(t, http.MethodGet, "/openapi.json", "key_none", "Accept-Encoding", "gzip")
	if plain.Code != 200 || gz.Code != 200 || gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip: %d, Content-Encoding %q, Vary %q", gz.Code, gz.Header().Get("Content-Encoding"), gz.Header().Get("Vary"))
	}
	if !bytes.Equal(gunzip(t, gz.Body.Bytes()), plain.Body.Bytes()) || gz.Body.Len()*4 > plain.Body.Len() {
		t.Errorf("gzip body: %d bytes for %d plain, or not the document", gz.Body.Len(), plain.Body.Len())
	}
	if gz.Header().Get("Content-Length") != strconv.Itoa(gz.Body.Len()) || gz.Header().Get("ETag") == plain.Header().Get("ETag") {
		t.Errorf("gzip: Content-Length %q for %d bytes, ETag %q (plain %q)", gz.Header().Get("Content-Length"), gz.Body.Len(), gz.Header().Get("ETag"), plain.Header().Get("ETag"))
	}
	if r := s.serve(t, http.MethodGet, "/openapi.json", "key_none", "Accept-Encoding", "gzip", "If-None-Match", gz.Header().Get("ETag")); r.Code != http.StatusNotModified {
		t.Errorf("If-None-Match with the gzip ETag: %d, want 304", r.Code)
	}
}
