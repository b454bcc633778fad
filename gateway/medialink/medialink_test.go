package medialink

import (
	"strings"
	"testing"
)

func TestSignedURLsCheckAndEditsFail(t *testing.T) {
	s := NewSigner([]byte("0123456789abcdef"), "http://127.0.0.1:8080/")
	u := s.URL("", Ref{"exercises/humnn3ws", "0a1b2c3d4e5f6a7b", GIF.File(360)})
	signed, ok := strings.CutPrefix(u, "http://127.0.0.1:8080/media/")
	if !ok {
		t.Fatalf("URL %q is not under the gateway's /media/", u)
	}
	path, ok := s.Check(signed)
	if !ok || path != "exercises/humnn3ws/0a1b2c3d4e5f6a7b/360.gif" {
		t.Fatalf("Check(%q) = %q, %v; want the path, true", signed, path, ok)
	}
	sig, _, _ := strings.Cut(signed, "/")
	edits := map[string]string{
		"height raised":      strings.Replace(signed, "360.gif", "720.gif", 1),
		"kind changed":       strings.Replace(signed, "360.gif", "360.mp4", 1),
		"other exercise":     strings.Replace(signed, "humnn3ws", "humnn3wt", 1),
		"digest changed":     strings.Replace(signed, "0a1b", "0a1c", 1),
		"signature changed":  "A" + signed[1:],
		"signature dropped":  strings.TrimPrefix(signed, sig+"/"),
		"signature short":    sig[:sigLen-1] + "/" + path,
		"empty":              "",
		"no path":            sig,
		"other secret's sig": strings.TrimPrefix(NewSigner([]byte("another secret!!"), "http://x").URL("", Ref{"exercises/humnn3ws", "0a1b2c3d4e5f6a7b", "360.gif"}), "http://x/media/"),
	}
	for name, p := range edits {
		if _, ok := s.Check(p); ok {
			t.Errorf("%s: Check(%q) passed", name, p)
		}
	}
}

func TestBaseURLsAreUnsigned(t *testing.T) {
	s := NewSigner([]byte("0123456789abcdef"), "http://127.0.0.1:8080")
	got := s.URL("https://cdn.example.com/exercisedb/", Ref{"types/strength", "ab", Video.File(180)})
	if want := "https://cdn.example.com/exercisedb/types/strength/ab/180.mp4"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		path              string
		key, digest, file string
		ok                bool
	}{
		{"exercises/a/d1/360.gif", "exercises/a", "d1", "360.gif", true},
		{"types/strength/d/poster.png", "types/strength", "d", "poster.png", true},
		{"a/d/f", "a", "d", "f", true},
		{"d/f", "", "", "", false},
		{"a//f", "", "", "", false},
		{"a/d/", "", "", "", false},
		{"/d/f", "", "", "", false},
	}
	for _, tt := range tests {
		ref, ok := Split(tt.path)
		if want := (Ref{Key: tt.key, Digest: tt.digest, File: tt.file}); ref != want || ok != tt.ok {
			t.Errorf("Split(%q) = %+v, %v; want %+v, %v", tt.path, ref, ok, want, tt.ok)
		}
	}
}

// BenchmarkParts is the cost a listing pays per record for its imageUrl:
// after the first, a lookup.
func BenchmarkParts(b *testing.B) {
	s := NewSigner([]byte("0123456789abcdef0123"), "http://127.0.0.1:8080")
	for b.Loop() {
		s.Parts("", Ref{"exercises/humnn3ws", "dfddc405f51c37fa", "360.gif"})
	}
}
