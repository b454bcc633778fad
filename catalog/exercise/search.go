package exercise

import (
	"math/bits"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/RoaringBitmap/roaring/v2"
)

// MaxQueryLength bounds a search query, in characters.
const MaxQueryLength = 200

// maxNameWords caps the name lengths that ranking tells apart: names of
// more words rank together.
const maxNameWords = 8

// searchIndex finds records by the words of their names, aliases and
// vocabulary values (analyze.go says how text becomes terms).
type searchIndex struct {
	// name maps a term to the records whose name or an alias has it;
	// field to those whose equipments, muscles, body parts, types or
	// difficulty have it.
	name, field map[string]*roaring.Bitmap
	// byLength holds the terms that are not numbers, by length, for typo
	// and prefix lookups; sorted holds them all in order.
	byLength [][]string
	sorted   []string
	// keys maps the SearchKey of every name and alias to its records.
	keys map[string]*roaring.Bitmap
	// words[n] holds the records whose name has n words (at most
	// maxNameWords): a closer name ranks first.
	words [maxNameWords + 1]*roaring.Bitmap

	stems map[string][]string // memo of terms, for repeated vocabulary values
}

func newSearchIndex() *searchIndex {
	s := &searchIndex{
		name: map[string]*roaring.Bitmap{}, field: map[string]*roaring.Bitmap{},
		keys: map[string]*roaring.Bitmap{}, stems: map[string][]string{},
	}
	for i := range s.words {
		s.words[i] = roaring.New()
	}
	return s
}

// terms is terms(text), remembered: a vocabulary value recurs in
// thousands of records.
func (s *searchIndex) terms(text string) []string {
	if t, ok := s.stems[text]; ok {
		return t
	}
	t := terms(text)
	if len(s.stems) < 1<<16 {
		s.stems[text] = t
	}
	return t
}

func (s *searchIndex) add(pos uint32, x *Exercise) {
	for _, text := range append([]string{x.Name}, x.Aliases...) {
		for _, t := range s.terms(text) {
			group(s.name, t, pos)
		}
		group(s.keys, SearchKey(text), pos)
	}
	for _, list := range [][]string{x.Equipments, x.TargetMuscles, x.SecondaryMuscles, x.BodyParts, x.ExerciseTypes, {x.Difficulty}} {
		for _, v := range list {
			for _, t := range s.terms(v) {
				group(s.field, t, pos)
			}
		}
	}
	s.words[min(len(words(x.Name)), maxNameWords)].Add(pos)
}

// finish optimises the bitmaps and lists the terms for lookups.
func (s *searchIndex) finish() {
	seen := map[string]bool{}
	for _, m := range []map[string]*roaring.Bitmap{s.name, s.field} {
		for t, b := range m {
			b.RunOptimize()
			if !seen[t] && !isNumber(t) {
				seen[t] = true
				s.sorted = append(s.sorted, t)
			}
		}
	}
	for _, b := range s.keys {
		b.RunOptimize()
	}
	for _, b := range s.words {
		b.RunOptimize()
	}
	slices.Sort(s.sorted)
	for _, t := range s.sorted {
		for len(s.byLength) <= len(t) {
			s.byLength = append(s.byLength, nil)
		}
		s.byLength[len(t)] = append(s.byLength[len(t)], t)
	}
	s.stems = nil
}

// checkQuery reports what makes q unusable: too long, control
// characters, nothing to search for.
func checkQuery(q string, bad *ArgumentError) {
	switch {
	case len([]rune(q)) > MaxQueryLength:
		bad.add(FieldQuery, q, "is longer than %d characters", MaxQueryLength)
	case strings.ContainsFunc(q, unicode.IsControl):
		bad.add(FieldQuery, q, "contains control characters")
	case len(words(q)) == 0:
		bad.add(FieldQuery, q, "has no letters or digits to search for")
	}
}

// search ranks the records of set that match q, best first:
//
//  1. a name or alias equal to the query (or to the query with its
//     abbreviations spelled out);
//  2. every word of the query in the name or an alias, as typed (after
//     stemming and synonyms);
//  3. every word in the name or an alias, some only with a typo corrected
//     or, for the last word, as a prefix;
//  4. every word matched, some only through equipment, muscles, body
//     parts, type or difficulty, at least one in the name;
//  5. every word matched, none in the name.
//
// Within each, names of fewer words first (the closer match), then ids.
func (c *Catalogue) search(q string, set *roaring.Bitmap) *ranked {
	s := c.searchIdx
	units := parseQuery(q)
	var exact, inName, anywhere, nameAny []*roaring.Bitmap
	for _, u := range units {
		e, n, a := s.unit(u)
		exact, inName, anywhere = append(exact, e), append(inName, n), append(anywhere, a)
		nameAny = append(nameAny, n)
	}
	all := roaring.FastAnd(append(anywhere, set)...)
	var tiers []*roaring.Bitmap
	add := func(b *roaring.Bitmap) {
		b.AndNot(taken(tiers))
		tiers = append(tiers, b)
	}
	add(roaring.And(all, s.exactKeys(units)))
	add(roaring.FastAnd(append(exact, all)...))
	add(roaring.FastAnd(append(inName, all)...))
	add(roaring.And(all, roaring.FastOr(nameAny...)))
	add(all.Clone())
	// Split each tier by name length.
	var out []*roaring.Bitmap
	for _, t := range tiers {
		for _, w := range s.words {
			out = append(out, roaring.And(t, w))
		}
	}
	return newRanked(out...)
}

