package exercise

import (
	"cmp"
	"maps"
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
		switch facet {
		case FacetBodyParts:
			others.BodyParts = nil
		case FacetEquipments:
			others.Equipments = nil
		case FacetDifficulty:
			others.Difficulties = nil
		case FacetExerciseTypes:
			others.ExerciseTypes = nil
		case FacetTargetMuscles:
			others.TargetMuscles = nil
		case FacetMovementPatterns:
			others.MovementPatterns = nil
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
		out = append(out, FacetCounts{Facet: facet, Values: c.facetValues[facet].count(set, recordCap)})
	}
	return out, nil
}

// facetFields maps each facet to the field whose values it counts.
var facetFields = map[Facet]int{
	FacetBodyParts:        byBodyPart,
	FacetEquipments:       byEquipment,
	FacetDifficulty:       byDifficulty,
	FacetExerciseTypes:    byExerciseType,
	FacetTargetMuscles:    byTargetMuscle,
	FacetMovementPatterns: byMovementPattern,
}

// valueSets count a facet's values in a set of records one of two ways,
// whichever costs less: by intersecting the set with each value's records
// (a cost that grows with the values and the set's containers), or by
// reading each record of the set once, as the id of its set of values (a
// cost that grows with the set's records). A search's records at a
// million are often too sparse for the first and too many for the second
// alone: dozens of values each intersected with arrays of thousands of
// records, or hundreds of thousands of records read one by one.
type valueSets struct {
	// names are the field's values and bitmaps their records, in name
	// order.
	names   []string
	bitmaps []*roaring.Bitmap
	// of holds the id of each record's set of values, and sets the
	// values (indexes of names) of each; nil when the field has too many
	// values or sets of values to number them in 16 bits.
	of   []uint16
	sets [][]uint16
}

// newValueSets numbers the sets of values of the n records that values,
// the records of each value, describe.
func newValueSets(values map[string]*roaring.Bitmap, n int) *valueSets {
	v := &valueSets{names: slices.Sorted(maps.Keys(values))}
	for _, name := range v.names {
		v.bitmaps = append(v.bitmaps, values[name])
	}
	if len(v.names) > 1<<16 {
		return v
	}
	// Each record starts in the empty set, 0, and moves to the set that
	// adds each of its values in turn: next maps a set and a value added
	// to the set they make.
	of, sets := make([]uint16, n), [][]uint16{{}}
	next := map[uint32]uint16{}
	for j, b := range v.bitmaps {
		for it := b.Iterator(); it.HasNext(); {
			pos := it.Next()
			k := uint32(of[pos])<<16 | uint32(j)
			id, ok := next[k]
			if !ok {
				if len(sets) == 1<<16 {
					return v
				}
				id = uint16(len(sets))
				sets = append(sets, append(slices.Clip(sets[of[pos]]), uint16(j)))
				next[k] = id
			}
			of[pos] = id
		}
	}
	v.of, v.sets = of, sets
	return v
}

// Costs, in the same rough unit, of the two ways to count (see
// valueSets): reading a record of the set (its set id, and a count of
// that id), and intersecting a value with a record of an array
// container of the set, with a bitmap container (1,024 words), and with
// a run.
const (
	readCost                                   = 2
	arrayValueCost, bitmapCost, runCost uint64 = 1, 256, 2
)

// count counts the records of set that each value holds, at most
// recordCap when positive, most first.
func (v *valueSets) count(set *roaring.Bitmap, recordCap int) []ValueCount {
	var out []ValueCount
	if set.IsEmpty() {
		return out
	}
	var counts []int
	if v.readCheaper(set) {
		counts = v.read(set)
	} else {
		counts = v.intersect(set)
	}
	for j, n := range counts {
		if n == 0 {
			continue
		}
		if recordCap > 0 {
			n = min(n, recordCap)
		}
		out = append(out, ValueCount{Value: v.names[j], Count: n})
	}
	slices.SortFunc(out, func(a, b ValueCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
	})
	return out
}

// intersect counts the records of set each value holds, by name index,
// by intersecting set with each value's records.
func (v *valueSets) intersect(set *roaring.Bitmap) []int {
	counts := make([]int, len(v.names))
	for j, b := range v.bitmaps {
		counts[j] = int(set.AndCardinality(b))
	}
	return counts
}

// read counts the records of set each value holds, by name index, by
// reading the set of values of each record of set.
func (v *valueSets) read(set *roaring.Bitmap) []int {
	perSet := make([]int32, len(v.sets))
	buf := make([]uint32, 256)
	it := set.ManyIterator()
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, pos := range buf[:n] {
			perSet[v.of[pos]]++
		}
	}
	counts := make([]int, len(v.names))
	for id, n := range perSet {
		for _, j := range v.sets[id] {
			counts[j] += int(n)
		}
	}
	return counts
}

// readCheaper reports whether reading the records of set costs less than
// intersecting it with each value's records.
func (v *valueSets) readCheaper(set *roaring.Bitmap) bool {
	if v.of == nil {
		return false
	}
	st := set.Stats()
	intersect := uint64(len(v.names)) * (arrayValueCost*st.ArrayContainerValues + bitmapCost*st.BitmapContainers + runCost*st.RunContainerBytes/4)
	return readCost*st.Cardinality < intersect
}
