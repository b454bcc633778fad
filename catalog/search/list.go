package search

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// List is a ranked list, ordered best first: the concatenation of disjoint
// tiers, the best tier first, each in position order. Ties are thus broken
// by ascending position (a catalogue's positions are in id order), and for
// one index the order is fixed, so a cursor is a record of the list and
// pages follow each other as in an id-ordered one. A List is safe for
// concurrent use: it is shared by the requests that read it once cached.
//
// A search's tiers are deferred (see newDeferredList): its total is
// known from the start, but a tier is made disjoint from the better ones,
// and each part of it counted, only when a page reaches it. A search has
// dozens of tiers over sets of up to a million records, and its first
// page reads one or two.
type List struct {
	// mu guards the fields below while pending tiers are materialised,
	// and the lazy sets they read.
	mu    sync.Mutex
	tiers []*tier
	sizes []int
	// counted is the sum of sizes.
	counted int
	total   int
	// pending are the tiers not reached yet, best first. split is the
	// one being split, its records less those of the better tiers: masks
	// are its masks not counted yet, left the records of it that the
	// parts so far leave out.
	pending []pendingTier
	split   pendingSplit
	// taken holds the records of the tiers reached before the last one,
	// which the next one leaves out with last. The first page of a search
	// often reads one tier: taken is only made for a second, and only
	// owned (a bitmap of its own, grown in place) from a third.
	taken    *roaring.Bitmap
	ownTaken bool
	last     *roaring.Bitmap
	// members, the records of the list, answers for a record no page
	// reached whether a cursor names a record of the list.
	members *roaring.Bitmap
	// sets are a search's computed sets, which its pending tiers read.
	sets *searchSets
}

// pendingTier is a tier of a search not reached yet: records may hold
// records of better tiers, left out when it is reached, and masks split
// it. With disjoint, no record is in two of the masks.
type pendingTier struct {
	records  *lazy
	masks    []*roaring.Bitmap
	disjoint bool
}

// pendingSplit is a tier being split by its masks, a part at a time.
type pendingSplit struct {
	a        *roaring.Bitmap
	masks    []*roaring.Bitmap
	disjoint bool
	left     int
}

// tier is the intersection of two bitmaps, computed when a page needs
// its records beyond the first few (see scan): a search has dozens of
// tiers, and a page reads one or two of them, while the sizes come from
// counting alone.
type tier struct {
	a, b *roaring.Bitmap // b nil: the tier is a
	// whole reports that a is within b: the tier is a, which may be
	// shared (an index's bitmap) and is left as it is.
	whole bool
	// size is the number of records of the tier.
	size int
	once sync.Once
	bm   *roaring.Bitmap
}

func (t *tier) get() *roaring.Bitmap {
	t.once.Do(func() {
		switch {
		case t.whole:
			t.bm = t.a
			return
		case t.b == nil:
			t.bm = t.a
		default:
			t.bm = roaring.And(t.a, t.b)
		}
		t.bm.RunOptimize()
	})
	return t.bm
}

// maxScan bounds the records of a that a page reads one by one, keeping
// those in b, rather than computing the intersection: the first pages of
// a tier that is most of a cost a few dozen lookups, not an intersection
// of a million records. A page that would read more (deep, or of a
// tier that is a small part of a) computes it once for the next ones.
const maxScan = 256

// scan returns an estimate of the records of a to read to reach the
// first n of the tier, or -1 when the tier is a itself.
func (t *tier) scan(n int) int {
	if t.whole || t.b == nil {
		return -1
	}
	return int(uint64(n) * t.a.GetCardinality() / uint64(t.size))
}

func (t *tier) contains(pos uint32) bool {
	return t.a.Contains(pos) && (t.b == nil || t.whole || t.b.Contains(pos))
}

// rank returns the number of records of the tier up to pos, which it
// holds.
func (t *tier) rank(pos uint32) int {
	if t.whole || t.b == nil || t.a.Rank(pos) > maxScan {
		return int(t.get().Rank(pos))
	}
	n := 0
	it := t.a.Iterator()
	for it.HasNext() {
		v := it.Next()
		if t.b.Contains(v) {
			n++
		}
		if v == pos {
			break
		}
	}
	return n
}

// read appends the records of the tier ranked from to to-1 within it.
func (t *tier) read(out []uint32, from, to int) []uint32 {
	var it roaring.IntPeekable
	scan := t.scan(to)
	filter := scan >= 0 && scan <= maxScan
	if filter {
		it = t.a.Iterator()
		for skipped := 0; skipped < from && it.HasNext(); {
			if t.b.Contains(it.Next()) {
				skipped++
			}
		}
	} else {
		bm := t.get()
		first, err := bm.Select(uint32(from))
		if err != nil { // from < size: cannot happen
			return out
		}
		it = bm.Iterator()
		it.AdvanceIfNeeded(first)
	}
	for from < to && it.HasNext() {
		v := it.Next()
		if filter && !t.b.Contains(v) {
			continue
		}
		out = append(out, v)
		from++
	}
	return out
}