// taken is the union of the tiers so far.
func taken(tiers []*roaring.Bitmap) *roaring.Bitmap {
	if len(tiers) == 0 {
		return roaring.New()
	}
	return roaring.FastOr(tiers...)
}

// unit returns the records that match a unit of a query: exactly in a
// name or alias, exactly or loosely in one, and anywhere.
func (s *searchIndex) unit(u unit) (exact, inName, anywhere *roaring.Bitmap) {
	var es, ns, as []*roaring.Bitmap
	for _, alt := range u.alternatives {
		var e, n, a []*roaring.Bitmap
		for i, w := range alt {
			prefix := u.last && i == len(alt)-1
			we, wn, wa := s.word(w, prefix)
			e, n, a = append(e, we), append(n, wn), append(a, wa)
		}
		es, ns, as = append(es, roaring.FastAnd(e...)), append(ns, roaring.FastAnd(n...)), append(as, roaring.FastAnd(a...))
	}
	return roaring.FastOr(es...), roaring.FastOr(ns...), roaring.FastOr(as...)
}

// word returns the records that have w exactly in a name or alias,
// exactly or loosely there, and anywhere. Loosely means: a term within the
// allowed typos of w when w itself is no term of the catalogue, or, for a
// prefix word, a term that starts with it.
func (s *searchIndex) word(w string, prefix bool) (exact, inName, anywhere *roaring.Bitmap) {
	t := stem(w)
	exact = orEmpty(s.name[t])
	names := []*roaring.Bitmap{exact}
	fields := []*roaring.Bitmap{orEmpty(s.field[t])}
	var loose []string
	if s.name[t] == nil && s.field[t] == nil {
		loose = s.similar(t)
	}
	if prefix {
		loose = append(loose, s.prefixed(w)...)
	}
	for _, l := range loose {
		names = append(names, orEmpty(s.name[l]))
		fields = append(fields, orEmpty(s.field[l]))
	}
	inName = roaring.FastOr(names...)
	return exact, inName, roaring.FastOr(inName, roaring.FastOr(fields...))
}

var empty = roaring.New()

func orEmpty(b *roaring.Bitmap) *roaring.Bitmap {
	if b == nil {
		return empty
	}
	return b
}

// maxPrefixTerms bounds the terms a prefix expands to.
const maxPrefixTerms = 64

// prefixed returns the terms that start with w (at least two letters).
func (s *searchIndex) prefixed(w string) []string {
	if len(w) < 2 {
		return nil
	}
	i := sort.SearchStrings(s.sorted, w)
	var out []string
	for ; i < len(s.sorted) && strings.HasPrefix(s.sorted[i], w) && len(out) < maxPrefixTerms; i++ {
		out = append(out, s.sorted[i])
	}
	return out
}

// allowedTypos is how many edits a word of n letters may be off by.
func allowedTypos(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	default:
		return 2
	}
}

// similar returns the terms within allowedTypos of t (insertions,
// deletions, substitutions and swaps of neighbours).
func (s *searchIndex) similar(t string) []string {
	k := allowedTypos(len(t))
	if k == 0 || isNumber(t) {
		return nil
	}
	mask := letterMask(t)
	var out []string
	for n := max(1, len(t)-k); n <= len(t)+k && n < len(s.byLength); n++ {
		for _, cand := range s.byLength[n] {
			// Each edit changes at most two letters of the set.
			if bits.OnesCount32(mask^letterMask(cand)) > 2*k {
				continue
			}
			if editDistance(t, cand, k) <= k {
				out = append(out, cand)
			}
		}
	}
	return out
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

// maxExpansions bounds the spelled-out forms of a query tried as a whole
// name.
const maxExpansions = 32

// exactKeys returns the records whose name or alias equals the query, or
// the query with each unit replaced by one of its alternatives.
func (s *searchIndex) exactKeys(units []unit) *roaring.Bitmap {
	keys := []string{""}
	for _, u := range units {
		var next []string
		for _, k := range keys {
			for _, alt := range u.alternatives {
				if len(next) < maxExpansions {
					next = append(next, k+SearchKey(strings.Join(alt, "")))
				}
			}
		}
		keys = next
	}
	var out []*roaring.Bitmap
	for _, k := range keys {
		if b := s.keys[k]; b != nil {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return roaring.New()
	}
	return roaring.FastOr(out...)
}
