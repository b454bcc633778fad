package exercise

import (
	"os"
	"strings"
	"testing"
)

func TestDecodeVersion2(t *testing.T) {
	b, err := os.ReadFile("testdata/small-v2.json")
	if err != nil {
		t.Fatal(err)
	}
	small := string(b)
	f, err := Decode(strings.NewReader(small))
	if err != nil {
		t.Fatal(err)
	}
	if x := f.Exercises[1]; x.Description != "A horizontal press." || len(x.Instructions) != 3 || x.Aliases[0] != "bench press" || x.Pattern != "horizontal push" || x.Standard {
		t.Errorf("decoded %+v", x)
	}
	if tr := f.Exercises[0].Training; tr == nil || tr.Force != "pull" || tr.Prescription.Reps[1] != 6 || f.Exercises[1].Training != nil {
		t.Errorf("decoded training %+v and %+v, want the first only", tr, f.Exercises[1].Training)
	}
	if !f.Exercises[0].Standard {
		t.Errorf("decoded %+v, want the standard form of its family", f.Exercises[0])
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"empty step", `"Pull."`, `" "`, `exercises[0] (id "pu"): field "instructions[1]": empty`},
		{"too few steps", `["Hang.", "Pull.", "Lower."]`, `["Hang.", "Pull."]`, `field "instructions": 2 entries, want 3 to 10`},
		{"too many tips", `["Stay tight."]`, `["1.", "2.", "3.", "4.", "5.", "6."]`, `field "tips": 6 entries, want 1 to 5`},
		{"no tips", `["Stay tight."]`, `[]`, `field "tips": 0 entries, want 1 to 5`},
		{"missing description", `"description": "A vertical pull.", `, ``, `exercises[0] (id "pu"): field "description": missing`},
		{"missing pattern", `, "pattern": "vertical pull"`, ``, `field "pattern": missing`},
		{"alias of two records", `"aliases": ["pullup bar hang pull"]`, `"aliases": ["bench-press"]`, `exercise "bp": alias "bench press": also claimed by exercise "pu"`},
		{"alias equal to a name", `"aliases": ["bench press"]`, `"aliases": ["pull up"]`, `exercise "bp": alias "pull up": also claimed by exercise "pu"`},
		{"content in a version 1 file", `exercisedb-catalogue/v2`, `exercisedb-catalogue/v1`, `field "description": only allowed in format "exercisedb-catalogue/v2"`},
		{"standard in a version 1 file", `exercisedb-catalogue/v2`, `exercisedb-catalogue/v1`, `field "standard": only allowed in format "exercisedb-catalogue/v2"`},
		{"two standard forms of a family", `"family": "bench press"`, `"family": "pull-up", "standard": true`, `exercise "bp": standard: family "pull-up" already has exercise "pu" as its standard form`},
		{"training value undeclared", `"force": "pull"`, `"force": "drag"`, `exercises[0] (id "pu"): field "training.force": value "drag" is not in vocabularies.forces`},
		{"training field missing", `"mechanics": "compound", `, ``, `field "training.mechanics": missing`},
		{"training of another pattern", `"movementPattern": "vertical pull"`, `"movementPattern": "horizontal push"`, `field "training.movementPattern": "horizontal push" differs from pattern "vertical pull"`},
		{"prescription in another unit", `"reps": [3, 6]`, `"seconds": [3, 6]`, `field "training.prescription.reps": missing`},
		{"prescription range upside down", `"sets": [3, 5]`, `"sets": [5, 3]`, `field "training.prescription.sets": [5 3] is not a range`},
		{"unknown training member", `"measure": "reps"`, `"measure": "reps", "goal": "strength"`, `unknown field "goal"`},
		{"pattern outside the movement patterns", `"pattern": "horizontal push"}`, `"pattern": "press"}`, `exercises[1] (id "bp"): field "pattern": value "press" is not in vocabularies.movementPatterns`},
		{"training in a version 1 file", `exercisedb-catalogue/v2`, `exercisedb-catalogue/v1`, `field "training": only allowed in format "exercisedb-catalogue/v2"`},
		{"standard not a boolean", `"standard": true`, `"standard": "yes"`, `standard`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(small, tc.old, tc.new, 1)
			if in == small {
				t.Fatalf("%q is not in the file", tc.old)
			}
			_, err := Decode(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
