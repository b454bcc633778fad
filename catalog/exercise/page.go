package exercise

import (
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/exercisedb/exercisedb/catalog/search"
)

// Page sizes.
const (
	DefaultLimit = 10
	MaxLimit     = 100
)

// PageRequest says which page of a filtered listing to return.
type PageRequest struct {
	// Limit is the page size, 1 to MaxLimit; 0 means DefaultLimit.
	Limit int
	// After asks for the first Limit matching records with an id greater
	// than After; Before for the last Limit with an id less than Before.
	// At most one may be set. The cursor must name an exercise, which need
	// not match the filter.
	After, Before string
	// RecordCap, when positive, makes only the first RecordCap matching
	// records reachable.
	RecordCap int
}

// Page is one page of a listing, in ascending id order.
type Page struct {
	// Exercises are the catalogue's own records, shared rather than copied
	// (a record is some 300 bytes): read them, never change them.
	Exercises []*Exercise
	// Total is the number of matching records, at most the record cap.
	Total int
	// HasNextPage and HasPreviousPage report whether matching, reachable
	// records lie after the page's last record and before its first (for
	// an empty page: after and before the cursor's position).
	HasNextPage, HasPreviousPage bool
	// NextCursor is the id of the last record when HasNextPage, and
	// PreviousCursor the id of the first record when HasPreviousPage;
	// otherwise they are empty.
	NextCursor, PreviousCursor string
	// IgnoredWords, for a search, lists the words of the query set aside
	// because no record matched them together with the others: empty if
	// every word was used; nil without a query.
	IgnoredWords []string
	// MovementPatterns, for alternatives, are the patterns the list's
	// records are of, nearest first: the exercise's own, or, when nothing
	// of its own pattern fits the filter, the neighbouring patterns that
	// have something that does (then Fallback is true). Empty for an
	// empty list; nil for other lists.
	MovementPatterns []string
	Fallback         bool
	// positions are those of Exercises in the catalogue that made the
	// page, for PageJSON.
	positions []uint32
}

// newPage returns a page of total records with room for n of them.
func newPage(total, n int) Page {
	return Page{Total: total, Exercises: make([]*Exercise, 0, n), positions: make([]uint32, 0, n)}
}

// add appends the record at position pos of c.
func (p *Page) add(c *Catalogue, pos uint32) {
	p.Exercises = append(p.Exercises, &c.exercises[pos])
	p.positions = append(p.positions, pos)
}

const malformedID = "is not a well-formed exercise id (1 to 32 characters of A-Z, a-z, 0-9, _ and -)"

// List returns one page of the exercises that f selects, in id order, or,
// with f.Query, ranked best first as a search ranks them. Errors are an
// *ArgumentError listing every invalid field, or a *CapError.
func (c *Catalogue) List(f Filter, p PageRequest) (Page, error) {
	var bad ArgumentError
	limit, cur := c.pageArgs(p, &bad)
	if f.Query != "" {
		checkQuery(f.Query, &bad)
	}
	set, key := c.resolve(&f, &bad)
	if err := bad.orNil(); err != nil {
		return Page{}, err
	}
	if f.Query != "" {
		r := c.ranking(searchKey(f.Query, key), func() *ranked { return c.search(f.Query, set) })
		return c.rankedPage(r, limit, cur, p.RecordCap)
	}

	// Reachable records are the matching ones at positions below end.
	total := int(set.GetCardinality())
	end := uint32(len(c.exercises))
	if p.RecordCap > 0 && total > p.RecordCap {
		last, err := set.Select(uint32(p.RecordCap - 1))
		if err != nil {
			return Page{}, err
		}
		total, end = p.RecordCap, last+1
		// before may name the record just past the cap: every record
		// before it is reachable, and it is the previousCursor of the
		// empty page after the last reachable record.
		if cur.set && (cur.pos > end || cur.pos == end && !cur.backward) {
			return Page{}, &CapError{Field: cur.field, Value: cur.id, RecordCap: p.RecordCap}
		}
	}
	w := walk{c: c, set: set, total: total, end: end, limit: limit}
	if cur.backward {
		return w.backward(cur.pos)
	}
	return w.forward(cur)
}

