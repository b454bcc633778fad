package search

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestDeferredList: a list whose tiers are materialised as pages reach
// them reads as the list of the same tiers made disjoint and split at
// once, by pages from any rank and by the rank of each record, whether
// a page scans a tier or intersects it (see maxScan).
func TestDeferredList(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 40 {
		universe := 1 + rng.IntN(20_000)
		random := func(density float64) *roaring.Bitmap {
			b := roaring.New()
			for i := range universe {
				if rng.Float64() < density {
					b.Add(uint32(i))
				}
			}
			return b
		}
		// Masks: a partition of the universe, or, every other round,
		// masks that share records.
		nMasks := 1 + rng.IntN(4)
		masks := make([]*roaring.Bitmap, nMasks)
		for i := range masks {
			masks[i] = roaring.New()
		}
		for i := range universe {
			masks[rng.IntN(nMasks)].Add(uint32(i))
		}
		overlapping := round%2 == 1
		if overlapping {
			masks = append(masks, random(0.3))
		}
		var raw []*roaring.Bitmap
		for range 1 + rng.IntN(6) {
			raw = append(raw, random([]float64{0.001, 0.05, 0.5, 0.95}[rng.IntN(4)]))
		}
		members := roaring.FastOr(raw...)
		raw = append(raw, members) // the last tier holds every record, as a search's does

		// The list made at once: each tier less the better ones, split.
		var want []uint32
		taken := roaring.New()
		for _, b := range raw {
			d := roaring.AndNot(b, taken)
			taken.Or(d)
			for _, m := range masks { // a record of two masks in the first's part only
				want = append(want, roaring.And(d, m).ToArray()...)
				d = roaring.AndNot(d, m)
			}
		}

		pending := make([]pendingTier, len(raw))
		for i, b := range raw {
			pending[i] = pendingTier{records: known(b), masks: masks, disjoint: !overlapping}
		}
		total := int(members.GetCardinality())
		if overlapping {
			total = -1
		}
		again := slices.Clone(pending) // a list reads its pending tiers once
		r := newDeferredList(members, total, pending)
		if r.Total() != len(want) {
			t.Fatalf("round %d: total %d, want %d", round, r.Total(), len(want))
		}
		// Pages from random ranks on a fresh list, then ranks.
		for range 20 {
			from := rng.IntN(len(want) + 1)
			to := min(len(want), from+1+rng.IntN(200))
			if got := r.Positions(from, to); !slices.Equal(got, want[from:to]) {
				t.Fatalf("round %d: positions(%d, %d) = %v, want %v", round, from, to, got, want[from:to])
			}
		}
		fresh := newDeferredList(members, total, again)
		seen := map[uint32]bool{}
		for i, pos := range want {
			if seen[pos] {
				continue // a record in two masks: its first rank
			}
			seen[pos] = true
			if got := fresh.Index(pos); got != i {
				t.Fatalf("round %d: index(%d) = %d, want %d", round, pos, got, i)
			}
		}
		if universe < 1<<20 && !members.Contains(uint32(universe)) {
			if got := fresh.Index(uint32(universe)); got != -1 {
				t.Fatalf("round %d: index of a record not in the list = %d", round, got)
			}
		}
	}
}
