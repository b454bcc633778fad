package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/importer"
)

// datasets holds the open datasets, relative to this package; tests that
// read them skip when it is missing.
const datasets = "../../../shared/datasets"

// fixture is a hand-made exercises.json in free-exercise-db's shape.
const fixture = `[
 {"id": "A", "name": "Barbell Curl", "level": "beginner", "equipment": "barbell",
  "primaryMuscles": ["biceps"], "secondaryMuscles": ["forearms"], "category": "strength"},
 {"id": "B", "name": "Tire Flip", "level": "expert", "equipment": "other",
  "primaryMuscles": ["quadriceps"], "secondaryMuscles": [], "category": "strongman"},
 {"id": "C", "name": "Kettlebell Swing", "level": "intermediate", "equipment": "kettlebells",
  "primaryMuscles": ["hamstrings"], "secondaryMuscles": ["glutes"], "category": "strength"}
]`

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

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadCatalogue loads a written catalogue as bin/catalog -data does.
func loadCatalogue(t *testing.T, path string) *exercise.Catalogue {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := exercise.Load(data)
	if err != nil {
		t.Fatalf("%s does not load in the catalog: %v", path, err)
	}
	return c
}

func TestImportFixture(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "exercises.json", fixture)
	out, report := filepath.Join(dir, "out.json"), filepath.Join(dir, "report.json")
	res := runCommand(t, "-from", "free-exercise-db", "-in", in, "-out", out, "-report", report)
	if res.err != nil {
		t.Fatalf("run: %v\n%s", res.err, res.stderr)
	}
	if c := loadCatalogue(t, out); c.Len() != 2 {
		t.Errorf("%d exercises written, want 2", c.Len())
	}
	for _, want := range []string{
		"free-exercise-db (" + in + "): 3 records in, 2 out, 1 skipped\n",
		"  equipment \"other\": unmapped (1 record)\n",
		"  level \"expert\" → \"advanced\" (1 record)\n",
		out + " written: 2 exercises, catalogue version ",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q; got:\n%s", want, res.stderr)
		}
	}
	if res.stdout != "" {
		t.Errorf("stdout = %q, want nothing", res.stdout)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep importer.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.RecordsIn != 3 || rep.RecordsOut != 2 || len(rep.Skipped) != 1 || rep.Skipped[0].SourceID != "B" ||
		rep.SkippedByReason[importer.ReasonEquipmentUnmapped] != 1 {
		t.Errorf("report = %+v", rep)
	}
}

func TestImportToStdout(t *testing.T) {
	in := writeFile(t, t.TempDir(), "exercises.json", fixture)
	res := runCommand(t, "-from", "free-exercise-db", "-in", in, "-out", "-")
	if res.err != nil {
		t.Fatalf("run: %v\n%s", res.err, res.stderr)
	}
	if _, err := exercise.Load([]byte(res.stdout)); err != nil {
		t.Errorf("stdout does not load: %v", err)
	}
}

func TestImportNothingMapped(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "exercises.json", `[{"id": "B", "name": "Tire Flip", "level": "expert", "equipment": "other",
  "primaryMuscles": ["quadriceps"], "secondaryMuscles": [], "category": "strongman"}]`)
	out := filepath.Join(dir, "out.json")
	res := runCommand(t, "-from", "free-exercise-db", "-in", in, "-out", out)
	if res.err == nil || !strings.Contains(res.err.Error(), "no record could be imported") {
		t.Errorf("err = %v, want no record could be imported", res.err)
	}
	if !strings.Contains(res.stderr, "1 records in, 0 out, 1 skipped") {
		t.Errorf("the report is not printed; stderr:\n%s", res.stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s written anyway (%v)", out, err)
	}
}

func TestImportVocabulariesFromData(t *testing.T) {
	// The gRPC tests' small catalogue declares too few values for the
	// mapping tables: the import must refuse it, naming what is missing.
	in := writeFile(t, t.TempDir(), "exercises.json", fixture)
	res := runCommand(t, "-from", "free-exercise-db", "-in", in, "-out", "-", "-data", "../../catalog/exercise/testdata/small.json")
	if res.err == nil || !strings.Contains(res.err.Error(), "mapping tables do not fit the vocabularies") {
		t.Errorf("err = %v, want the mapping refused", res.err)
	}
}

