package exercise

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// ranked is a list ordered best first: the concatenation of disjoint tiers,
// the best tier first, each in id (position) order. Ties are thus broken by
// ascending id, and for one catalogue the order is fixed, so a cursor is a
// record of the list and pages follow each other as in an id-ordered one.
// A ranked list is shared by concurrent requests once cached.
type ranked struct {
	tiers []*tier
	sizes []int
	total int
}

// tier is the intersection of two bitmaps, computed when a page first
// needs its records: a search has dozens of tiers, and a page reads one or
// two of them, while the sizes come from counting alone.
type tier struct {
	a, b *roaring.Bitmap // b nil: the tier is a
	once sync.Once
	bm   *roaring.Bitmap
}

func (t *tier) get() *roaring.Bitmap {
	t.once.Do(func() {
		if t.b == nil {
			t.bm = t.a
		} else {
			t.bm = roaring.And(t.a, t.b)
		}
		t.bm.RunOptimize()
	})
	return t.bm
}

func (t *tier) contains(pos uint32) bool {
	return t.a.Contains(pos) && (t.b == nil || t.b.Contains(pos))
}

// newRanked drops empty tiers and counts the rest.
func newRanked(tiers ...*roaring.Bitmap) *ranked {
	r := &ranked{}
	for _, t := range tiers {
		r.add(t, nil, int(t.GetCardinality()))
	}
	return r
}

// newSplitRanked ranks the tiers, each split by the masks in turn: the
// tier a ∩ mask[0] first, then a ∩ mask[1], and so on.
func newSplitRanked(tiers, masks []*roaring.Bitmap) *ranked {
	r := &ranked{}
	for _, a := range tiers {
		r.split(a, masks)
	}
	return r
}

// split adds the tier a, split by the masks in turn.
func (r *ranked) split(a *roaring.Bitmap, masks []*roaring.Bitmap) {
	if a.IsEmpty() {
		return
	}
	for _, m := range masks {
		r.add(a, m, int(a.AndCardinality(m)))
	}
}

func (r *ranked) add(a, b *roaring.Bitmap, n int) {
	if n == 0 {
		return
	}
	r.tiers = append(r.tiers, &tier{a: a, b: b})
	r.sizes = append(r.sizes, n)
	r.total += n
}

// index returns the rank (0-based) of the record at pos, or -1 if the list
// does not hold it.
func (r *ranked) index(pos uint32) int {
	base := 0
	for i, t := range r.tiers {
		if t.contains(pos) {
			return base + int(t.get().Rank(pos)) - 1
		}
		base += r.sizes[i]
	}
	return -1
}

// positions returns the positions of the records ranked from to to-1.
func (r *ranked) positions(from, to int) []uint32 {
	out := make([]uint32, 0, max(0, to-from))
	base := 0
	for i, t := range r.tiers {
		n := r.sizes[i]
		if from < to && from < base+n {
			t := t.get()
			first, err := t.Select(uint32(from - base))
			if err != nil { // from-base < n: cannot happen
				break
			}
			it := t.Iterator()
			it.AdvanceIfNeeded(first)
			for from < to && it.HasNext() {
				out = append(out, it.Next())
				from++
			}
		}
		base += n
		if from >= to {
			break
		}
	}
	return out
}

// ranking returns the cached ranking under key, computing and caching it
// if there is none.
func (c *Catalogue) ranking(key string, compute func() *ranked) *ranked {
	r, ok := c.rankings.Get(key)
	if !ok {
		r = compute()
		c.rankings.Add(key, r)
	}
	return r
}

// page reads one page of r as List would read one of an id-ordered list:
// the record cap keeps the first RecordCap ranks reachable, and the cursor
// must be a record of the list.
func (c *Catalogue) rankedPage(r *ranked, limit int, cur cursor, recordCap int) (Page, error) {
	reach := r.total
	if recordCap > 0 && reach > recordCap {
		reach = recordCap
	}
	start, end := 0, min(reach, limit)
	if cur.set {
		g := r.index(cur.pos)
		switch {
		case g < 0:
			return Page{}, &ArgumentError{Violations: []FieldError{{
				Field: cur.field, Value: cur.id, Description: "is not a record of this list (a cursor must be the id of a record on one of its pages)",
			}}}
		case g >= reach:
			return Page{}, &CapError{Field: cur.field, Value: cur.id, RecordCap: recordCap}
		case cur.backward:
			start, end = max(0, g-limit), g
		default:
			start, end = g+1, min(reach, g+1+limit)
		}
	}
	p := newPage(reach, end-start)
	p.HasPreviousPage, p.HasNextPage = start > 0, end < reach
	for _, pos := range r.positions(start, end) {
		p.add(c, pos)
	}
	if n := len(p.Exercises); n > 0 {
		if p.HasNextPage {
			p.NextCursor = p.Exercises[n-1].ID
		}
		if p.HasPreviousPage {
			p.PreviousCursor = p.Exercises[0].ID
		}
	}
	return p, nil
}
