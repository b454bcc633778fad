package exercise

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestFacetsEqualListingTotals: over random queries, filters and record
// caps, each facet's count of a value is the total of the listing that
// asks for that value in the facet's own field (its other values
// dropped), and a value left out counts nothing.
func TestFacetsEqualListingTotals(t *testing.T) {
	f := searchFile(400, 7)
	c := mustNew(t, f)
	v := f.Vocabularies
	type field struct {
		facet  Facet
		values []string
		set    func(*Filter, []string)
	}
	fields := []field{
		{FacetBodyParts, Names(v.BodyParts), func(f *Filter, vs []string) { f.BodyParts = vs }},
		{FacetEquipments, Names(v.Equipments), func(f *Filter, vs []string) { f.Equipments = vs }},
		{FacetDifficulty, Names(v.Difficulties), func(f *Filter, vs []string) { f.Difficulties = vs }},
		{FacetExerciseTypes, Names(v.ExerciseTypes), func(f *Filter, vs []string) { f.ExerciseTypes = vs }},
		{FacetTargetMuscles, Names(v.Muscles), func(f *Filter, vs []string) { f.TargetMuscles = vs }},
		{FacetMovementPatterns, Names(v.MovementPatterns), func(f *Filter, vs []string) { f.MovementPatterns = vs }},
	}
	words := []string{"dumbbell", "press", "curl", "row", "squat", "incline", "hammer", "chest", "strict", "zzz", ""}
	rng := rand.New(rand.NewPCG(3, 5))
	var counted int
	for i := range 150 {
		var flt Filter
		for range rng.IntN(3) {
			fl := fields[rng.IntN(len(fields))]
			fl.set(&flt, []string{fl.values[rng.IntN(len(fl.values))], fl.values[rng.IntN(len(fl.values))]})
		}
		if w := words[rng.IntN(len(words))]; w != "" {
			flt.Query = w + " " + words[rng.IntN(len(words)-1)]
		}
		recordCap := 0
		if rng.IntN(3) == 0 {
			recordCap = 1 + rng.IntN(20)
		}
		var facets []Facet
		for _, fl := range fields {
			facets = append(facets, fl.facet)
		}
		got, err := c.Facets(flt, facets, recordCap)
		if err != nil {
			t.Fatal(err)
		}
		for j, fl := range fields {
			name := fmt.Sprintf("%d: filter %+v, cap %d, facet %s", i, flt, recordCap, fl.facet)
			if got[j].Facet != fl.facet {
				t.Fatalf("%s: facet %s in its place", name, got[j].Facet)
			}
			counts := map[string]int{}
			for _, vc := range got[j].Values {
				counts[vc.Value] = vc.Count
			}
			for _, value := range fl.values {
				one := flt
				fl.set(&one, []string{value})
				p, err := c.List(one, PageRequest{RecordCap: recordCap, Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				if counts[value] != p.Total {
					t.Fatalf("%s: %q counts %d, its listing totals %d", name, value, counts[value], p.Total)
				}
				counted += p.Total
			}
		}
	}
	if counted == 0 {
		t.Fatal("no facet counted anything: the cases test nothing")
	}
}

// TestFacetsOrderAndErrors: values come most records first, ties by
// name; a bad filter is the listing's error.
func TestFacetsOrderAndErrors(t *testing.T) {
	c := mustNew(t, rivalFile())
	got, err := c.Facets(Filter{Query: "dumbbell"}, []Facet{FacetEquipments, FacetMovementPatterns}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []FacetCounts{
		{FacetEquipments, []ValueCount{{"dumbbell", 13}}},
		{FacetMovementPatterns, nil}, // the records carry no training: no pattern to count
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	got, _ = c.Facets(Filter{}, []Facet{FacetEquipments}, 4)
	if !slices.IsSortedFunc(got[0].Values, func(a, b ValueCount) int { return b.Count - a.Count }) || got[0].Values[0].Count != 4 {
		t.Errorf("capped at 4: %v", got)
	}
	if _, err := c.Facets(Filter{BodyParts: []string{"wings"}}, []Facet{FacetBodyParts}, 0); err == nil {
		t.Error("an unknown body part: no error")
	}
}

// TestValueSetsCountBothWays: reading each record's set of values counts
// what intersecting the set with each value's records counts, for sets
// sparse and dense, and for records with no value of the field.
func TestValueSetsCountBothWays(t *testing.T) {
	f := randomFile(3000, 9)
	c := mustNew(t, f)
	rng := rand.New(rand.NewPCG(5, 8))
	for _, density := range []float64{0.001, 0.02, 0.3, 0.9, 1} {
		set := roaring.New()
		for i := range len(f.Exercises) {
			if rng.Float64() < density {
				set.Add(uint32(i))
			}
		}
		for facet, v := range c.facetValues {
			if v.of == nil {
				t.Fatalf("%s: no sets of values numbered", facet)
			}
			if got, want := v.read(set), v.intersect(set); !slices.Equal(got, want) {
				t.Errorf("%s, density %g: read %v, intersected %v", facet, density, got, want)
			}
		}
	}
}
