package dataset_test

import (
	"cmp"
	"slices"
	"testing"
)

// minDistinctTipShare is the share of tips that must be distinct across
// the catalogue. A family's tips are repeated on each of its variants; the
// share holds because each variant adds cues of its own (for its equipment,
// grip, stance, range or difficulty), so a record does not merely repeat
// its family.
const minDistinctTipShare = 0.5

// TestTipsAreVariantSpecific holds the share of distinct tips and logs it,
// with the tips repeated most, for review.
func TestTipsAreVariantSpecific(t *testing.T) {
	count := map[string]int{}
	total := 0
	for _, x := range catalogue(t).Exercises {
		for _, tip := range x.Tips {
			count[tip]++
			total++
		}
	}
	if total == 0 {
		t.Fatal("no tips")
	}
	share := float64(len(count)) / float64(total)
	t.Logf("tips: %d distinct of %d (%.1f%%)", len(count), total, 100*share)
	if share < minDistinctTipShare {
		t.Errorf("distinct tips are %.1f%% of all tips, want at least %.0f%%: give the variants of the largest families tips of their own", 100*share, 100*minDistinctTipShare)
	}

	type repeated struct {
		tip string
		n   int
	}
	var top []repeated
	for tip, n := range count {
		if n > 1 {
			top = append(top, repeated{tip, n})
		}
	}
	slices.SortFunc(top, func(a, b repeated) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.tip, b.tip))
	})
	for _, r := range top[:min(5, len(top))] {
		t.Logf("%3d records: %s", r.n, r.tip)
	}
}
