package dataset_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/dataset/source"
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

// TestNeighbourPatterns checks that the table of neighbouring patterns
// names only patterns of the source's vocabulary, none its own neighbour.
func TestNeighbourPatterns(t *testing.T) {
	src, err := source.Read(os.DirFS("source"))
	if err != nil {
		t.Fatal(err)
	}
	table := exercise.NeighbourTable()
	if len(table) == 0 {
		t.Fatal("no neighbouring patterns")
	}
	for p, ns := range table {
		for _, n := range append([]string{p}, ns...) {
			if !slices.Contains(src.Vocabularies.Patterns, n) {
				t.Errorf("%q is not a pattern of the vocabulary", n)
			}
		}
		if slices.Contains(ns, p) {
			t.Errorf("%q is its own neighbour", p)
		}
	}
}

// TestAlternativesBodyWeight checks, over the whole embedded catalogue,
// that with only body weight at hand an exercise's alternatives are empty
// only when neither its pattern nor a neighbouring one has a body-weight
// exercise, other than its own variations, that shares a target muscle;
// and that a list keeps to the exercise's pattern unless it says it fell
// back on neighbouring ones (go test -run AlternativesBodyWeight -v
// ./catalog/dataset prints the figures).
func TestAlternativesBodyWeight(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	all := catalogue(t).Exercises
	bodyWeight := func(x exercise.Exercise) bool {
		return len(x.Equipments) == 1 && x.Equipments[0] == "body weight"
	}
	neighbours := exercise.NeighbourTable()
	empty, emptyPatternHasOne, fallbacks := 0, 0, 0
	for _, x := range all {
		p, err := c.Related(exercise.Alternatives, x.ID, exercise.Filter{Equipments: []string{"body weight"}}, exercise.PageRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if p.Fallback {
			fallbacks++
		}
		for _, y := range p.Exercises {
			own := y.Pattern == x.Pattern
			if own == p.Fallback || !slices.Contains(p.MovementPatterns, y.Pattern) {
				t.Errorf("%s: %s (%s) in a list of %q, fallback %t", x.Name, y.Name, y.Pattern, p.MovementPatterns, p.Fallback)
			}
		}
		if len(p.Exercises) > 0 {
			continue
		}
		empty++
		var substitute, patternHasOne string
		for _, y := range all {
			if y.ID == x.ID || !bodyWeight(y) {
				continue
			}
			if y.Pattern == x.Pattern {
				patternHasOne = y.Name
			}
			near := y.Pattern == x.Pattern || slices.Contains(neighbours[x.Pattern], y.Pattern)
			variation := y.Family == x.Family && slices.Equal(slices.Sorted(slices.Values(y.Equipments)), slices.Sorted(slices.Values(x.Equipments)))
			shares := slices.ContainsFunc(y.TargetMuscles, func(m string) bool { return slices.Contains(x.TargetMuscles, m) })
			if near && !variation && shares {
				substitute = y.Name
			}
		}
		if patternHasOne != "" {
			emptyPatternHasOne++
		}
		if substitute != "" {
			t.Errorf("%s: no body-weight alternative, though %s would do", x.Name, substitute)
		}
	}
	t.Logf("%d exercises: %d with no body-weight alternative, %d of them of a pattern with a body-weight exercise; %d lists fell back on a neighbouring pattern",
		len(all), empty, emptyPatternHasOne, fallbacks)
}
