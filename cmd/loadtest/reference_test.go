package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// The media reference answers with the headers it was given, read back
// from their file, and the body.
func TestReferenceAnswersWithHeaders(t *testing.T) {
	want := http.Header{
		"Content-Type":  {"image/gif"},
		"Etag":          {`"abc"`},
		"Cache-Control": {"public, max-age=31536000, immutable"},
		"X-Request-Id":  {"req_aaaaaaaaaaaaaaaa"},
	}
	path := filepath.Join(t.TempDir(), "h")
	if err := os.WriteFile(path, headerFile(want), 0o644); err != nil {
		t.Fatal(err)
	}
	header, err := readHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	referenceHandler([]byte("GIF89a"), header).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/media.gif", nil))
	if w.Code != http.StatusOK || w.Body.String() != "GIF89a" {
		t.Fatalf("%d %q", w.Code, w.Body)
	}
	for k := range want {
		if got := w.Header().Get(k); got != want.Get(k) {
			t.Errorf("%s: %q, want %q", k, got, want.Get(k))
		}
	}
	if _, err := readHeader(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing header file was read")
	}
}
