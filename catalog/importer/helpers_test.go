package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// writeFiles writes files (name → content) into a new temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mustLoad encodes f and checks that the catalog's own loaders accept it:
// exercise.Decode, then exercise.Load (what bin/catalog -data runs).
func mustLoad(t *testing.T, f *exercise.File) *exercise.Catalogue {
	t.Helper()
	var buf bytes.Buffer
	if err := exercise.Encode(&buf, f); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if _, err := exercise.Decode(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatalf("Decode refuses the import: %v", err)
	}
	c, err := exercise.Load(buf.Bytes())
	if err != nil {
		t.Fatalf("Load refuses the import: %v", err)
	}
	return c
}

// valueLines renders a report's values one per line, so that a whole
// mapping can be compared at a glance.
func valueLines(r *Report) []string {
	out := make([]string, len(r.Values))
	for i, v := range r.Values {
		rule := ""
		if v.Rule != "" {
			rule = " [" + v.Rule + "]"
		}
		to := "unmapped"
		if !v.Unmapped() {
			to = strings.Join(v.MappedTo, ", ")
		}
		out[i] = fmt.Sprintf("%s %q%s → %s (%d)", v.Field, v.Value, rule, to, v.Records)
	}
	return out
}

// byName indexes exercises by name.
func byName(f *exercise.File) map[string]exercise.Exercise {
	m := make(map[string]exercise.Exercise, len(f.Exercises))
	for _, x := range f.Exercises {
		m[x.Name] = x
	}
	return m
}
