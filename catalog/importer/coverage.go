package importer

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// ReadNames returns the exercise names of a dataset, as Import would read
// it: every record of free-exercise-db, every wger exercise's translation
// in language (DefaultLanguage if empty).
func ReadNames(source, path, language string) ([]string, error) {
	switch source {
	case FreeExerciseDB:
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return freeExerciseDBNames(bytes.NewReader(data))
	case Wger:
		return wgerNames(os.DirFS(path), language)
	}
	return nil, fmt.Errorf("unknown source %q: want one of %s", source, strings.Join(Sources, ", "))
}

// Coverage says how many of a dataset's names the catalogue holds.
type Coverage struct {
	// Catalogue is the number of exercises in the catalogue compared with.
	Catalogue int `json:"catalogueExercises"`
	// Names is the number of names compared (one per source record).
	Names int `json:"names"`
	// Exact counts the names whose exercise.SearchKey equals that of a
	// catalogue name.
	Exact int `json:"exact"`
	// Loose counts the names that match exactly or whose LooseKey equals
	// that of a catalogue name. Loose >= Exact.
	Loose int `json:"loose"`
	// LooseOnly lists the names that match loosely but not exactly, with
	// the catalogue name they match.
	LooseOnly []LooseMatch `json:"looseOnly"`
	// Unmatched lists the names that match neither way, in source order.
	Unmatched []string `json:"unmatched"`
	// Words counts the words of the unmatched names (see CommonWords).
	Words []WordCount `json:"commonWords"`
}

// LooseMatch is a name that only matches loosely.
type LooseMatch struct {
	Name      string `json:"name"`
	Catalogue string `json:"catalogue"`
}

// WordCount is a word and the number of names it occurs in.
type WordCount struct {
	Word  string `json:"word"`
	Names int    `json:"names"`
}

// ExactPercent and LoosePercent give the figures as percentages of Names.
func (c *Coverage) ExactPercent() float64 { return percent(c.Exact, c.Names) }

// LoosePercent is Loose as a percentage of Names.
func (c *Coverage) LoosePercent() float64 { return percent(c.Loose, c.Names) }

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// MeasureCoverage compares names with the names of the catalogue f.
func MeasureCoverage(names []string, f *exercise.File) *Coverage {
	exact := make(map[string]bool, len(f.Exercises))
	loose := make(map[string]string, len(f.Exercises))
	for _, x := range f.Exercises {
		exact[exercise.SearchKey(x.Name)] = true
		if k := LooseKey(x.Name); k != "" {
			if _, ok := loose[k]; !ok {
				loose[k] = x.Name
			}
		}
	}
	c := &Coverage{Catalogue: len(f.Exercises), Names: len(names), LooseOnly: []LooseMatch{}, Unmatched: []string{}}
	for _, n := range names {
		if exact[exercise.SearchKey(n)] {
			c.Exact++
			c.Loose++
			continue
		}
		if m, ok := loose[LooseKey(n)]; ok && LooseKey(n) != "" {
			c.Loose++
			c.LooseOnly = append(c.LooseOnly, LooseMatch{Name: n, Catalogue: m})
			continue
		}
		c.Unmatched = append(c.Unmatched, n)
	}
	c.Words = CommonWords(c.Unmatched)
	return c
}

// LooseKey is the looser matching key: the name without parenthesised
// text and without anything after a spaced dash (free-exercise-db's
// qualifiers: "Barbell Bench Press - Medium Grip", "Kettlebell Turkish
// Get-Up (Lunge style)"), each word without a plural "s" (not "ss"), then
// joined as exercise.SearchKey joins them. "Pushups", "Push-Ups - Close
// Triceps Position" and "push-up" have the same loose key "pushup". It
// applies the same way to both sides and uses no synonyms.
func LooseKey(name string) string {
	s := strings.ToLower(name)
	for {
		open := strings.IndexByte(s, '(')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open:], ')')
		if end < 0 {
			s = s[:open]
			break
		}
		s = s[:open] + " " + s[open+end+1:]
	}
	if i := strings.Index(s, " - "); i >= 0 {
		s = s[:i]
	}
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, notAlnum) {
		if len(w) >= 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		b.WriteString(w)
	}
	return exercise.SearchKey(b.String())
}

// stopWords are left out of CommonWords: they say nothing about what the
// catalogue lacks.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "on": true, "to": true, "with": true,
	"of": true, "in": true, "or": true, "at": true, "for": true, "from": true, "into": true,
}

// CommonWords counts, for every lower-case word, the names it occurs in
// (words split at anything but letters and digits; one-letter words and
// stopWords left out), most frequent first, then alphabetically.
func CommonWords(names []string) []WordCount {
	counts := map[string]int{}
	for _, n := range names {
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			if len([]rune(w)) < 2 || stopWords[w] || seen[w] {
				continue
			}
			seen[w] = true
			counts[w]++
		}
	}
	out := make([]WordCount, 0, len(counts))
	for _, w := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, WordCount{Word: w, Names: counts[w]})
	}
	slices.SortStableFunc(out, func(a, b WordCount) int { return cmp.Compare(b.Names, a.Names) })
	return out
}

// WriteText writes the figures, then the loose-only matches, the unmatched
// names and the top most common words among them (all if top <= 0).
func (c *Coverage) WriteText(w io.Writer, source string, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s names found in the catalogue (%d exercises):\n", source, c.Catalogue)
	fmt.Fprintf(&b, "  exact (exercise.SearchKey):   %4d of %d (%.1f%%)\n", c.Exact, c.Names, c.ExactPercent())
	fmt.Fprintf(&b, "  loose (qualifiers, plurals):  %4d of %d (%.1f%%)\n", c.Loose, c.Names, c.LoosePercent())
	fmt.Fprintf(&b, "matched only loosely (%d):\n", len(c.LooseOnly))
	for _, m := range c.LooseOnly {
		fmt.Fprintf(&b, "  %s ~ %s\n", m.Name, m.Catalogue)
	}
	fmt.Fprintf(&b, "unmatched (%d):\n", len(c.Unmatched))
	for _, n := range c.Unmatched {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	words := c.Words
	if top > 0 && len(words) > top {
		words = words[:top]
	}
	fmt.Fprintf(&b, "most common words among the unmatched names (names containing the word):\n")
	for _, wc := range words {
		fmt.Fprintf(&b, "  %-16s %4d\n", wc.Word, wc.Names)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
