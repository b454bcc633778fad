package search

import (
	"bufio"
	_ "embed" // the synonym table
	"fmt"
	"slices"
	"strings"
)

//go:embed synonyms.txt
var synonymsText string

// synonyms is the synonym table, synonyms.txt.
var synonyms = mustParseSynonyms(synonymsText)

// synonymTable is a table of the phrases people type and what they stand
// for.
type synonymTable struct {
	// of maps a phrase (its words stemmed, space-separated) to the
	// phrases it stands for.
	of map[string][][]string
	// longest is the most words of a phrase.
	longest int
	// words lists the phrases of one word as written, of minSynonymTypo
	// letters or more (see correctSynonyms), and phrases all the phrases
	// as written (see completeSynonyms).
	words   []string
	phrases [][]string
	// fillers holds the phrases that stand for nothing (stemmed): filler
	// of more than one word ("how to", "proper form", "high reps"), left
	// out of a query as stop words are.
	fillers map[string]bool
}

// synonymSounds holds the sound of each of synonyms.words, singular.
var synonymSounds = func() []string {
	out := make([]string, len(synonyms.words))
	for i, w := range synonyms.words {
		out[i] = sound(singular(w))
	}
	return out
}()

// minSynonymTypo is the length of the shortest word of the synonym table
// that a misspelt word is corrected to: "abbs" is "abs", but a word is
// no misspelt "db", "bb" or "kb".
const minSynonymTypo = 3

// mustParseSynonyms reads lines "phrase = alternative | alternative",
// or "phrase =" for filler, with # comments.
func mustParseSynonyms(text string) synonymTable {
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
	return synonymTable{of: out, longest: longest, words: one, phrases: phrases, fillers: fill}
}
