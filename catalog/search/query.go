package search

import (
	"slices"
)

// unit is one required part of a query: a word, or a phrase of the
// synonym table, with the phrases that may stand for it (itself first).
// last marks the query's last word, which may be a prefix.
type unit struct {
	alternatives [][]string
	last         bool
	// joined: the unit is two words of the query that make one (see
	// joinSplit); split: its second alternative is the one word of the
	// first split into the words it runs together (see splitRunTogether);
	// misspelt: its alternatives after the first are the words of the
	// synonym table that the first misspells and what they stand for (see
	// correctSynonyms); completed: its second alternative is the one word
	// that the first, typed so far, begins (see completeWord). The first
	// alternative of a unit split, misspelt or completed is corrected as a
	// word alone is; the others are not.
	joined, split, misspelt, completed bool
	// and: "and" follows the unit in the query (see orAnatomy); parts
	// holds the alternatives of each muscle or body part that "and" joined
	// into the unit.
	and   bool
	parts [][][]string
}

// parseQuery splits a query into units, the longest phrases first: those
// of the synonym table and the vocabulary values of more than one word
// (phrases, see Index), so that "gluteus medius" is one muscle
// rather than two words. A phrase may hold a stop word ("exercise ball"),
// which alone is left out.
func parseQuery(q string, phrases map[string]bool, longest int) []unit {
	ws := words(q)
	if out := parseWords(withoutTempo(ws), stopWords, phrases, longest); len(out) > 0 {
		return out
	}
	return parseWords(ws, nil, phrases, longest) // a query of stop words and filler only looks for them
}

// withoutTempo returns ws without the runs of three single digits or
// more, which prescribe a tempo ("3-1-1 tempo split squat") and name no
// exercise; numbers of names ("90/90", "1 arm") are no such runs.
func withoutTempo(ws []string) []string {
	digit := func(w string) bool { return len(w) == 1 && isNumber(w) }
	var out []string
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && digit(ws[j]) {
			j++
		}
		switch {
		case j-i >= 3:
			i = j
		case j > i:
			out = append(out, ws[i:j]...)
			i = j
		default:
			out = append(out, ws[i])
			i++
		}
	}
	return out
}

func parseWords(ws []string, skip, phrases map[string]bool, longest int) []unit {
	var out []unit
	for i := 0; i < len(ws); {
		n := min(max(synonyms.longest, longest), len(ws)-i)
		for ; n > 1; n-- {
			k := stemmed(ws[i : i+n])
			if _, ok := synonyms.of[k]; ok || phrases[k] || synonyms.fillers[k] {
				break
			}
		}
		phrase := ws[i : i+n]
		i += n
		if n > 1 && synonyms.fillers[stemmed(phrase)] && skip != nil {
			continue
		}
		if n == 1 && skip[phrase[0]] {
			if phrase[0] == "and" && len(out) > 0 {
				out[len(out)-1].and = true
			}
			continue
		}
		u := unit{alternatives: [][]string{phrase}}
		u.alternatives = append(u.alternatives, synonyms.of[stemmed(phrase)]...)
		out = append(out, u)
	}
	// The last unit may be typed so far, unless stop words follow it.
	if len(out) > 0 && len(ws) > 0 && !skip[ws[len(ws)-1]] {
		out[len(out)-1].last = true
	}
	return out
}

// phrasal returns the units of a query of two words or more, as a name
// being typed: the units themselves, or, for a phrase of two words or
// more, the phrases of as many that it stands for ("hex bar": "trap
// bar"; not "chest" for "chest muscles", a word that begins many names
// without being typed). It returns nil for a query of one word, or of
// two that make one ("dumb bell"): "forearms" is no "wrist flexor
// stretch" being typed.
func phrasal(units []unit) []unit {
	if len(units) != 1 {
		return units
	}
	u := units[0]
	if len(u.alternatives[0]) < 2 || u.joined {
		return nil
	}
	u.alternatives = slices.DeleteFunc(slices.Clone(u.alternatives), func(a []string) bool { return len(a) < 2 })
	if len(u.alternatives) == 0 {
		return nil
	}
	return []unit{u}
}

// addAlternatives appends to alts each of more that is not one of them
// already, stemmed.
func addAlternatives(alts [][]string, more ...[]string) [][]string {
	for _, alt := range more {
		if !slices.ContainsFunc(alts, func(a []string) bool { return stemmed(a) == stemmed(alt) }) {
			alts = append(alts, alt)
		}
	}
	return alts
}
