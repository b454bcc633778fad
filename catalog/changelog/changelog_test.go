package changelog_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

func record(id, name string, tips ...string) exercise.Exercise {
	return exercise.Exercise{
		ID: id, Name: name, BodyParts: []string{"chest"}, Equipments: []string{"barbell"},
		ExerciseTypes: []string{"strength"}, Difficulty: "beginner",
		TargetMuscles: []string{"pectoralis major"}, SecondaryMuscles: []string{}, Tips: tips,
	}
}

func catalogue(t *testing.T, equipments []string, xs ...exercise.Exercise) *exercise.Catalogue {
	t.Helper()
	var eq []exercise.Term
	for _, e := range equipments {
		eq = append(eq, exercise.Term{Name: e})
	}
	c, err := exercise.New(&exercise.File{
		Vocabularies: exercise.Vocabularies{
			BodyParts:     []exercise.Term{{Name: "chest"}},
			Muscles:       []exercise.Muscle{{Name: "pectoralis major", BodyPart: "chest"}},
			Equipments:    eq,
			ExerciseTypes: []exercise.ExerciseType{{Name: "strength", MediaKey: "types/strength"}},
			Difficulties:  []exercise.Term{{Name: "beginner"}},
		},
		Exercises: xs,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDiff(t *testing.T) {
	prev := catalogue(t, []string{"barbell"},
		record("aaaa", "bench press", "Keep your wrists straight."),
		record("bbbb", "floor press", "Pause on the floor."),
		record("cccc", "pin press", "Start from the pins."),
	)
	renamed := record("bbbb", "barbell floor press", "Pause with your arms on the floor.")
	next := catalogue(t, []string{"barbell", "dumbbell"},
		record("aaaa", "bench press", "Keep your wrists straight."),
		renamed,
		record("dddd", "board press", "Press off the boards."),
	)
	got, err := changelog.Diff(prev, next)
	if err != nil {
		t.Fatal(err)
	}
	want := changelog.Version{
		Version: next.Version(), Previous: prev.Version(),
		Added:        []string{"dddd"},
		Changed:      []changelog.Change{{ID: "bbbb", Fields: []string{"name", "tips"}}},
		Removed:      []string{"cccc"},
		Vocabularies: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}

	same, err := changelog.Diff(prev, prev)
	if err != nil {
		t.Fatal(err)
	}
	if same.Version != same.Previous || len(same.Added)+len(same.Changed)+len(same.Removed) != 0 || same.Vocabularies {
		t.Errorf("Diff of a catalogue with itself = %+v, want nothing changed", same)
	}

	first, err := changelog.Diff(nil, prev)
	if err != nil {
		t.Fatal(err)
	}
	if first.Previous != "" || len(first.Added) != 3 || !first.Vocabularies {
		t.Errorf("Diff from nothing = %+v, want every record added", first)
	}
}

// v is a version entry that changed one record.
func v(version, previous string) changelog.Version {
	return changelog.Version{Version: version, Previous: previous, Added: []string{}, Changed: []changelog.Change{{ID: "x", Fields: []string{"tips"}}}, Removed: []string{}}
}

func versions(f *changelog.File) string {
	var s []string
	for _, e := range f.Versions {
		s = append(s, e.Version)
	}
	return strings.Join(s, " ")
}

func TestRecord(t *testing.T) {
	tests := []struct {
		name    string
		have    []changelog.Version
		add     changelog.Version
		want    string
		wantErr string
	}{
		{"first", nil, v("v1", ""), "v1", ""},
		{"next", []changelog.Version{v("v1", "")}, v("v2", "v1"), "v2 v1", ""},
		{"unreleased version replaced", []changelog.Version{v("v2", "v1"), v("v1", "")}, v("v3", "v1"), "v3 v1", ""},
		{"unreleased first version replaced", []changelog.Version{v("v2", "v1")}, v("v3", "v1"), "v3", ""},
		{"nothing changed", []changelog.Version{v("v1", "")}, v("v1", "v1"), "v1", ""},
		{"source edited back", []changelog.Version{v("v2", "v1"), v("v1", "")}, v("v1", "v1"), "v1", ""},
		{"predecessor unknown", []changelog.Version{v("v1", "")}, v("v3", "v2"), "", "does not hold version v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &changelog.File{Format: changelog.Format, Versions: tt.have}
			err := f.Record(tt.add)
			if tt.wantErr != "" {
				if !errors.Is(err, changelog.ErrBrokenChain) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := versions(f); got != tt.want {
				t.Errorf("versions = %q, want %q", got, tt.want)
			}
			if err := f.Check(f.Versions[0].Version); err != nil {
				t.Errorf("Check after Record: %v", err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	good := func() *changelog.File {
		return &changelog.File{Format: changelog.Format, Versions: []changelog.Version{v("v2", "v1"), v("v1", "v0")}}
	}
	tests := []struct {
		name    string
		edit    func(*changelog.File)
		current string
		want    string
	}{
		{"stale", func(*changelog.File) {}, "v3", "want the catalogue's version v3"},
		{"format", func(f *changelog.File) { f.Format = "x" }, "v2", "format"},
		{"empty", func(f *changelog.File) { f.Versions = nil }, "v2", "no versions"},
		{"broken chain", func(f *changelog.File) { f.Versions[0].Previous = "v9" }, "v2", "replaces v9"},
		{"ids out of order", func(f *changelog.File) { f.Versions[0].Added = []string{"b", "a"} }, "v2", "out of order"},
		{"id in two lists", func(f *changelog.File) { f.Versions[0].Added = []string{"x"} }, "v2", "listed twice"},
		{"change without fields", func(f *changelog.File) { f.Versions[0].Changed[0].Fields = nil }, "v2", "fields"},
	}
	if err := good().Check("v2"); err != nil {
		t.Fatalf("Check on a good changelog: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := good()
			tt.edit(f)
			if err := f.Check(tt.current); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestEncodeDecode(t *testing.T) {
	f := &changelog.File{Format: changelog.Format, Versions: []changelog.Version{
		v("v2", "v1"),
		{Version: "v1", Added: []string{"a", "b"}, Changed: []changelog.Change{}, Removed: []string{}, Vocabularies: true},
	}}
	var buf bytes.Buffer
	if err := changelog.Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n        {\"id\": \"x\", \"fields\": [\"tips\"]}\n") {
		t.Errorf("a change is not on a line of its own:\n%s", buf.String())
	}
	got, err := changelog.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Decode(Encode(f)): %v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(f, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := changelog.Decode(strings.NewReader(`{"format": "` + changelog.Format + `", "versions": [], "extra": 1}`)); err == nil {
		t.Error("Decode accepted an unknown member")
	}
}

func TestSince(t *testing.T) {
	f := &changelog.File{Format: changelog.Format, Versions: []changelog.Version{v("v3", "v2"), v("v2", "v1"), v("v1", "v0")}}
	tests := []struct {
		name, current, since string
		want                 string
		wantErr              bool
	}{
		{"whole changelog", "v3", "", "v3 v2 v1", false},
		{"since an older version", "v3", "v1", "v3 v2", false},
		{"since the oldest predecessor", "v3", "v0", "v3 v2 v1", false},
		{"since the current version", "v3", "v3", "", false},
		{"served version is older", "v2", "", "v2 v1", false},
		{"since a newer version than served", "v2", "v3", "", true},
		{"unknown since", "v3", "zz", "", true},
		{"catalogue outside the changelog", "x9", "", "", false},
		{"catalogue outside the changelog, since", "x9", "v1", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.Since(tt.current, tt.since)
			if tt.wantErr {
				if !errors.Is(err, changelog.ErrUnknownVersion) {
					t.Fatalf("err = %v, want ErrUnknownVersion", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := versions(&changelog.File{Versions: got}); s != tt.want {
				t.Errorf("versions = %q, want %q", s, tt.want)
			}
		})
	}
}
