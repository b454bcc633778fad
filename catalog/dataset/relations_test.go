package dataset_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// alternativesCase is an entry of testdata/alternatives.yaml: the
// substitutes a coach would give for an exercise, with the equipment at
// hand, that must rank among the first Top alternatives, and those that
// must not.
type alternativesCase struct {
	Of         string   `yaml:"of"`
	Equipments []string `yaml:"equipments"`
	Top        int      `yaml:"top"`
	Want       []string `yaml:"want"`
	Avoid      []string `yaml:"avoid"`
}

// TestAlternativesQuality checks the alternatives of the embedded
// catalogue against the quality set (go test -run AlternativesQuality -v
// ./catalog/dataset prints every list checked).
func TestAlternativesQuality(t *testing.T) {
	data, err := os.ReadFile("testdata/alternatives.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []alternativesCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("the alternatives set has %d entries, want at least 50", len(cases))
	}
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, x := range catalogue(t).Exercises {
		ids[x.Name] = x.ID
	}
	for _, tc := range cases {
		name := tc.Of
		if len(tc.Equipments) > 0 {
			name += " with " + strings.Join(tc.Equipments, ", ")
		}
		t.Run(name, func(t *testing.T) {
			for _, n := range append(append([]string{tc.Of}, tc.Want...), tc.Avoid...) {
				if ids[n] == "" {
					t.Fatalf("%q is not in the catalogue", n)
				}
			}
			if tc.Top < len(tc.Want) {
				t.Fatalf("top %d cannot hold the %d names wanted", tc.Top, len(tc.Want))
			}
			p, err := c.Related(exercise.Alternatives, ids[tc.Of], exercise.Filter{Equipments: tc.Equipments}, exercise.PageRequest{Limit: tc.Top})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range p.Exercises {
				got = append(got, x.Name)
			}
			t.Logf("top %d: %q", tc.Top, got)
			for _, w := range tc.Want {
				if !slices.Contains(got, w) {
					t.Errorf("want %q among the first %d, got %q", w, tc.Top, got)
				}
			}
			for _, a := range tc.Avoid {
				if slices.Contains(got, a) {
					t.Errorf("%q should not be among the first %d: %q", a, tc.Top, got)
				}
			}
		})
	}
}