// NewList ranks the tiers in turn, dropping the empty ones.
func NewList(tiers ...*roaring.Bitmap) *List {
	r := &List{}
	for _, t := range tiers {
		r.add(&tier{a: t, size: int(t.GetCardinality())})
	}
	r.total = r.counted
	return r
}

// NewSplitList ranks the tiers, each split by the masks in turn: the
// tier a ∩ mask[0] first, then a ∩ mask[1], and so on.
func NewSplitList(tiers, masks []*roaring.Bitmap) *List {
	r := &List{}
	for _, a := range tiers {
		for _, m := range masks {
			r.add(&tier{a: a, b: m, size: int(a.AndCardinality(m))})
		}
	}
	r.total = r.counted
	return r
}

// newDeferredList returns the list of the pending tiers, each less the
// records of the better ones and split by its masks, materialised only
// as pages reach them. members holds the records of the list, which must
// be the union of the tiers, and total the length of the list: the
// caller knows it from the masks (each record of a tier in exactly one
// of its masks, the list is members) or passes a negative total, and the
// tiers are then all materialised and counted at once.
func newDeferredList(members *roaring.Bitmap, total int, pending []pendingTier) *List {
	r := &List{pending: pending, members: members, total: total}
	if total < 0 {
		for r.next() {
		}
		r.total = r.counted
	}
	return r
}

// add appends the tier t unless it is empty.
func (r *List) add(t *tier) {
	if t.size == 0 {
		return
	}
	r.tiers = append(r.tiers, t)
	r.sizes = append(r.sizes, t.size)
	r.counted += t.size
}

// next adds the next part of a pending tier that holds records, and
// reports whether there was one. r.mu is held.
func (r *List) next() bool {
	for {
		sp := &r.split
		for len(sp.masks) > 0 && sp.left > 0 {
			m := sp.masks[0]
			sp.masks = sp.masks[1:]
			t := &tier{a: sp.a, b: m, size: int(sp.a.AndCardinality(m))}
			if t.size == 0 {
				continue
			}
			sp.left -= t.size
			// Within m: the part is a, not a copy.
			t.whole = t.size == int(sp.a.GetCardinality())
			r.add(t)
			if !sp.disjoint {
				// A record of two masks is in the part of the first only.
				sp.a = roaring.AndNot(sp.a, m)
			}
			return true
		}
		if len(r.pending) == 0 {
			r.pending, r.split, r.taken, r.last, r.members = nil, pendingSplit{}, nil, nil, nil
			return false
		}
		p := r.pending[0]
		r.pending[0] = pendingTier{} // read once: let the collector have it
		r.pending = r.pending[1:]
		a := p.records.get()
		if a.IsEmpty() {
			continue
		}
		if r.last != nil {
			switch {
			case r.taken == nil:
				r.taken = r.last // read, never changed
			case !r.ownTaken:
				r.taken, r.ownTaken = roaring.Or(r.taken, r.last), true
			default:
				r.taken.Or(r.last)
			}
			r.last = nil
		}
		if r.taken != nil {
			a = roaring.AndNot(a, r.taken)
		}
		if a.IsEmpty() {
			continue
		}
		r.last = a
		r.split = pendingSplit{a: a, masks: p.masks, disjoint: p.disjoint, left: int(a.GetCardinality())}
	}
}

// Index returns the rank (0-based) of the record at pos, or -1 if the
// list does not hold it.
func (r *List) Index(pos uint32) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.members != nil && !r.members.Contains(pos) {
		return -1
	}
	base := 0
	for i := 0; ; i++ {
		if i == len(r.tiers) && !r.next() {
			return -1
		}
		if t := r.tiers[i]; t.contains(pos) {
			return base + t.rank(pos) - 1
		}
		base += r.sizes[i]
	}
}

// Positions returns the positions of the records ranked from to to-1.
func (r *List) Positions(from, to int) []uint32 {
	r.mu.Lock()
	for r.counted < to && r.next() {
	}
	tiers, sizes := r.tiers, r.sizes
	r.mu.Unlock()
	out := make([]uint32, 0, max(0, to-from))
	base := 0
	for i, t := range tiers {
		n := sizes[i]
		if from < to && from < base+n {
			end := min(to, base+n)
			out = t.read(out, from-base, end-base)
			from = end
		}
		base += n
		if from >= to {
			break
		}
	}
	return out
}

// Total returns the number of records of the list.
func (r *List) Total() int { return r.total }

// Bytes estimates the memory r holds: the bitmaps it made (an index's own
// bitmaps, which tiers share, not counted) and a little per tier. It grows
// as pages reach the tiers of a search.
func (r *List) Bytes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 512
	size := func(b *roaring.Bitmap) int {
		if b == nil {
			return 0
		}
		return int(b.GetSizeInBytes())
	}
	n += size(r.members) + size(r.last)
	if r.ownTaken {
		n += size(r.taken)
	}
	n += 96*len(r.tiers) + 256*len(r.pending)
	if r.sets != nil {
		// A search's words, their matches and the closures of its lazy
		// sets: about 4 KiB, measured over long typo queries.
		n += 4 << 10
		for _, d := range r.sets.done {
			n += 48 + 8*len(d.of) + size(d.bm)
		}
		n += 24*len(r.sets.within) + r.sets.unions
	}
	return n
}
