package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// The committed source and catalogue, relative to this package.
const (
	committedSource    = "../../catalog/dataset/source"
	committedCatalogue = "../../catalog/dataset/catalogue.json"
)

// runOutput is what one run of the command printed and returned.
type runOutput struct {
	stdout, stderr string
	err            error
}

func runCommand(t *testing.T, args ...string) runOutput {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	return runOutput{stdout.String(), stderr.String(), err}
}

// generated returns the catalogue the committed source generates, written
// to a temporary file.
func generated(t *testing.T) (path string, data []byte) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "catalogue.json")
	if out := runCommand(t, "-source", committedSource, "-out", path); out.err != nil {
		t.Fatalf("generate: %v\n%s", out.err, out.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestCheckPassesOnCommittedCatalogue(t *testing.T) {
	out := runCommand(t, "-check", "-source", committedSource, "-out", committedCatalogue)
	if out.err != nil {
		t.Fatalf("cataloguegen -check: %v", out.err)
	}
	if !strings.Contains(out.stderr, "is up to date") {
		t.Errorf("stderr = %q, want a status line", out.stderr)
	}
}

func TestWriteThenCheck(t *testing.T) {
	path, data := generated(t)
	committed, err := os.ReadFile(committedCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, committed) {
		t.Error("written catalogue differs from the committed one")
	}
	if out := runCommand(t, "-check", "-source", committedSource, "-out", path); out.err != nil {
		t.Errorf("-check after writing: %v", out.err)
	}
}

func TestCheckDetectsStaleFile(t *testing.T) {
	path, data := generated(t)
	tests := []struct {
		name    string
		content []byte // nil removes the file
		want    string
	}{
		{"value edited", bytes.Replace(data, []byte(`"beginner"`), []byte(`"advanced"`), 1), "is stale: line "},
		{"record appended", append(bytes.Clone(data), "\n"...), "is stale: line "},
		{"truncated", data[:len(data)/2], "is stale: line "},
		{"missing", nil, "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.content == nil {
				os.Remove(path)
			} else if err := os.WriteFile(path, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			out := runCommand(t, "-check", "-source", committedSource, "-out", path)
			if out.err == nil {
				t.Fatal("-check passed on a stale file")
			}
			for _, want := range []string{path, tt.want, "go generate ./catalog/dataset"} {
				if !strings.Contains(out.err.Error(), want) {
					t.Errorf("error %q does not contain %q", out.err, want)
				}
			}
		})
	}
}

func TestCheckDoesNotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalogue.json")
	if err := os.WriteFile(path, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	runCommand(t, "-check", "-source", committedSource, "-out", path)
	if got, _ := os.ReadFile(path); string(got) != "stale" {
		t.Error("-check changed the file")
	}
}

func TestStats(t *testing.T) {
	path, _ := generated(t)
	out := runCommand(t, "-check", "-stats", "-source", committedSource, "-out", path)
	if out.err != nil {
		t.Fatal(out.err)
	}
	for _, want := range []string{
		"| Total | Exercises |\n| --- | ---: |\n| exercises | ",
		"| Body part | Exercises |", "| neck | ",
		"| Equipment | Exercises |", "| ski erg | ",
		"| Exercise type | Exercises |", "| yoga | ",
		"| Difficulty | Exercises |", "| advanced | ",
	} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("stats do not contain %q:\n%s", want, out.stdout)
		}
	}
	if strings.Contains(out.stdout, "up to date") {
		t.Error("status line on stdout; it belongs on stderr")
	}
}

func TestCommandLineErrors(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		usage bool
		want  string
	}{
		{"unknown flag", []string{"-frobnicate"}, true, "flag provided but not defined"},
		{"stray argument", []string{"extra"}, true, "unexpected arguments"},
		{"missing source", []string{"-source", filepath.Join(t.TempDir(), "nope"), "-check"}, false, "vocabularies.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runCommand(t, tt.args...)
			var usage usageError
			if out.err == nil || errors.As(out.err, &usage) != tt.usage {
				t.Fatalf("err = %v, want usage error: %v", out.err, tt.usage)
			}
			if !strings.Contains(out.err.Error()+out.stderr, tt.want) {
				t.Errorf("output does not contain %q: %v\n%s", tt.want, out.err, out.stderr)
			}
		})
	}
}

func TestHelpIsNotAnError(t *testing.T) {
	out := runCommand(t, "-h")
	if out.err != nil {
		t.Fatalf("-h: %v", out.err)
	}
	if !strings.Contains(out.stderr, "-check") {
		t.Errorf("usage does not list -check:\n%s", out.stderr)
	}
}

