package search

import (
	"cmp"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// disjoint reports whether no record is in two of the bitmaps.
func disjoint(bs []*roaring.Bitmap) bool {
	var sum uint64
	for _, b := range bs {
		sum += b.GetCardinality()
	}
	return sum == or(bs...).GetCardinality()
}

// and is roaring.FastAnd without the copy of a single bitmap: its result
// is only read.
func and(bs ...*roaring.Bitmap) *roaring.Bitmap {
	if len(bs) == 1 {
		return bs[0]
	}
	return roaring.FastAnd(bs...)
}

// or is roaring.FastOr without the empty bitmaps, and without the copy of
// a single one: its result is only read. The bitmaps within the largest
// are left out too, so that, when all are, the largest is the union: a
// union of a million records costs more to allocate and collect than to
// count what the others add.
func or(bs ...*roaring.Bitmap) *roaring.Bitmap {
	return union(bs, func(b, big *roaring.Bitmap) bool { return contains(big, b) })
}

// union is or, in reporting whether a bitmap is within another.
func union(bs []*roaring.Bitmap, in func(b, big *roaring.Bitmap) bool) *roaring.Bitmap {
	distinct := bs[:0:0]
	var largest *roaring.Bitmap
	var most uint64
	for _, b := range bs {
		if n := b.GetCardinality(); n > 0 && !slices.Contains(distinct, b) {
			distinct = append(distinct, b)
			if n > most {
				largest, most = b, n
			}
		}
	}
	if len(distinct) > 1 {
		rest := distinct[:0]
		for _, b := range distinct {
			if b == largest || !in(b, largest) {
				rest = append(rest, b)
			}
		}
		distinct = rest
	}
	switch len(distinct) {
	case 0:
		return empty
	case 1:
		return distinct[0]
	}
	return roaring.FastOr(distinct...)
}

// contains reports whether b is within big.
func contains(big, b *roaring.Bitmap) bool {
	n := b.GetCardinality()
	return n <= big.GetCardinality() && b.AndCardinality(big) == n
}

// searchSets computes the sets of one search, each once. They share
// bitmaps: for a word matched as typed, own, exact, inName and anywhere
// are one bitmap of the index, so that the records with both words of
// "incline press" in their name and those that match both anywhere are
// one intersection; and the terms a prefix or a typo expands to are
// often pairs of words joined ("pressrow"), whose records have the word
// alone ("press"), so that a union is mostly its largest bitmap.
type searchSets struct {
	done []intersection
	// within remembers whether a bitmap is within another, by the pair.
	within map[[2]*roaring.Bitmap]bool
	// unions counts the bytes of the unions made, which lazy sets keep.
	unions int
}

type intersection struct {
	of []*roaring.Bitmap
	bm *roaring.Bitmap
}

// lazyAnd returns the intersection of ls, computed when read: it reads
// them in turn, and none after an empty one.
func (x *searchSets) lazyAnd(ls ...*lazy) *lazy {
	l := deferred(func() *roaring.Bitmap {
		bs := make([]*roaring.Bitmap, 0, len(ls))
		for _, l := range ls {
			b := l.get()
			if b.IsEmpty() {
				return empty
			}
			if !slices.Contains(bs, b) {
				bs = append(bs, b)
			}
		}
		return x.and(bs)
	})
	l.factors = ls
	return l
}

// and returns the intersection of the distinct bitmaps bs, the one
// computed before if any.
func (x *searchSets) and(bs []*roaring.Bitmap) *roaring.Bitmap {
	if len(bs) == 1 {
		return bs[0]
	}
	for _, d := range x.done {
		if len(d.of) == len(bs) && !slices.ContainsFunc(bs, func(b *roaring.Bitmap) bool { return !slices.Contains(d.of, b) }) {
			return d.bm
		}
	}
	// Smallest first: each step is bounded by the smaller operand.
	slices.SortFunc(bs, func(a, b *roaring.Bitmap) int { return cmp.Compare(a.GetCardinality(), b.GetCardinality()) })
	bm := roaring.FastAnd(bs...)
	x.done = append(x.done, intersection{of: bs, bm: bm})
	return bm
}

// lazyOr returns the union of ls, computed when read. An intersection
// of which one set is another of ls adds nothing to it (A ∪ (A ∩ B) is
// A), and is not computed: "bench" or the "bench press" of the synonym
// table is "bench".
func (x *searchSets) lazyOr(ls ...*lazy) *lazy {
	return deferred(func() *roaring.Bitmap {
		var bs []*roaring.Bitmap
		for _, l := range ls {
			if l.factors == nil {
				bs = append(bs, l.get())
			}
		}
		absorbed := func(f *lazy) bool { return f.factors == nil && slices.Contains(bs, f.get()) }
		for _, l := range ls {
			if l.factors != nil && !slices.ContainsFunc(l.factors, absorbed) {
				bs = append(bs, l.get())
			}
		}
		return x.or(bs...)
	})
}

// or is the global or, remembering which bitmaps are within others.
func (x *searchSets) or(bs ...*roaring.Bitmap) *roaring.Bitmap {
	u := union(bs, func(b, big *roaring.Bitmap) bool {
		k := [2]*roaring.Bitmap{b, big}
		in, ok := x.within[k]
		if !ok {
			in = contains(big, b)
			if x.within == nil {
				x.within = map[[2]*roaring.Bitmap]bool{}
			}
			x.within[k] = in
		}
		return in
	})
	if len(bs) > 1 && !slices.Contains(bs, u) {
		x.unions += int(u.GetSizeInBytes())
	}
	return u
}

// inAll returns the records of b within all: b itself when all holds
// it, as it mostly does (the tiers are made of sets within the records
// that match anywhere), or all when b holds it, rather than a copy.
func (x *searchSets) inAll(b, all *lazy) *lazy {
	return deferred(func() *roaring.Bitmap {
		bm, whole := b.get(), all.get()
		switch n := bm.AndCardinality(whole); n {
		case bm.GetCardinality():
			return bm
		case whole.GetCardinality():
			return whole
		}
		return x.and([]*roaring.Bitmap{bm, whole})
	})
}

// knownAll returns bs as lazy sets already computed.
func knownAll(bs []*roaring.Bitmap) []*lazy {
	out := make([]*lazy, len(bs))
	for i, b := range bs {
		out[i] = known(b)
	}
	return out
}

var empty = roaring.New()

func orEmpty(b *roaring.Bitmap) *roaring.Bitmap {
	if b == nil {
		return empty
	}
	return b
}

// lazy is a set of records computed when first read. A search builds a
// few dozen sets of up to a million records, from which its tiers are
// made; the first page reads a few of them, and a set no page reads is
// never computed. Its bitmap, once computed, is only read. The mutex of
// the ranked list it serves guards it.
type lazy struct {
	bm *roaring.Bitmap
	f  func() *roaring.Bitmap
	// factors are the sets a lazy intersection is made of.
	factors []*lazy
}

// known returns b as a lazy set already computed.
func known(b *roaring.Bitmap) *lazy { return &lazy{bm: b} }

// deferred returns the set f computes, when first read.
func deferred(f func() *roaring.Bitmap) *lazy { return &lazy{f: f} }

func (l *lazy) get() *roaring.Bitmap {
	if l.f != nil {
		l.bm, l.f = l.f(), nil
	}
	return l.bm
}
