package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/queryparam"
)

func TestNegotiate(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   string // "" for identity
	}{
		{"", ""},
		{"gzip", "gzip"},
		{"GZIP", "gzip"},
		{"x-gzip", "gzip"},
		{"gzip, deflate, br, zstd", "gzip"},
		{"deflate, br", ""},
		{"gzip;q=0", ""},
		{"gzip; q=0.000", ""},
		{"gzip;q=0.5", "gzip"},
		{"gzip;q=0.5, identity;q=1", ""},       // identity explicitly preferred
		{"gzip;q=0.5, identity;q=0.5", "gzip"}, // a tie goes to the smaller body
		{"identity;q=0, gzip", "gzip"},
		{"identity;q=0", ""},      // nothing acceptable: identity anyway, not 406
		{"*", "gzip"},             // any coding
		{"*;q=0", ""},             // none: identity anyway
		{"*;q=0, gzip", "gzip"},   // a listed coding overrides *
		{"*, gzip;q=0", ""},       // gzip refused by name, whatever * says
		{"*;q=0.3, identity", ""}, // identity preferred to what * allows
		{"br;q=1, gzip;q=0.8", "gzip"},
		{"gzip;level=9;q=0.7", "gzip"},
		{"gzip;q=2", ""},   // malformed q: the element is ignored
		{"gzip;q=abc", ""}, // the same
		{" , ;q=1, gzip", "gzip"},
		{"gzip;q=0, gzip;q=1", "gzip"}, // repeated: the highest counts
	} {
		got := ""
		if cd := negotiate(tt.header); cd != nil {
			got = cd.name
		}
		if got != tt.want {
			t.Errorf("negotiate(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}

func TestCodingETag(t *testing.T) {
	if got := codings[0].etag(`"v1-abc"`); got != `"v1-abc-gz"` {
		t.Errorf("gzip ETag of \"v1-abc\" = %s", got)
	}
}

func TestGzipBody(t *testing.T) {
	body := []byte(strings.Repeat(`{"name":"dumbbell incline bench press"},`, 100))
	for range 2 { // the second time with a recycled writer and buffer
		z := gzipBody(body)
		r, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("gzip round trip: %v, %d bytes, want %d", err, len(got), len(body))
		}
		if len(z) >= len(body)/4 {
			t.Errorf("%d bytes compressed to %d", len(body), len(z))
		}
	}
}

// TestListKey checks that spellings of one request share a cache key and
// that different requests do not.
func TestListKey(t *testing.T) {
	key := func(raw string) string {
		t.Helper()
		req, err := parseList(raw, exercisesParams)
		if err != nil {
			t.Fatalf("parseList(%q): %v", raw, err)
		}
		return listKey(&req)
	}
	same := [][]string{
		{"", "limit=10", "limit=0000010", "include=", "name="},
		{"limit=10&bodyParts=chest,back", "bodyParts=back,chest&limit=010", "bodyParts=%20CHEST%20,,back,chest&limit=10",
			"bodyParts=back&bodyParts=Chest", "bodyParts=" + strings.Repeat("%20", 500) + "chest,back" + strings.Repeat("%20", 500)},
		{"include=tips,description", "include=Description,%20tips,,tips", "include=description&include=tips"},
		{"equipments=body%20weight&difficulty=beginner", "difficulty=BEGINNER&equipments=Body%20Weight%20"},
	}
	for _, group := range same {
		want := key(group[0])
		for _, raw := range group[1:] {
			if key(raw) != want {
				t.Errorf("%q and %q have different keys", group[0], raw)
			}
		}
	}
	different := []string{
		"", "limit=11", "bodyParts=chest", "equipments=chest", "targetMuscles=chest", "secondaryMuscles=chest",
		"bodyParts=upper%20arms", "bodyParts=upper%20%20arms", // the catalog folds these; the key need not
		"name=press", "name=press%20", "name=Press", "q=press", "after=abc", "before=abc",
		"include=tips", "include=aliases", "name=a&q=b", "name=ab", "q=ab",
	}
	seen := map[string]string{}
	for _, raw := range different {
		k := key(raw)
		if other, ok := seen[k]; ok {
			t.Errorf("%q and %q share a key", raw, other)
		}
		seen[k] = raw
	}
}

func TestOverlongQuery(t *testing.T) {
	raw := "limit=" + strings.Repeat("0", queryparam.MaxRaw) + "1"
	_, err := parseList(raw, exercisesParams)
	if err == nil || !strings.Contains(err.Error(), "at most 4096") {
		t.Errorf("an overlong query: %v", err)
	}
	if _, err := parseList("limit="+strings.Repeat("0", queryparam.MaxRaw-7)+"1", exercisesParams); err != nil {
		t.Errorf("a query of exactly %d bytes: %v", queryparam.MaxRaw, err)
	}
	if err := noQuery(strings.Repeat("a", queryparam.MaxRaw+1)); err == nil || !strings.Contains(err.Error(), "bytes long") {
		t.Errorf("an overlong query on a reference list: %v", err)
	}
}
