package search

import (
	"math/bits"
	"slices"
	"sort"
	"strings"
)

// joinSplit makes one unit of two one-word units that, joined, are a
// word of the catalogue or of the synonym table ("dead lift", "kettle
// bell", "hyper extension"): the unit matches both words, or the word
// they make (see unit) and its synonyms.
func (s *Index) joinSplit(units []unit) []unit {
	out := units[:0:0]
	for i := 0; i < len(units); i++ {
		u := units[i]
		if i+1 < len(units) {
			a, b := u.alternatives[0], units[i+1].alternatives[0]
			if j := stem(a[0] + b[0]); len(a) == 1 && len(b) == 1 && (s.whole[j] || synonyms.of[j] != nil) {
				u = unit{alternatives: [][]string{{a[0], b[0]}, {a[0] + b[0]}}, last: units[i+1].last, joined: true}
				for _, alt := range synonyms.of[j] {
					if stemmed(alt) != stemmed(u.alternatives[0]) {
						u.alternatives = append(u.alternatives, alt)
					}
				}
				i++
			}
		}
		out = append(out, u)
	}
	return out
}

// A word run together from whole words of names is split into at least
// minRunTogether of them (two words joined are a term already, see
// written) and at most maxRunTogether.
const minRunTogether, maxRunTogether = 3, 4

// splitRunTogether adds to a one-word unit that is no term of the
// catalogue the words it runs together, when it is made of minRunTogether
// or more whole words of names and aliases, of two letters or more
// ("toestobar": "toes bar", stop words left out): the counterpart of
// joinSplit, for words typed without their spaces or hyphens. The fewest
// words win. The word itself stays the unit's first alternative and is
// corrected as any other ("gobelt": "goblet"), so a typo that happens to
// split ("inline": "in line") still finds what it misspells.
func (s *Index) splitRunTogether(units []unit) []unit {
	for i, u := range units {
		if len(u.alternatives) != 1 || len(u.alternatives[0]) != 1 {
			continue
		}
		w := u.alternatives[0][0]
		if t := stem(w); s.name[t] != nil || s.field[t] != nil || len(w) < 2*minRunTogether || isNumber(w) {
			continue
		}
		parts := s.wordsIn(w)
		if len(parts) < minRunTogether {
			continue
		}
		if parts = slices.DeleteFunc(parts, func(p string) bool { return stopWords[p] }); len(parts) >= 2 {
			units[i].alternatives = [][]string{{w}, parts}
			units[i].split = true
		}
	}
	return units
}

// correctSynonyms adds to a one-word unit that is no term of the
// catalogue, of minSoundLength letters or more, the words of the synonym
// table it misspells (within allowedTypos, or sounding alike; see
// similar) and what they stand for: "abbs" is "abs", the abdominals, as
// "crunchs" is "crunch". The word itself stays the unit's first
// alternative and is corrected as any other. Only the table's words of
// minSynonymTypo letters or more count, so "dbb" is no "db"; and a typed
// word of fewer than minSoundLength letters is too short to tell a typo
// of a three-letter abbreviation from another word. Nor is a last word
// that begins written words: it is being typed.
func (s *Index) correctSynonyms(units []unit) []unit {
	for i, u := range units {
		if len(u.alternatives) != 1 || len(u.alternatives[0]) != 1 {
			continue
		}
		w := u.alternatives[0][0]
		if t := stem(w); len(w) < minSoundLength || isNumber(w) || s.name[t] != nil || s.field[t] != nil || synonyms.of[t] != nil || s.prose[w] {
			continue
		}
		if u.last && len(s.prefixed(w)) > 0 {
			continue // a word being typed ("bice" is no misspelt "bike")
		}
		k := allowedTypos(len(w), len(units) > 1)
		ws, mask := sound(singular(w)), letterMask(w)
		for j, key := range synonyms.words {
			typo := abs(len(key)-len(w)) <= k && bits.OnesCount32(mask^letterMask(key)) <= 2*k && editDistance(w, key, k) <= k
			if !typo && (len(key) < minSoundLength || ws != synonymSounds[j]) {
				continue
			}
			units[i].misspelt = true
			units[i].alternatives = addAlternatives(units[i].alternatives, append([][]string{{key}}, synonyms.of[stem(key)]...)...)
		}
		// A word whose corrections are all one vocabulary value stands
		// for it, as the value typed would: "dumbell" is "dumbbell".
		if v := s.valueMisspelt(w, len(units) > 1); v != "" && !units[i].misspelt {
			units[i].misspelt = true
			units[i].alternatives = addAlternatives(units[i].alternatives, append([][]string{{v}}, synonyms.of[stem(v)]...)...)
		}
	}
	return units
}

// valueMisspelt returns the one-word vocabulary value (an equipment,
// muscle, body part, type or difficulty) that w misspells, when all the
// written words within its typos (see similar) but pairs joined are
// that word, or "".
func (s *Index) valueMisspelt(w string, others bool) string {
	var best string
	for _, c := range s.similar(w, others) {
		switch {
		case !s.whole[s.surface[c]] && s.field[s.surface[c]] == nil:
			continue // a pair of words joined ("dumbbellw")
		case best == "":
			best = c
		case s.surface[c] != s.surface[best]:
			return ""
		case len(c) < len(best):
			best = c
		}
	}
	if best == "" || s.primary[singular(best)] == nil {
		return ""
	}
	return best
}

// maxSynonymCompletions is the most phrases of the synonym table a
// query typed so far may be completing: more, and it is too short to
// tell them apart.
const maxSynonymCompletions = 4

