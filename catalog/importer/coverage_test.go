package importer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

func TestLooseKey(t *testing.T) {
	tests := []struct{ name, want string }{
		{"push-up", "pushup"},
		{"Pushups", "pushup"},
		{"Push-Ups - Close Triceps Position", "pushup"},
		{"Pushups (Close and Wide Hand Positions)", "pushup"},
		{"Machine Shoulder (Military) Press", "machineshoulderpress"},
		{"Kettlebell Turkish Get-Up (Lunge style)", "kettlebellturkishgetup"},
		{"Machine Bicep Curl", "machinebicepcurl"},
		{"machine biceps curl", "machinebicepcurl"},
		{"Cross-Body Crunch", "crossbodycrunch"}, // "ss" is no plural
		{"Abs", "ab"},
		{"Dumbbell Press (unclosed", "dumbbellpress"},
		{"Curl-Ups-", "curlup"}, // a dash without spaces is kept as a separator
		{"Crunch - Hands Overhead - Weighted", "crunch"},
	}
	for _, tt := range tests {
		if got := LooseKey(tt.name); got != tt.want {
			t.Errorf("LooseKey(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCommonWords(t *testing.T) {
	got := CommonWords([]string{"One-Arm Dumbbell Row", "Dumbbell Row with a Twist", "Row Row Row", "Z"})
	want := []WordCount{{"row", 3}, {"dumbbell", 2}, {"arm", 1}, {"one", 1}, {"twist", 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CommonWords (-want +got):\n%s", diff)
	}
}

func TestMeasureCoverage(t *testing.T) {
	f := &exercise.File{Exercises: []exercise.Exercise{
		{Name: "pull-up"}, {Name: "barbell bench press"}, {Name: "plank"},
	}}
	names := []string{"Pull Up", "Pullups", "Barbell Bench Press - Medium Grip", "Plank", "Side Plank", "Tire Flip"}
	got := MeasureCoverage(names, f)
	want := &Coverage{
		Catalogue: 3, Names: 6, Exact: 2, Loose: 4,
		LooseOnly: []LooseMatch{{"Pullups", "pull-up"}, {"Barbell Bench Press - Medium Grip", "barbell bench press"}},
		Unmatched: []string{"Side Plank", "Tire Flip"},
		Words:     []WordCount{{"flip", 1}, {"plank", 1}, {"side", 1}, {"tire", 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MeasureCoverage (-want +got):\n%s", diff)
	}
	var b strings.Builder
	if err := got.WriteText(&b, "test", 2); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"test names found in the catalogue (3 exercises):\n",
		"  exact (exercise.SearchKey):      2 of 6 (33.3%)\n",
		"  loose (qualifiers, plurals):     4 of 6 (66.7%)\n",
		"  Pullups ~ pull-up\n",
		"unmatched (2):\n  Side Plank\n  Tire Flip\n",
		"most common words among the unmatched names (names containing the word):\n  flip                1\n  plank               1\n",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("coverage text lacks %q; got:\n%s", line, b.String())
		}
	}
	if strings.Contains(b.String(), "  side ") {
		t.Errorf("top 2 words printed more:\n%s", b.String())
	}
}