func TestFirstDiffLine(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"x", "y", 1},
		{"a\nb\nc\n", "a\nb\nd\n", 3},
		{"a\nb\n", "a\nb\nc\n", 3},
		{"a\nb\nc\n", "a\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.a+"|"+tt.b, func(t *testing.T) {
			if got := firstDiffLine([]byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCanceledContextWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "catalogue.json")
	err := run(ctx, []string{"-source", committedSource, "-out", path}, &bytes.Buffer{}, &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("a canceled run wrote the catalogue")
	}
}

// previousOf writes the committed catalogue with one record dropped and
// another's tips edited, as the catalogue a regeneration follows.
func previousOf(t *testing.T, dir string) (path, dropped, edited string) {
	t.Helper()
	data, err := os.ReadFile(committedCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	f, err := exercise.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	dropped, edited = f.Exercises[0].ID, f.Exercises[1].ID
	f.Exercises = f.Exercises[1:]
	f.Exercises[0].Tips = []string{"An older tip."}
	path = filepath.Join(dir, "previous.json")
	var buf bytes.Buffer
	if err := exercise.Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, dropped, edited
}

func TestChangelogRecordsWhatChanged(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "catalogue.json")
	since, dropped, edited := previousOf(t, dir)
	// Twice, as when the source is edited again before release: the second
	// run replaces the first's version instead of adding one.
	for range 2 {
		if r := runCommand(t, "-source", committedSource, "-out", out, "-since", since); r.err != nil {
			t.Fatalf("generate: %v", r.err)
		}
	}
	f := readLog(t, filepath.Join(dir, "changelog.json"))
	if len(f.Versions) != 1 {
		t.Fatalf("%d versions, want 1", len(f.Versions))
	}
	v := f.Versions[0]
	want := changelog.Version{
		Version: v.Version, Previous: v.Previous,
		Added: []string{dropped}, Changed: []changelog.Change{{ID: edited, Fields: []string{"tips"}}}, Removed: []string{},
	}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("changelog version (-want +got):\n%s", diff)
	}
	if r := runCommand(t, "-check", "-source", committedSource, "-out", out); r.err != nil {
		t.Errorf("-check after writing: %v", r.err)
	}
}

func TestCheckDetectsStaleChangelog(t *testing.T) {
	path, _ := generated(t)
	logPath := filepath.Join(filepath.Dir(path), "changelog.json")
	tests := []struct {
		name    string
		content string // "" removes the file
		want    string
	}{
		{"missing", "", "does not exist"},
		{"older version", `{"format": "exercisedb-changelog/v1", "versions": [{"version": "0000000000000000", "previous": "", "added": [], "changed": [], "removed": [], "vocabularies": true}]}`, "is stale or malformed"},
		{"not a changelog", `{"format": "something else", "versions": []}`, "format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.content == "" {
				os.Remove(logPath)
			} else if err := os.WriteFile(logPath, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runCommand(t, "-check", "-source", committedSource, "-out", path)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.want) || !strings.Contains(r.err.Error(), logPath) {
				t.Errorf("err = %v, want %q naming %s", r.err, tt.want, logPath)
			}
		})
	}
}

func readLog(t *testing.T, path string) *changelog.File {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := changelog.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestChangelogRestartsWhenItsChainBreaks: a changelog that does not hold
// the previous catalogue (one released without being recorded) starts
// again at the new version, with a warning, rather than failing.
func TestChangelogRestartsWhenItsChainBreaks(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "catalogue.json")
	since, _, _ := previousOf(t, dir)
	other := `{"format": "exercisedb-changelog/v1", "versions": [{"version": "1111111111111111", "previous": "", "added": [], "changed": [], "removed": [], "vocabularies": true}]}`
	if err := os.WriteFile(filepath.Join(dir, "changelog.json"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCommand(t, "-source", committedSource, "-out", out, "-since", since)
	if r.err != nil {
		t.Fatalf("generate: %v", r.err)
	}
	if !strings.Contains(r.stderr, "does not hold version") {
		t.Errorf("stderr = %q, want a warning that the chain broke", r.stderr)
	}
	if f := readLog(t, filepath.Join(dir, "changelog.json")); len(f.Versions) != 1 || f.Versions[0].Version == "1111111111111111" {
		t.Errorf("versions = %+v, want the new one only", f.Versions)
	}
}
