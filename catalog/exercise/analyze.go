package exercise

import (
	"bufio"
	_ "embed" // the synonym table
	"fmt"
	"maps"
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

// stopWords are left out of a query's required words: "lunge with
// dumbbells" need not find "with" in a name, nor "leg day" "day", nor
// "lower back pain" "pain" (which a typo would turn into "pin"), nor
// "dumbbell only" "only", nor "bigger arms" "bigger", nor "ankle rehab"
// "rehab", nor "glutes for women" "women".
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "with": true, "on": true, "for": true, "of": true,
	"and": true, "to": true, "in": true, "using": true, "at": true, "exercise": true, "exercises": true,
	"workout": true, "workouts": true, "day": true, "variation": true, "variations": true, "pain": true,
	"only": true, "just": true, "routine": true, "routines": true, "drill": true, "drills": true,
	// Goals' adjectives: "bigger arms", "strong core", "grow glutes".
	"bigger": true, "toned": true, "strong": true, "stronger": true, "grow": true, "growth": true, "build": true, "better": true,
	"lose": true, "rehab": true, "prehab": true, "heavy": true,
	// Who it is for does not choose the exercise: "glutes for women".
	"women": true, "woman": true, "men": true, "ladies": true, "female": true, "male": true, "girls": true, "guys": true,
	// Asking and judging: "how do i do a proper push up", "best glute
	// exercise please", "exercise to tone arms".
	"how": true, "do": true, "does": true, "my": true, "me": true, "please": true, "proper": true, "properly": true,
	"correct": true, "correctly": true, "form": true, "technique": true, "good": true, "best": true,
	"effective": true, "version": true, "some": true, "want": true, "need": true, "should": true, "is": true, "are": true,
	"tone": true, "toning": true, "friendly": true, "gentle": true, "after": true, "athletes": true,
	// Both sides at once is the plain form: "bilateral calf raise".
	"bilateral": true,
}

// insteadWords ask for another exercise than the one named ("pull-up
// alternative", "instead of leg press"): a search answers with its
// alternatives (see Catalogue.search). They are stop words too, so that
// a query naming no one exercise finds what its other words do, rather
// than "alternative" read as a typo of "alternating".
var insteadWords = map[string]bool{
	"alternative": true, "alternatives": true, "substitute": true, "substitutes": true, "instead": true,
	"replacement": true, "replacements": true, "swap": true, "replace": true,
}

func init() { maps.Copy(stopWords, insteadWords) }

// asksInstead reports whether a query asks for another exercise than the
// one it names.
func asksInstead(q string) bool {
	return slices.ContainsFunc(words(q), func(w string) bool { return insteadWords[w] })
}

//go:embed synonyms.txt
var synonymsText string

// synonyms maps a phrase people type (its words stemmed, space-separated)
// to the phrases it stands for; synonymWords lists its phrases of one
// word as written, of minSynonymTypo letters or more (see
// correctSynonyms), synonymPhrases all its phrases as written (see
// completeSynonyms), and fillers its phrases that stand for nothing
// (stemmed): filler of more than one word ("how to", "proper form", "high
// reps"), left out of a query as stop words are.
var synonyms, maxSynonymWords, synonymWords, synonymPhrases, fillers = mustParseSynonyms(synonymsText)

// minSynonymTypo is the length of the shortest word of the synonym table
// that a misspelt word is corrected to: "abbs" is "abs", but a word is
// no misspelt "db", "bb" or "kb".
const minSynonymTypo = 3

// mustParseSynonyms reads lines "phrase = alternative | alternative",
// or "phrase =" for filler, with # comments.
func mustParseSynonyms(text string) (map[string][][]string, int, []string, [][]string, map[string]bool) {
	out := map[string][][]string{}
	fill := map[string]bool{}
	var one []string
	var phrases [][]string
	longest := 1
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		from, to, ok := strings.Cut(line, "=")
		key := stemmed(words(from))
		if !ok || key == "" {
			panic(fmt.Sprintf("synonyms.txt:%d: want \"phrase = alternative | ...\"", n))
		}
		longest = max(longest, len(words(from)))
		if strings.TrimSpace(to) == "" {
			if _, ok := out[key]; ok || len(words(from)) < 2 {
				panic(fmt.Sprintf("synonyms.txt:%d: filler must be a phrase of its own (single words are stop words)", n))
			}
			fill[key] = true
			continue
		}
		if fill[key] {
			panic(fmt.Sprintf("synonyms.txt:%d: %q is filler already", n, from))
		}
		if ws := words(from); len(ws) == 1 && len(ws[0]) >= minSynonymTypo && !slices.Contains(one, ws[0]) {
			one = append(one, ws[0])
		}
		phrases = append(phrases, words(from))
		if _, ok := out[key]; !ok {
			out[key] = nil // a phrase that stands only for itself is still one unit ("upper arms")
		}
		for _, alt := range strings.Split(to, "|") {
			ws := words(alt)
			switch {
			case len(ws) == 0:
				panic(fmt.Sprintf("synonyms.txt:%d: empty alternative", n))
			case stemmed(ws) == key || slices.ContainsFunc(out[key], func(a []string) bool { return stemmed(a) == stemmed(ws) }):
				continue // the phrase itself, or said already
			}
			out[key] = append(out[key], ws)
		}
	}
	return out, longest, one, phrases, fill
}

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
// (phrases, see searchIndex), so that "gluteus medius" is one muscle
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
		n := min(max(maxSynonymWords, longest), len(ws)-i)
		for ; n > 1; n-- {
			k := stemmed(ws[i : i+n])
			if _, ok := synonyms[k]; ok || phrases[k] || fillers[k] {
				break
			}
		}
		phrase := ws[i : i+n]
		i += n
		if n > 1 && fillers[stemmed(phrase)] && skip != nil {
			continue
		}
		if n == 1 && skip[phrase[0]] {
			if phrase[0] == "and" && len(out) > 0 {
				out[len(out)-1].and = true
			}
			continue
		}
		u := unit{alternatives: [][]string{phrase}}
		u.alternatives = append(u.alternatives, synonyms[stemmed(phrase)]...)
		out = append(out, u)
	}
	// The last unit may be typed so far, unless stop words follow it.
	if len(out) > 0 && len(ws) > 0 && !skip[ws[len(ws)-1]] {
		out[len(out)-1].last = true
	}
	return out
}

// stemmed joins the terms of words with spaces.
func stemmed(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return strings.Join(out, " ")
}
