package exercise

import (
	"cmp"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Facet is a field whose values a listing can count, for a search
// interface that shows "chest (34)" beside each value.
type Facet int

// The facets, in the order they are listed.
const (
	FacetBodyParts Facet = iota + 1
	FacetEquipments
	FacetDifficulty
	FacetExerciseTypes
	FacetTargetMuscles
	FacetMovementPatterns
)

var facetNames = map[Facet]string{
	FacetBodyParts:        "bodyParts",
	FacetEquipments:       "equipments",
	FacetDifficulty:       "difficulty",
	FacetExerciseTypes:    "exerciseTypes",
	FacetTargetMuscles:    "targetMuscles",
	FacetMovementPatterns: "movementPatterns",
}

// String returns the facet's name, as the public API spells it
// ("bodyParts"), for messages.
func (f Facet) String() string { return facetNames[f] }

// FacetCounts are the counts of one facet's values.
type FacetCounts struct {
	Facet Facet
	// Values are those that some record counts for, most records first,
	// ties in name order.
	Values []ValueCount
}

// ValueCount is a value and the number of records it counts.
type ValueCount struct {
	Value string
	Count int
}

// Facets counts, for each facet, the records of each of its values that
// the listing of f would hold if the facet's own field asked for that
// value alone: the query and every other field apply, the facet's own
// field does not, so a value ticked does not hide the others. A count is
// the total that listing would report: at most recordCap, when positive.
// Errors are those List reports for f.
func (c *Catalogue) Facets(f Filter, facets []Facet, recordCap int) ([]FacetCounts, error) {
	var bad ArgumentError
	if f.Query != "" {
		checkQuery(f.Query, &bad)
	}
	if _, _ = c.resolve(&f, &bad); len(bad.Violations) > 0 {
		return nil, bad.orNil()
	}
	matched := c.all
	if f.Query != "" {
		// The words a query uses do not depend on the filter (see
		// search), so its records over the whole catalogue narrow every
		// facet alike.
		var none ArgumentError
		all, key := c.resolve(&Filter{}, &none)
		matched = c.ranking(searchKey(f.Query, key), func() *ranked { return c.search(f.Query, all) }).records
	}
	out := make([]FacetCounts, 0, len(facets))
	for _, facet := range facets {
		others := f
		others.Query = ""
		var values map[string]*roaring.Bitmap
		switch facet {
		case FacetBodyParts:
			others.BodyParts, values = nil, c.postings[byBodyPart]
		case FacetEquipments:
			others.Equipments, values = nil, c.postings[byEquipment]
		case FacetDifficulty:
			others.Difficulties, values = nil, c.postings[byDifficulty]
		case FacetExerciseTypes:
			others.ExerciseTypes, values = nil, c.postings[byExerciseType]
		case FacetTargetMuscles:
			others.TargetMuscles, values = nil, c.postings[byTargetMuscle]
		case FacetMovementPatterns:
			others.MovementPatterns, values = nil, c.postings[byMovementPattern]
		default:
			continue
		}
		set, _ := c.resolve(&others, &bad)
		switch {
		case set == c.all:
			set = matched
		case matched != c.all:
			set = roaring.And(set, matched)
		}
		out = append(out, FacetCounts{Facet: facet, Values: countValues(set, values, recordCap)})
	}
	return out, nil
}

// countValues counts the records of set that each value holds.
func countValues(set *roaring.Bitmap, values map[string]*roaring.Bitmap, recordCap int) []ValueCount {
	var out []ValueCount
	if set.IsEmpty() {
		return out
	}
	for v, b := range values {
		n := int(set.AndCardinality(b))
		if n == 0 {
			continue
		}
		if recordCap > 0 {
			n = min(n, recordCap)
		}
		out = append(out, ValueCount{Value: v, Count: n})
	}
	slices.SortFunc(out, func(a, b ValueCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
	})
	return out
}