// searchKey is the key of the ranked list of a search for q in the
// records of the filter whose key is filter.
func searchKey(q, filter string) string {
	return "search|" + strings.Join(search.Words(q), " ") + "|" + filter
}

// pageArgs checks the parts of a page request that every listing shares and
// resolves its cursor to a position, reporting problems into bad.
func (c *Catalogue) pageArgs(p PageRequest, bad *ArgumentError) (limit int, cur cursor) {
	limit = p.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		bad.add(FieldLimit, strconv.Itoa(p.Limit), "must be between 1 and %d", MaxLimit)
	}
	if p.RecordCap < 0 {
		bad.add(FieldRecordCap, strconv.Itoa(p.RecordCap), "must not be negative")
	}
	cur = cursor{field: FieldAfter, id: p.After}
	if p.Before != "" {
		cur = cursor{field: FieldBefore, id: p.Before, backward: true}
	}
	if p.After != "" && p.Before != "" {
		bad.add(FieldBefore, p.Before, "cannot be combined with after: send one cursor")
	} else if cur.id != "" {
		cur.pos, cur.set = c.resolveCursor(cur, bad)
	}
	return limit, cur
}

// cursor is the request's cursor, resolved to a position.
type cursor struct {
	field    string
	id       string
	backward bool
	set      bool
	pos      uint32
}

func (c *Catalogue) resolveCursor(cur cursor, bad *ArgumentError) (uint32, bool) {
	if !ValidID(cur.id) {
		bad.add(cur.field, cur.id, malformedID)
		return 0, false
	}
	pos, ok := c.position(cur.id)
	if !ok {
		bad.add(cur.field, cur.id, "names no exercise")
	}
	return pos, ok
}

// walk reads a page out of the positions in set below end.
type walk struct {
	c     *Catalogue
	set   *roaring.Bitmap
	total int    // reachable matching records
	end   uint32 // exclusive bound of reachable positions
	limit int
}

// forward returns the first records after the cursor (or from the start).
func (w walk) forward(cur cursor) (Page, error) {
	it := w.set.Iterator()
	if cur.set {
		it.AdvanceIfNeeded(cur.pos + 1) // positions are below 2^31: no overflow
	}
	p := newPage(w.total, min(w.limit, w.total))
	var first, last uint32
	for len(p.Exercises) < w.limit && it.HasNext() && it.PeekNext() < w.end {
		last = it.Next()
		if len(p.Exercises) == 0 {
			first = last
		}
		p.add(w.c, last)
	}
	p.HasNextPage = it.HasNext() && it.PeekNext() < w.end
	switch {
	case len(p.Exercises) > 0:
		p.HasPreviousPage = w.set.Minimum() < first
	case cur.set:
		p.HasPreviousPage = w.total > 0 && w.set.Minimum() <= cur.pos
	}
	w.cursors(&p, first, last)
	if len(p.Exercises) == 0 && p.HasPreviousPage && w.end < uint32(len(w.c.exercises)) {
		// The empty page after the last record a cap reaches: the record
		// past the cap pages back to it.
		p.PreviousCursor = w.c.exercises[w.end].ID
	}
	return p, nil
}

// backward returns the last records before the position pos, in ascending
// order. pos lies below end (List checked the cap).
func (w walk) backward(pos uint32) (Page, error) {
	before := 0 // matching records at positions below pos
	if pos > 0 {
		before = int(w.set.Rank(pos - 1))
	}
	skip := max(0, before-w.limit)
	p := newPage(w.total, before-skip)
	p.HasPreviousPage = skip > 0
	p.HasNextPage = w.total > before
	if before == 0 {
		return p, nil
	}
	first, err := w.set.Select(uint32(skip))
	if err != nil {
		return Page{}, err
	}
	it := w.set.Iterator()
	it.AdvanceIfNeeded(first)
	var last uint32
	for range before - skip {
		last = it.Next()
		p.add(w.c, last)
	}
	w.cursors(&p, first, last)
	return p, nil
}

func (w walk) cursors(p *Page, first, last uint32) {
	if len(p.Exercises) == 0 {
		return
	}
	if p.HasNextPage {
		p.NextCursor = w.c.exercises[last].ID
	}
	if p.HasPreviousPage {
		p.PreviousCursor = w.c.exercises[first].ID
	}
}
