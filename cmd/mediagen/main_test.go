package main

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestRenderPublishSheet renders the first subjects of the embedded
// catalogue, publishes them to an S3 server (gofakes3, in memory) and
// reads one back over plain HTTP as a CDN would; a second render and
// publish find everything in place; sheet writes a PNG.
func TestRenderPublishSheet(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"render", "-out", dir, "-limit", "3", "-formats", "gif,png,svg"}, noEnv, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "15 files written") {
		t.Errorf("render: %s", out.String())
	}
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if len(files) != 15 {
		t.Fatalf("render wrote %v, want 15 files", files)
	}
	out.Reset()
	if err := run(context.Background(), []string{"render", "-out", dir, "-limit", "3", "-formats", "gif,png,svg"}, noEnv, &out); err != nil || !strings.Contains(out.String(), "0 files written (0 bytes), 15 already there") {
		t.Errorf("render again: %v %s", err, out.String())
	}

	s3 := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer s3.Close()
	endpoint := strings.TrimPrefix(s3.URL, "http://")
	publish := []string{"publish", "-dir", dir, "-endpoint", endpoint, "-bucket", "media"}
	out.Reset()
	if err := run(context.Background(), publish, noEnv, &out); err != nil || !strings.Contains(out.String(), "15 uploaded") {
		t.Fatalf("publish: %v %s", err, out.String())
	}
	out.Reset()
	if err := run(context.Background(), publish, noEnv, &out); err != nil || !strings.Contains(out.String(), "0 uploaded (0 bytes), 15 already there") {
		t.Errorf("publish again: %v %s", err, out.String())
	}
	resp, err := http.Get(s3.URL + "/media/" + files[0])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want, _ := os.ReadFile(filepath.Join(dir, files[0]))
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
		t.Errorf("GET %s from the store: %d, %d bytes; want the %d rendered", files[0], resp.StatusCode, len(body), len(want))
	}

	sheetPath := filepath.Join(t.TempDir(), "sheet.png")
	out.Reset()
	if err := run(context.Background(), []string{"sheet", "-out", sheetPath, "-n", "4", "-height", "90"}, noEnv, &out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(sheetPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() < 4*90 || img.Bounds().Dy() < 2*90 {
		t.Errorf("sheet: %v, %v", err, img.Bounds())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"paint"}, {"render"}, {"render", "-out", t.TempDir(), "-formats", "webp"}, {"render", "-out", t.TempDir(), "-heights", "1080"}, {"publish", "-dir", "x"}, {"sheet", "-ids", "nosuchid", "-out", filepath.Join(t.TempDir(), "s.png")}} {
		if err := run(context.Background(), args, noEnv, io.Discard); err == nil || err == errHelp {
			t.Errorf("mediagen %v: %v, want an error", args, err)
		}
	}
	if err := run(context.Background(), []string{"-h"}, noEnv, io.Discard); err != errHelp {
		t.Errorf("mediagen -h: %v", err)
	}
}

func noEnv(string) string { return "" }
