package exercise

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/exercisedb/exercisedb/catalog/search"
)

// ranked is a ranked list of the catalogue (a relation, or a search's
// results; see search.List) with what its pages report, kept in the
// catalogue's rankings.
type ranked struct {
	*search.List
	// records holds the records of a search's list, for the facets that
	// count them.
	records *roaring.Bitmap
	// ignored lists the words of a search's query that it set aside
	// (empty if none; nil for a list that is no search).
	ignored []string
	// patterns and fallback are an alternatives list's movement patterns
	// and whether they are neighbours of the exercise's own (see Page).
	patterns []string
	fallback bool

	// mu guards accounted.
	mu sync.Mutex
	// key is the list's key in the catalogue's rankings, and accounted
	// the size it was kept at there (see account).
	key       string
	accounted int
}

// ranking returns the cached ranking under key, computing and caching it
// if there is none.
func (c *Catalogue) ranking(key string, compute func() *ranked) *ranked {
	r, ok := c.rankings.Get(key)
	if !ok {
		r = compute()
		r.key = key
		c.account(r)
	}
	return r
}

// account keeps r in the rankings at its size now: a list grows as pages
// reach its tiers, so a page that grew it keeps it again at its new size
// (which may evict it, or others).
func (c *Catalogue) account(r *ranked) {
	r.mu.Lock()
	n := r.bytes()
	grew := n != r.accounted
	r.accounted = n
	r.mu.Unlock()
	if grew {
		c.rankings.Add(r.key, r, n)
	}
}

// page reads one page of r as List would read one of an id-ordered list:
// the record cap keeps the first RecordCap ranks reachable, and the cursor
// must be a record of the list.
func (c *Catalogue) rankedPage(r *ranked, limit int, cur cursor, recordCap int) (Page, error) {
	reach := r.Total()
	if recordCap > 0 && reach > recordCap {
		reach = recordCap
	}
	start, end := 0, min(reach, limit)
	if cur.set {
		g := r.Index(cur.pos)
		switch {
		case g < 0:
			return Page{}, &ArgumentError{Violations: []FieldError{{
				Field: cur.field, Value: cur.id, Description: "is not a record of this list (a cursor must be the id of a record on one of its pages)",
			}}}
		case g > reach || g == reach && !cur.backward:
			// before may name the first rank past the cap, as List allows.
			return Page{}, &CapError{Field: cur.field, Value: cur.id, RecordCap: recordCap}
		case cur.backward:
			start, end = max(0, g-limit), g
		default:
			start, end = g+1, min(reach, g+1+limit)
		}
	}
	p := newPage(reach, end-start)
	p.IgnoredWords = r.ignored
	p.HasPreviousPage, p.HasNextPage = start > 0, end < reach
	for _, pos := range r.Positions(start, end) {
		p.add(c, pos)
	}
	if n := len(p.Exercises); n > 0 {
		if p.HasNextPage {
			p.NextCursor = p.Exercises[n-1].ID
		}
		if p.HasPreviousPage {
			p.PreviousCursor = p.Exercises[0].ID
		}
	} else if p.HasPreviousPage && start == reach && reach < r.Total() {
		// The empty page after the last rank a cap reaches: the rank past
		// the cap pages back to it.
		p.PreviousCursor = c.exercises[r.Positions(reach, reach+1)[0]].ID
	}
	if r.key != "" {
		c.account(r)
	}
	return p, nil
}

// bytes estimates the memory r holds (see search.List.Bytes).
func (r *ranked) bytes() int {
	n := r.List.Bytes() + len(r.key) + 16*len(r.ignored)
	if r.records != nil {
		n += int(r.records.GetSizeInBytes())
	}
	return n
}