func TestUsage(t *testing.T) {
	in := writeFile(t, t.TempDir(), "exercises.json", fixture)
	tests := []struct {
		name  string
		args  []string
		usage bool   // a usageError, the usage printed
		want  string // in the error or, for -h, stderr
	}{
		{"no arguments", nil, true, "missing -from, -in, -out"},
		{"missing -out", []string{"-from", "wger", "-in", "x"}, true, "missing -out"},
		{"positional", []string{"-from", "wger", "-in", "x", "-out", "y", "z"}, true, "unexpected arguments"},
		{"unknown flag", []string{"-form", "wger"}, true, "flag provided but not defined"},
		{"unknown source", []string{"-from", "exrx", "-in", in, "-out", "-"}, false, `unknown source "exrx"`},
		{"coverage without -in", []string{"coverage"}, true, "missing -in"},
		{"coverage unknown source", []string{"coverage", "-from", "exrx", "-in", in}, false, `unknown source "exrx"`},
		{"help", []string{"-h"}, false, "usage: catalogimport -from free-exercise-db|wger"},
		{"coverage help", []string{"coverage", "-h"}, false, "usage: catalogimport coverage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCommand(t, tt.args...)
			var u usageError
			if errors.As(res.err, &u) != tt.usage {
				t.Errorf("err = %v (%T), usage error: want %v", res.err, res.err, tt.usage)
			}
			got := res.stderr
			if res.err != nil {
				got = res.err.Error()
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
			if tt.usage && !strings.Contains(res.stderr, "usage:") {
				t.Errorf("usage not printed; stderr:\n%s", res.stderr)
			}
		})
	}
}

func TestCoverageFixture(t *testing.T) {
	in := writeFile(t, t.TempDir(), "exercises.json", fixture)
	res := runCommand(t, "coverage", "-in", in, "-top", "3")
	if res.err != nil {
		t.Fatalf("run: %v\n%s", res.err, res.stderr)
	}
	for _, want := range []string{"free-exercise-db names found in the catalogue (", " of 3 (", "unmatched ("} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q; got:\n%s", want, res.stdout)
		}
	}
}

// datasetPath skips the test if the open datasets are missing.
func datasetPath(t *testing.T, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{datasets}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("open datasets not available (%v): these tests read them from %s", err, datasets)
	}
	return p
}

func TestImportDatasets(t *testing.T) {
	for _, tt := range []struct {
		from  string
		in    []string
		first string
		n     int
	}{
		{"free-exercise-db", []string{"free-exercise-db", "exercises.json"}, ": 873 records in, 724 out, 149 skipped\n", 724},
		{"wger", []string{"wger"}, ": 872 records in, 435 out, 437 skipped\n", 435},
	} {
		t.Run(tt.from, func(t *testing.T) {
			in := datasetPath(t, tt.in...)
			out := filepath.Join(t.TempDir(), "out.json")
			res := runCommand(t, "-from", tt.from, "-in", in, "-out", out, "-report", filepath.Join(t.TempDir(), "report.json"))
			if res.err != nil {
				t.Fatalf("run: %v\n%s", res.err, res.stderr)
			}
			if !strings.HasPrefix(res.stderr, tt.from+" ("+in+")"+tt.first) {
				t.Errorf("stderr starts %q, want %q", strings.SplitAfter(res.stderr, "\n")[0], tt.from+" ("+in+")"+tt.first)
			}
			if c := loadCatalogue(t, out); c.Len() != tt.n {
				t.Errorf("%d exercises written, want %d", c.Len(), tt.n)
			}
		})
	}
}

func TestCoverageDataset(t *testing.T) {
	in := datasetPath(t, "free-exercise-db", "exercises.json")
	report := filepath.Join(t.TempDir(), "coverage.json")
	res := runCommand(t, "coverage", "-in", in, "-report", report)
	if res.err != nil {
		t.Fatalf("run: %v\n%s", res.err, res.stderr)
	}
	t.Log(strings.Join(strings.SplitAfterN(res.stdout, "\n", 4)[:3], ""))
	for _, want := range []string{"  exact (exercise.SearchKey):", " of 873 (", "most common words among the unmatched names"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	var cov importer.Coverage
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cov); err != nil || cov.Names != 873 || cov.Exact == 0 {
		t.Errorf("coverage report %+v, %v", cov.Names, err)
	}
}
