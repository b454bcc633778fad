package search

import (
	"cmp"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// candidate is a unit of a query that matches records: the unit's index
// and its records within the listing's filter.
type candidate struct {
	i    int
	b    *roaring.Bitmap
	size uint64
	kind wordKind
}

// wordKind says what a unit of a query names, in the order setAside
// keeps them.
type wordKind int

const (
	movementWord wordKind = iota // ends a name: "press", "pull-up"
	valueWord                    // an equipment, muscle, body part, type or difficulty
	modifierWord                 // says how: "alternating", "strict"
)

func (s *Index) kindOf(u unit, m matches) wordKind {
	for _, alt := range u.alternatives {
		for _, h := range heads(alt) {
			if s.head[h] != nil {
				return movementWord
			}
		}
	}
	if !m.field.get().IsEmpty() {
		return valueWord
	}
	return modifierWord
}

// bestSubset returns the largest subset of cs, most specific first, of
// which matchesAll holds; among subsets of one size, those that keep the
// first of cs first (lexicographic order of positions), so that the least
// specific are set aside first. Every single unit matches.
func bestSubset(cs []candidate, matchesAll func([]candidate) bool) []candidate {
	for k := len(cs) - 1; k > 1; k-- {
		pick := make([]int, k)
		for i := range pick {
			pick[i] = i
		}
		subset := make([]candidate, k)
		for {
			for i, p := range pick {
				subset[i] = cs[p]
			}
			if matchesAll(subset) {
				return subset
			}
			// The next combination in lexicographic order.
			i := k - 1
			for i >= 0 && pick[i] == len(cs)-k+i {
				i--
			}
			if i < 0 {
				break
			}
			pick[i]++
			for j := i + 1; j < k; j++ {
				pick[j] = pick[j-1] + 1
			}
		}
	}
	return cs[:1]
}

// MaxQueryWords is the most words (or phrases) of a query a search reads;
// the rest are set aside. Each costs a few sets of records, and a typo up
// to maxCorrections more.
const MaxQueryWords = 10

// maxSetAsideSearch is the most units whose subsets setAside tries in
// turn; beyond, it sets aside the least specific one at a time.
const maxSetAsideSearch = 6

// setAside chooses the units to keep of a query that no record matches
// all of: it sets aside first the units that match nothing, then as few
// of the others as leaves some record matching: words that say how
// ("strict", "alternating", "paused"), the rarest first, before those
// that name equipment, muscles and the like, and these before the words
// that end names (the movement: "press", "pull-up"), of these the least
// specific (matching the most records) first. It keeps the most units
// that some record matches together (of up to maxSetAsideSearch units;
// beyond, it sets aside one at a time), so no record of the answer could
// have used more of the query. keep is empty only when no unit matches
// anything.
func (s *Index) setAside(units []unit, ms []matches) (keep []int) {
	var cs []candidate
	for i, m := range ms {
		if b := m.anywhere.get(); !b.IsEmpty() {
			cs = append(cs, candidate{i: i, b: b, size: b.GetCardinality(), kind: s.kindOf(units[i], m)})
		}
	}
	if len(cs) == 0 {
		return nil
	}
	// Those to keep most first: a subset that keeps the first ones sets
	// aside the others. Of the words that say how, the common ones name a
	// variant ("goblet", "incline") and the rare ones a way of doing it
	// ("tempo", "paused"): the rare ones go first.
	slices.SortStableFunc(cs, func(a, b candidate) int {
		if a.kind == modifierWord && b.kind == modifierWord {
			return cmp.Compare(b.size, a.size)
		}
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.size, b.size))
	})
	matchesAll := func(subset []candidate) bool {
		acc := subset[0].b
		for _, c := range subset[1:] {
			if !acc.Intersects(c.b) {
				return false
			}
			acc = roaring.And(acc, c.b)
		}
		return !acc.IsEmpty()
	}
	chosen := cs
	switch {
	case matchesAll(cs):
	case len(cs) <= maxSetAsideSearch:
		chosen = bestSubset(cs, matchesAll)
	default:
		for len(chosen) > 1 && !matchesAll(chosen) {
			chosen = chosen[:len(chosen)-1]
		}
	}
	for _, c := range chosen {
		keep = append(keep, c.i)
	}
	slices.Sort(keep)
	return keep
}