// completeSynonyms makes one unit of the last words of a query that are
// a phrase of the synonym table being typed ("full bo", "compo", "warm
// u"): the words before the last as in the phrase (by stem), the last
// the beginning of its last word as written, and that word no term of
// the catalogue nor of the table. The unit matches the words as typed,
// the phrases and what they stand for. None when more than
// maxSynonymCompletions phrases would do, when a single word of fewer
// than minSoundLength letters is typed ("bi" may be anything), or when
// the words begin a name or alias: the name being typed comes first
// ("hip thr", "pec dec").
func (s *Index) completeSynonyms(units []unit) []unit {
	n := len(units)
	if n == 0 || !units[n-1].last || len(units[n-1].alternatives) != 1 || len(units[n-1].alternatives[0]) != 1 {
		return units
	}
	w := units[n-1].alternatives[0][0]
	if t := stem(w); isNumber(w) || s.name[t] != nil || s.field[t] != nil || synonyms.of[t] != nil {
		return units
	}
	for m := min(n, synonyms.longest); m >= 1; m-- {
		if m == 1 && len(w) < minSoundLength {
			break
		}
		tail := units[n-m:]
		var found [][]string
		for _, p := range synonyms.phrases {
			if len(p) != m || !strings.HasPrefix(p[m-1], w) || p[m-1] == w {
				continue
			}
			same := true
			for i, u := range tail[:m-1] {
				if a := u.alternatives[0]; len(a) != 1 || stem(a[0]) != stem(p[i]) {
					same = false
					break
				}
			}
			if same {
				found = addAlternatives(found, p)
			}
		}
		if len(found) == 0 || len(found) > maxSynonymCompletions {
			continue
		}
		var typed []string
		for _, u := range tail {
			typed = append(typed, u.alternatives[0]...)
		}
		if s.begins(nameKey(typed)) {
			return units // a name is being typed: its completions say more
		}
		merged := unit{alternatives: [][]string{typed}, last: true}
		for _, p := range found {
			merged.alternatives = addAlternatives(merged.alternatives, append([][]string{p}, synonyms.of[stemmed(p)]...)...)
		}
		return append(units[:n-m:n-m], merged)
	}
	return units
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// begins reports whether a name or alias key begins with k.
func (s *Index) begins(k string) bool {
	i := sort.SearchStrings(s.sortedKeys, k)
	return i < len(s.sortedKeys) && strings.HasPrefix(s.sortedKeys[i], k)
}

// orAnatomy makes one unit of two that "and" joins when both name a
// muscle or body part: "chest and triceps" asks for the exercises of a
// day that trains both, the chest's and the triceps' (any of their
// alternatives), not for the few that train both at once.
func (s *Index) orAnatomy(units []unit) []unit {
	anatomical := func(u unit) bool {
		return slices.ContainsFunc(u.alternatives, func(a []string) bool { return s.anatomy[singularPhrase(a)] })
	}
	out := units[:0:0]
	for _, u := range units {
		if n := len(out); n > 0 && out[n-1].and && anatomical(out[n-1]) && anatomical(u) {
			prev := out[n-1]
			parts := prev.parts
			if parts == nil {
				parts = [][][]string{prev.alternatives}
			}
			out[n-1] = unit{alternatives: addAlternatives(slices.Clone(prev.alternatives), u.alternatives...), last: u.last, and: u.and, parts: append(slices.Clip(parts), u.alternatives)}
			continue
		}
		out = append(out, u)
	}
	return out
}

// wordsIn returns the fewest whole words of names and aliases (of two
// letters or more, at most maxRunTogether) that w is made of, or nil.
func (s *Index) wordsIn(w string) []string {
	// best[i] holds the fewest words that make w[:i], nil if none do.
	best := make([][]string, len(w)+1)
	best[0] = []string{}
	for i := 2; i <= len(w); i++ {
		for j := 0; j+2 <= i; j++ {
			if best[j] == nil || len(best[j]) >= maxRunTogether || (best[i] != nil && len(best[j])+1 >= len(best[i])) {
				continue
			}
			if t, ok := s.surface[w[j:i]]; ok && s.whole[t] {
				best[i] = append(slices.Clip(best[j]), w[j:i])
			}
		}
	}
	return best[len(w)]
}

// completeWord makes a last word typed so far that is no term of the
// catalogue nor of the synonym table, of minCompletedWord letters or
// more, the one word of names and aliases it begins, when it begins one
// only but for endings ("incline dumb" is "incline dumbbell", "kettleb"
// "kettlebell"; "hip thr" may be "thrust" or "thruster"), with that
// word's synonyms: it ranks as the word typed whole. The word as typed
// stays, corrected and completed as any other ("pigeon pse" is no
// "pigeon pseudo").
func (s *Index) completeWord(units []unit) []unit {
	n := len(units)
	if n == 0 || !units[n-1].last || len(units[n-1].alternatives) != 1 || len(units[n-1].alternatives[0]) != 1 {
		return units
	}
	w := units[n-1].alternatives[0][0]
	if t := stem(w); len(w) < minCompletedWord || isNumber(w) || s.name[t] != nil || s.field[t] != nil || synonyms.of[t] != nil {
		return units
	}
	var whole string
	for _, c := range s.prefixed(w) {
		t := s.surface[c]
		if !s.whole[t] {
			continue // a pair of words joined
		}
		switch {
		case whole == "" || t == s.surface[whole] && len(c) < len(whole):
			whole = c
		case t != s.surface[whole]:
			return units
		}
	}
	if whole == "" {
		return units
	}
	u := units[n-1]
	u.completed = true
	u.alternatives = addAlternatives([][]string{{w}, {whole}}, synonyms.of[stem(whole)]...)
	return append(units[:n-1:n-1], u)
}

// minCompletedWord is the shortest last word completed to the one word it
// begins.
const minCompletedWord = 3
