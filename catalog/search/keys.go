package search

import (
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// maxExpansions bounds the spelled-out forms of a query tried as a whole
// name.
const maxExpansions = 32

// exactKeys returns the records whose name or alias equals the query, or
// the query with each unit replaced by one of its alternatives; with
// corrected, also the query with its typos corrected.
func (s *Index) exactKeys(units []unit, corrected bool) *roaring.Bitmap {
	var out []*roaring.Bitmap
	for _, k := range s.queryKeys(units, corrected) {
		if b := s.keys[k]; b != nil {
			out = append(out, b)
		}
	}
	return or(out...)
}

// maxCompletions is the number of names and aliases that may begin with
// a query for it to count as being typed: a query that begins more is
// too short to tell them apart, and ranking by it would cost an OR of
// that many bitmaps for nothing.
const maxCompletions = 32

// completedKeys returns the records with a name or alias that begins with
// the query (or a spelled-out form of it) and is longer: the query is
// being typed. None when more than maxCompletions do, or when the query
// ends in stop words.
func (s *Index) completedKeys(units []unit) *roaring.Bitmap {
	if len(units) == 0 || !units[len(units)-1].last {
		return empty
	}
	var out []*roaring.Bitmap
	for _, k := range s.queryKeys(units, false) {
		i := sort.SearchStrings(s.sortedKeys, k)
		for ; i < len(s.sortedKeys) && strings.HasPrefix(s.sortedKeys[i], k); i++ {
			if s.sortedKeys[i] == k {
				continue
			}
			if len(out) == maxCompletions {
				return empty
			}
			out = append(out, s.keys[s.sortedKeys[i]])
		}
	}
	return or(out...)
}

// queryKeys returns the keys of the query and of the query with each unit
// replaced by one of its alternatives (at most maxExpansions); with
// corrected, also with its typos corrected.
func (s *Index) queryKeys(units []unit, corrected bool) []string {
	keys := []string{""}
	for _, u := range units {
		var parts []string
		for _, alt := range u.alternatives {
			parts = append(parts, nameKey(alt))
		}
		if w := u.alternatives[0]; corrected && (len(u.alternatives) == 1 || u.misspelt || u.completed) && len(w) == 1 && s.name[stem(w[0])] == nil && s.field[stem(w[0])] == nil {
			for _, c := range s.similar(w[0], len(units) > 1) {
				parts = append(parts, s.surface[c])
			}
		}
		var next []string
		for _, k := range keys {
			for _, p := range parts {
				if len(next) < maxExpansions {
					next = append(next, k+p)
				}
			}
		}
		keys = next
	}
	return keys
}
