package search

import (
	"slices"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// Text analysis for search: the same steps turn record text into index
// terms and a query into the terms it looks for.
//
//  1. words: compatibility forms folded (NFKC: full-width "ｓｑｕａｔ" is
//     "squat"), apostrophes dropped ("farmer's" is "farmers", "pull-up's"
//     "pull" "ups"), lower case, split on everything but letters and
//     digits, so case, punctuation, hyphens and spacing do not matter
//     ("Pull-Up" is "pull" "up");
//  2. terms: each word stemmed by the Snowball English stemmer ("curls",
//     "curling" and "curl" are "curl"), and each pair of adjacent words
//     joined ("pull" "up" also gives "pullup"), so that "pullup",
//     "pull up" and "pull-up" meet;
//  3. in queries only, synonyms and abbreviations (synonyms.txt) add
//     alternatives: "db" also looks for "dumbbell".

// Words returns the words a search reads of s: its lower-case runs of
// letters and digits, folded to NFKC and without apostrophes.
func Words(s string) []string { return words(s) }

// words returns the lower-case runs of letters and digits of s, folded
// to NFKC and without apostrophes.
func words(s string) []string {
	s = strings.Map(func(r rune) rune {
		if r == '\'' || r == '’' || r == 'ʼ' {
			return -1
		}
		return r
	}, norm.NFKC.String(s))
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stem returns the term of one word. The British -isation is the
// -ization the stemmer knows ("mobilisation" is "mobilization").
func stem(w string) string {
	if len(w) <= 2 || isNumber(w) {
		return w
	}
	if base, ok := strings.CutSuffix(w, "isation"); ok {
		w = base + "ization"
	} else if base, ok := strings.CutSuffix(w, "isations"); ok {
		w = base + "izations"
	}
	return english.Stem(w, false)
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}

// written returns the words of a text and its adjacent pairs joined, as
// written: the forms a person may type.
func written(s string) []string {
	ws := words(s)
	out := make([]string, 0, 2*len(ws))
	for i, w := range ws {
		out = append(out, w)
		// A number joins only a number ("90 90" is "9090"): a word joined
		// to a number would be a term of its own in every numbered name.
		if i > 0 && isNumber(ws[i-1]) == isNumber(w) {
			out = append(out, ws[i-1]+w)
		}
	}
	return out
}

// terms returns the index terms of a text: its written forms stemmed.
func terms(s string) []string {
	out := written(s)
	for i, w := range out {
		out[i] = stem(w)
	}
	return out
}

// singular returns a word without a plural ending ("rows" "row",
// "presses" "press", "flies" "fly"), leaving other endings alone: unlike
// the stem, it keeps "rowing" apart from "row" and "flying" from "fly".
func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// singularPhrase joins the singulars of words with spaces.
func singularPhrase(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = singular(w)
	}
	return strings.Join(out, " ")
}

// heads returns the forms of the head of a phrase of words, its last word
// (in English, what a compound name is: a "goblet squat" is a squat, a
// "squat jerk" a jerk), alone and joined to the word before it ("pull
// up" is also "pullup"), singular. A particle is no head alone: a sit-up
// is no pull-up. Trailing numbers are no head: "squat 2" is a squat (and
// numbered names would each add one).
func heads(ws []string) []string {
	for len(ws) > 1 && isNumber(ws[len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	switch n := len(ws); {
	case n == 0:
		return nil
	case n == 1:
		return []string{singular(ws[0])}
	case particles[ws[n-1]]:
		return []string{singular(ws[n-2] + ws[n-1])}
	default:
		return []string{singular(ws[n-1]), singular(ws[n-2] + ws[n-1])}
	}
}

// headPhrase returns the words of a name up to a preposition that starts a
// phrase after it: a "dumbbell chest press on bosu ball" is a press, a
// "sandbag over the shoulder" a sandbag toss, a "glute bridge with
// abduction" a bridge. Prepositions inside hyphenated words
// ("bent-over", "knee-to-chest") and "of" ("bird of paradise pose") do not
// count.
func headPhrase(name string) []string {
	tokens := strings.Fields(name)
	for i := 1; i < len(tokens)-1; i++ {
		if prepositions[strings.ToLower(tokens[i])] {
			tokens = tokens[:i]
			break
		}
	}
	return words(strings.Join(tokens, " "))
}

var prepositions = map[string]bool{"on": true, "with": true, "to": true, "over": true, "behind": true, "around": true, "into": true, "from": true, "in": true}

// particles end phrasal names ("pull-up", "get-up", "walkover") without
// saying what the exercise is.
var particles = map[string]bool{"up": true, "down": true, "over": true, "out": true, "in": true, "off": true, "through": true, "around": true}

// stemmed joins the terms of words with spaces.
func stemmed(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return strings.Join(out, " ")
}

// key is the form in which whole names, aliases and queries are compared:
// their terms run together.
func key(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(stem(w))
	}
	return b.String()
}

// nameKey is the key of a whole name, alias or query: its terms run
// together, less the little words that join the others, which a query
// leaves out as stop words ("clean and press" is "clean press", "plank
// with leg lift" "plank leg lift"), unless nothing else is left. Other
// stop words stay: a "rehab squat" is no "squat", an "a-march" no
// "march".
func nameKey(ws []string) string {
	kept := ws[:0:0]
	for _, w := range ws {
		if !joiners[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return key(ws)
	}
	return key(kept)
}

// joiners are the stop words that join the words of a name.
var joiners = map[string]bool{"and": true, "with": true, "on": true, "the": true, "of": true, "to": true, "in": true, "for": true, "at": true, "using": true}

// hasPhrase reports whether the words ws hold the words of phrase in a
// row.
func hasPhrase(ws, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}
