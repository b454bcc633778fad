package search

import (
	"slices"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// matches are the records that match a word, or a unit of a query, each
// set within the next but for exact and ownLoose: exactly in the name
// proper (own), exactly in a name or alias (exact), exactly or loosely in
// the name proper (ownLoose), exactly or loosely in a name or alias
// (inName), and anywhere. Loosely means: through a term within the
// allowed typos of the word when it is no term of the catalogue, or, for
// a prefix word, a term that starts with it. Each is computed when first
// read: a search reads anywhere for its total, and the others only as its
// pages reach the tiers made of them.
type matches struct {
	own, exact, ownLoose, inName, anywhere *lazy
	// field holds the records whose equipment, muscles, body parts, type
	// or difficulty confirm the words: have them as written but for a
	// plural, or loosely. (Through stems, the fields match more: anywhere
	// holds them.)
	field *lazy
	// loose reports whether any word matched loosely: if none did,
	// ownLoose is own and inName is exact. aliased reports whether any
	// term it matched is in an alias but not the name of some record: if
	// none is, ownLoose is inName.
	loose, aliased bool
}

// unit returns the records that match a unit of a query.
// With others set, the query has other units to narrow the results, so
// shorter words may be corrected or completed.
func (s *Index) unit(u unit, others bool, x *searchSets) matches {
	alternatives := u.alternatives
	for _, alt := range u.alternatives {
		// Two words may be written as one ("body weight", "bodyweight").
		if joined := []string{strings.Join(alt, "")}; len(alt) == 2 && !slices.ContainsFunc(alternatives, func(a []string) bool { return slices.Equal(a, joined) }) {
			alternatives = append(alternatives, joined)
		}
	}
	// A phrase of the synonym table is known: no typo of another word
	// ("core" is no misspelt "cone"). A word split into the words it runs
	// together is corrected as written, its parts are not.
	correct := len(u.alternatives) == 1 || u.split || u.misspelt || u.completed
	ms := make([]matches, len(alternatives))
	for i, alt := range alternatives {
		// An exercise the table stands for is found by its name: a "leg
		// raise" is no calf raise of the lower legs. For a phrase of the
		// table ("lower abs"), its words in a row first: a "single-leg
		// calf raise" only after the knee raises; an abbreviation is
		// spelled out word by word, and other words may come between
		// ("cgbp dumbbell": the close-grip dumbbell bench press). A
		// spelling of what was typed ("pullup", "pull up") is what was
		// typed.
		if i > 0 && i < len(u.alternatives) && !u.split && s.exerciseName(alt) && strings.Join(alt, "") != strings.Join(u.alternatives[0], "") {
			ws := make([]matches, len(alt))
			for j, w := range alt {
				ws[j] = s.word(w, wordMatch{prefix: u.last && j == len(alt)-1, others: others}, x)
			}
			apart := combine(ws, x.lazyAnd)
			ms[i] = apart
			if len(u.alternatives[0]) > 1 {
				// The words apart match as through a field would, below
				// the names that have them in a row ("upper chest cable":
				// the incline cable fly).
				ms[i] = combine(s.wordPairs(alt, wordMatch{prefix: u.last, others: others}, x), x.lazyAnd)
			}
			ms[i].anywhere, ms[i].field = apart.inName, known(empty)
			continue
		}
		ws := make([]matches, len(alt))
		for j, w := range alt {
			ws[j] = s.word(w, wordMatch{prefix: u.last && j == len(alt)-1, others: others, correct: correct && !((u.split || u.misspelt || u.completed) && i > 0)}, x)
		}
		ms[i] = combine(ws, x.lazyAnd)
	}
	return combine(ms, x.lazyOr)
}

// wordPairs returns the matches of the adjacent words of a phrase joined,
// as the index holds them (see written): the phrase's words in a row. A
// number and a word are never joined: they match apart. With how.prefix,
// the phrase's last word may be typed so far; no word is corrected.
func (s *Index) wordPairs(alt []string, how wordMatch, x *searchSets) []matches {
	at := func(last bool) wordMatch { return wordMatch{prefix: how.prefix && last, others: how.others} }
	var out []matches
	for j := 1; j < len(alt); j++ {
		a, b := alt[j-1], alt[j]
		if isNumber(a) == isNumber(b) {
			out = append(out, s.word(a+b, at(j == len(alt)-1), x))
			continue
		}
		out = append(out, s.word(a, at(false), x), s.word(b, at(j == len(alt)-1), x))
	}
	return out
}

// exerciseName reports whether a phrase of the synonym table names
// exercises rather than a vocabulary value: two words or more that are no
// equipment, muscle, body part, type or difficulty ("leg raise", "crow
// pose"; not "body weight" or "middle trapezius").
func (s *Index) exerciseName(alt []string) bool {
	return len(alt) >= 2 && !s.phrases[stemmed(alt)] && s.primary[singularPhrase(alt)] == nil
}

// combine returns the matches of all of ms (op a lazyAnd) or any (op a
// lazyOr).
func combine(ms []matches, op func(...*lazy) *lazy) matches {
	if len(ms) == 1 {
		return ms[0]
	}
	var out matches
	var own, exact, ownLoose, inName, anywhere, field []*lazy
	for _, m := range ms {
		own, exact, ownLoose = append(own, m.own), append(exact, m.exact), append(ownLoose, m.ownLoose)
		inName, anywhere, field = append(inName, m.inName), append(anywhere, m.anywhere), append(field, m.field)
		out.loose, out.aliased = out.loose || m.loose, out.aliased || m.aliased
	}
	out.own, out.exact, out.inName, out.anywhere, out.field = op(own...), op(exact...), op(inName...), op(anywhere...), op(field...)
	out.ownLoose = out.inName
	if out.aliased { // else each ownLoose is its inName
		out.ownLoose = op(ownLoose...)
	}
	return out
}

// wordMatch says how a word of a query may match.
type wordMatch struct {
	// prefix: the word may be typed so far, and match the written words
	// it begins.
	prefix bool
	// others: the query has other units to narrow the results, so
	// shorter words may be corrected or completed.
	others bool
	// correct: a word that is no term of the catalogue matches through
	// the terms within its allowed typos too.
	correct bool
}

// word returns the records that match w, as how says.
func (s *Index) word(w string, how wordMatch, x *searchSets) matches {
	t := stem(w)
	m := matches{exact: known(orEmpty(s.name[t])), own: s.ownName(t), aliased: s.aliasOnly[t] != nil}
	names, fields := []*roaring.Bitmap{orEmpty(s.name[t])}, []*roaring.Bitmap{orEmpty(s.field[t])}
	confirms := []*roaring.Bitmap{orEmpty(s.fieldWritten[singular(w)])}
	owns := []*lazy{m.own}
	// A word of the catalogue is confirmed only as it is: its completions
	// are guesses ("row" is typed, "rowing machine" is not).
	term := s.name[t] != nil || s.field[t] != nil
	var loose []string
	if how.correct && !term && !s.prose[w] {
		loose = s.similar(w, how.others)
	}
	if how.prefix && (len(w) >= 2 || how.others) {
		loose = append(loose, s.prefixed(w)...)
	}
	for _, c := range loose {
		l := s.surface[c]
		if l == t {
			continue // a prefix of itself
		}
		m.loose = true
		m.aliased = m.aliased || s.aliasOnly[l] != nil
		// A pair whose first word this word or another of loose matches
		// adds no records ("press" and "pressrow"); only the flags count
		// it.
		if first, ok := s.pairOf[c]; ok && (s.surface[first] == t && term || s.surface[first] != t && slices.Contains(loose, first)) {
			continue
		}
		names = append(names, orEmpty(s.name[l]))
		fields = append(fields, orEmpty(s.field[l]))
		if !term {
			confirms = append(confirms, orEmpty(s.fieldWritten[singular(c)]))
		}
		owns = append(owns, s.ownName(l))
	}
	m.inName = deferred(func() *roaring.Bitmap { return x.or(names...) })
	m.field = deferred(func() *roaring.Bitmap { return x.or(confirms...) })
	inName := m.inName
	m.anywhere = deferred(func() *roaring.Bitmap { return x.or(inName.get(), x.or(fields...)) })
	m.ownLoose = m.inName
	if m.aliased { // else no term is in an alias only: ownLoose is inName
		m.ownLoose = x.lazyOr(owns...)
	}
	return m
}

// ownName returns the records whose name proper has the term t.
func (s *Index) ownName(t string) *lazy {
	if only := s.aliasOnly[t]; only != nil {
		return deferred(func() *roaring.Bitmap { return roaring.AndNot(orEmpty(s.name[t]), only) })
	}
	return known(orEmpty(s.name[t]))
}

// maxPrefixTerms bounds the written words a prefix expands to.
const maxPrefixTerms = 512

// prefixed returns the written words that start with w.
func (s *Index) prefixed(w string) []string {
	i := sort.SearchStrings(s.sorted, w)
	j := i
	for j < len(s.sorted) && strings.HasPrefix(s.sorted[j], w) && j-i < maxPrefixTerms {
		j++
	}
	return s.sorted[i:j]
}
