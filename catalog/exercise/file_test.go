package exercise

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readSmall(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDecodeValid(t *testing.T) {
	f, err := Decode(strings.NewReader(readSmall(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Exercises) != 2 || f.Exercises[1].MediaKey != "" || f.Exercises[0].MediaKey != "exercises/pu" {
		t.Errorf("decoded %+v", f.Exercises)
	}
}

func TestDecodeErrors(t *testing.T) {
	small := readSmall(t)
	if _, err := Decode(strings.NewReader("[]")); err == nil || err.Error() != "catalogue file: the file: a JSON array where an object belongs" {
		t.Errorf("an array for a file: %v", err)
	}
	tests := []struct {
		name      string
		old, new  string // replace old by new in small.json
		want      []string
		wantCount int // problems expected; 0 means do not check
	}{
		{"unknown member of a record", `"difficulty": "advanced"`, `"difficulty": "advanced", "level": 3`,
			[]string{`exercises[0] (id "pu"): unknown field "level"`}, 1},
		{"unknown top-level member", `"format"`, `"extra": 1, "format"`, []string{`unknown field "extra"`}, 0},
		{"unknown vocabulary member", `"bodyParts": [{"name": "chest"}`, `"bodyParts": [{"name": "chest", "x": 1}`, []string{`vocabularies: unknown field "x"`}, 0},
		{"missing name", `"name": "pull-up", `, ``, []string{`exercises[0] (id "pu"): field "name": missing`}, 1},
		{"missing secondary muscles", `"secondaryMuscles": [], `, ``, []string{`exercises[0] (id "pu"): field "secondaryMuscles": missing`}, 1},
		{"empty target muscles", `"targetMuscles": ["latissimus dorsi"], "secondaryMuscles": []`, `"targetMuscles": [], "secondaryMuscles": []`,
			[]string{`exercises[0] (id "pu"): field "targetMuscles": empty`}, 1},
		{"missing id", `"id": "pu", `, ``, []string{`exercises[0]: field "id": missing`}, 1},
		{"duplicate id", `"id": "bp"`, `"id": "pu"`, []string{`exercises[1] (id "pu"): field "id": duplicate id, also used by exercises[0]`}, 1},
		{"malformed id", `"id": "pu"`, `"id": "p u"`, []string{`exercises[0] (id "p u"): field "id": malformed`}, 1},
		{"undeclared body part", `"bodyParts": ["back"]`, `"bodyParts": ["legs"]`,
			[]string{`exercises[0] (id "pu"): field "bodyParts": value "legs" is not in vocabularies.bodyParts`}, 1},
		{"undeclared muscle", `"secondaryMuscles": ["latissimus dorsi"]`, `"secondaryMuscles": ["lats"]`,
			[]string{`exercises[1] (id "bp"): field "secondaryMuscles": value "lats" is not in vocabularies.muscles`}, 1},
		{"undeclared difficulty", `"difficulty": "beginner"`, `"difficulty": "easy"`,
			[]string{`exercises[1] (id "bp"): field "difficulty": value "easy" is not in vocabularies.difficulties`}, 1},
		{"value listed twice", `"equipments": ["barbell"]`, `"equipments": ["barbell", "barbell"]`,
			[]string{`field "equipments": value "barbell" is listed twice`}, 1},
		{"non-canonical vocabulary", `{"name": "body weight"}`, `{"name": "Body Weight"}`,
			[]string{`vocabularies.equipments[1]: name "Body Weight": not canonical, write "body weight"`}, 0},
		{"muscle of an unknown body part", `"bodyPart": "back"`, `"bodyPart": "backs"`,
			[]string{`vocabularies.muscles[1] ("latissimus dorsi"): bodyPart "backs": not in vocabularies.bodyParts`}, 0},
		{"wrong format", `exercisedb-catalogue/v1`, `v0`, []string{`format is "v0"`}, 0},
		{"format of the wrong type", `"exercisedb-catalogue/v1"`, `1`, []string{`catalogue file: format: a JSON number where a string belongs`}, 0},
		{"trailing data", "}\n  ]\n}\n", "}\n  ]\n}\n{}", []string{"unexpected data after the JSON value"}, 0},
		{"several problems reported together", `"name": "pull-up", `, `"name": "", `,
			[]string{`exercises[0] (id "pu"): field "name": empty`}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(small, tt.old, tt.new, 1)
			if in == small {
				t.Fatalf("fixture does not contain %q", tt.old)
			}
			_, err := Decode(strings.NewReader(in))
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
			if tt.wantCount > 0 {
				if n := strings.Count(err.Error(), "\n  "); n != tt.wantCount {
					t.Errorf("%d problems reported, want %d:\n%v", n, tt.wantCount, err)
				}
			}
		})
	}
}

func TestDecodeReportsManyProblemsAtMostTwenty(t *testing.T) {
	f := randomFile(40, 3)
	for i := range f.Exercises {
		f.Exercises[i].Difficulty = "impossible"
	}
	var buf bytes.Buffer
	if err := Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	_, err := Decode(&buf)
	if err == nil || !strings.Contains(err.Error(), "... and 20 more") {
		t.Fatalf("err = %v, want 20 problems and a count of the rest", err)
	}
}

// TestIDsAndVersionIgnoreFileOrder checks that re-ordering the file keeps
// every id and the version, and that adding records keeps the old ids.
func TestIDsAndVersionIgnoreFileOrder(t *testing.T) {
	f := randomFile(50, 4)
	a := mustNew(t, f)
	shuffled := *f
	shuffled.Exercises = append([]Exercise(nil), f.Exercises...)
	for i, j := 0, len(shuffled.Exercises)-1; i < j; i, j = i+1, j-1 {
		shuffled.Exercises[i], shuffled.Exercises[j] = shuffled.Exercises[j], shuffled.Exercises[i]
	}
	b := mustNew(t, &shuffled)
	if a.Version() != b.Version() {
		t.Errorf("version changed with file order: %s vs %s", a.Version(), b.Version())
	}
	grown := shuffled
	grown.Exercises = append(grown.Exercises, randomFile(60, 5).Exercises[55:]...)
	c := mustNew(t, &grown)
	if c.Version() == a.Version() {
		t.Error("version unchanged after adding records")
	}
	for _, x := range f.Exercises {
		got, err := c.Exercise(x.ID)
		if err != nil || got.Name != x.Name {
			t.Errorf("Exercise(%s) = %q, %v; want %q", x.ID, got.Name, err, x.Name)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	f := randomFile(30, 6)
	var buf bytes.Buffer
	if err := Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mustNew(t, f), mustNew(t, back)
	if a.Version() != b.Version() {
		t.Errorf("round trip changed the version")
	}
	if diff := cmp.Diff(a.exercises, b.exercises); diff != "" {
		t.Errorf("round trip (-before +after):\n%s", diff)
	}
}

// Encode writes, a record at a time, what encoding/json writes for the
// whole File, indented and without HTML escaping: the bytes of every
// generated file and every catalogue version depend on it.
func TestEncodeWritesWhatEncodingJSONWrites(t *testing.T) {
	f := randomFile(30, 6)
	f.Exercises[0].Name = `<b>"press" & pull</b>`
	f.Exercises[1].SecondaryMuscles = nil
	for name, file := range map[string]*File{
		"records":  f,
		"none":     {Format: f.Format, Vocabularies: f.Vocabularies, Exercises: []Exercise{}},
		"nil":      {Format: f.Format, Vocabularies: f.Vocabularies},
		"one only": {Format: f.Format, Vocabularies: f.Vocabularies, Exercises: f.Exercises[:1]},
	} {
		t.Run(name, func(t *testing.T) {
			whole := *file
			whole.Exercises = slices.Clone(file.Exercises)
			slices.SortFunc(whole.Exercises, func(a, b Exercise) int { return strings.Compare(a.ID, b.ID) })
			for i := range whole.Exercises {
				if whole.Exercises[i].SecondaryMuscles == nil {
					whole.Exercises[i].SecondaryMuscles = []string{}
				}
			}
			var want, got bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(&whole); err != nil {
				t.Fatal(err)
			}
			if err := Encode(&got, file); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("Encode (-encoding/json +Encode):\n%s", diff)
			}
		})
	}
}

func TestIDFor(t *testing.T) {
	// Golden values: changing IDFor would change every published id.
	for name, want := range map[string]string{
		"barbell bench press":    "humnn3ws",
		" Barbell  Bench PRESS ": "humnn3ws", // canonical form first
		"dumbbell incline curl":  "ejwd465u",
	} {
		got := IDFor(name)
		if got != want {
			t.Errorf("IDFor(%q) = %q, want %q", name, got, want)
		}
		if len(got) != 8 || !ValidID(got) {
			t.Errorf("IDFor(%q) = %q: not an 8-character valid id", name, got)
		}
	}
}

func TestSearchKey(t *testing.T) {
	for _, in := range []string{"Pull-up", "pull up", "PULLUP", " pull–up! ", "ｐｕｌｌ－ｕｐ"} {
		if got := SearchKey(in); got != "pullup" {
			t.Errorf("SearchKey(%q) = %q, want pullup", in, got)
		}
	}
	if got := SearchKey("Übung 3×"); got != "übung3" {
		t.Errorf("SearchKey non-ASCII = %q", got)
	}
}
