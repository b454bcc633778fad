package search

import (
	"cmp"
	"math/bits"
	"slices"
)

// allowedTypos is how many edits a word of n letters may be off by: none
// below three letters, one up to five, two from six. A word of three
// letters is corrected only when other words narrow the results.
func allowedTypos(n int, others bool) int {
	switch {
	case n < 3 || n == 3 && !others:
		return 0
	case n < 6:
		return 1
	default:
		return 2
	}
}

// similar returns the written words within allowedTypos of
// w (insertions, deletions, substitutions and swaps of neighbours), and
// those that sound like it.
func (s *Index) similar(w string, others bool) (out []string) {
	k := allowedTypos(len(w), others)
	if k == 0 || isNumber(w) {
		return nil
	}
	if len(w) >= minSoundLength || others {
		out = slices.Clone(s.sounds[sound(singular(w))])
	}
	mask := letterMask(w)
	type near struct {
		word  string
		edits int
	}
	var close []near
	for n := max(1, len(w)-k); n <= len(w)+k && n < len(s.byLength); n++ {
		for _, cand := range s.byLength[n] {
			// Each edit changes at most two letters of the set.
			if bits.OnesCount32(mask^letterMask(cand)) > 2*k {
				continue
			}
			if d := editDistance(w, cand, k); d <= k {
				close = append(close, near{cand, d})
			}
		}
	}
	// A word's cost grows with its corrections: the closest
	// maxCorrections are kept.
	if len(close) > maxCorrections {
		slices.SortStableFunc(close, func(a, b near) int { return cmp.Compare(a.edits, b.edits) })
		close = close[:maxCorrections]
	}
	for _, c := range close {
		out = append(out, c.word)
	}
	return out
}

// maxCorrections is the most words within its typos a word is corrected
// to (its sound-alikes aside).
const maxCorrections = 16

// minSoundLength is the shortest word matched by its sound.
const minSoundLength = 4

// sound returns a rough key of how a written word sounds: the spellings
// of one sound that people mix up when they spell by ear are one letter
// (an x after the first letter is "ks"), doubled letters are one and a
// final e is silent, so "skwat" sounds like "squat", "jaks" and "jax"
// like "jacks", "lunj" like "lunge" and "brij" like "bridge".
func sound(w string) string {
	b := make([]byte, 0, len(w)+1)
	for i := 0; i < len(w); i++ {
		c, next := w[i], byte(0)
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch {
		case c == 'c' && next == 'k':
			continue // "ck" is "k"
		case c == 'q' && next == 'u':
			b = append(b, 'k')
			c = 'w'
			i++
		case c == 'c' && (next == 'e' || next == 'i' || next == 'y'):
			c = 's'
		case c == 'c' || c == 'q':
			c = 'k'
		case c == 'd' && next == 'g' && i+2 < len(w) && (w[i+2] == 'e' || w[i+2] == 'i' || w[i+2] == 'y'):
			continue // "dge" is a soft g: "bridge" sounds like "brij"
		case c == 'g' && (next == 'e' || next == 'i' || next == 'y'):
			c = 'j'
		case c == 'p' && next == 'h':
			c = 'f'
			i++
		case c == 'z':
			c = 's'
		case c == 'x' && i > 0 && i == len(w)-1: // "jax" is "jacks", the plural as nothing
			c = 'k'
		case c == 'x' && i > 0: // "flexion"
			b = append(b, 'k')
			c = 's'
		}
		if len(b) > 0 && b[len(b)-1] == c {
			continue
		}
		b = append(b, c)
	}
	if len(b) > 1 && b[len(b)-1] == 'e' {
		b = b[:len(b)-1]
	}
	return string(b)
}

func letterMask(s string) uint32 {
	var m uint32
	for i := 0; i < len(s); i++ {
		m |= 1 << (s[i] % 32)
	}
	return m
}

// editDistance is the optimal string alignment distance of a and b, or
// any value above limit once it exceeds it.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
