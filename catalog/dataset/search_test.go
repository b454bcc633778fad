package dataset_test

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// minRecallAt3 is the share of expected records a search must rank in its
// top 3 over the relevance set.
const minRecallAt3 = 0.95

// relevanceCase is an entry of testdata/relevance.yaml: what a person
// types, the kind of query it is, and the exercises that must rank in the
// top 3. The set was written from gym vocabulary, not from the engine's
// results.
type relevanceCase struct {
	Kind string   `yaml:"kind"`
	Q    string   `yaml:"q"`
	Top3 []string `yaml:"top3"`
}

// minExtraWordsHitRate is the share of queries of the extra-words set
// that must rank one of their accepted names in the top 3;
// maxExtraWordsZeroRate the share that may find nothing.
const (
	minExtraWordsHitRate  = 0.95
	maxExtraWordsZeroRate = 0.01
)

// TestSearchRelevance reports recall@3 by query kind over the relevance
// set and fails if the whole set's is below minRecallAt3 (go test -run
// SearchRelevance -v ./catalog/dataset prints the figures and the misses).
func TestSearchRelevance(t *testing.T) {
	all := runSearchSet(t, "testdata/relevance.yaml", "recall@3", func(tc relevanceCase, got []string, k *tally) {
		for _, want := range tc.Top3 {
			k.want++
			if slices.Contains(got, want) {
				k.found++
			} else {
				t.Logf("miss (%s) %q: want %q in the top 3, got %q", tc.Kind, tc.Q, want, got)
			}
		}
	})
	if recall := all.rate(); recall < minRecallAt3 {
		t.Errorf("recall@3 is %.1f%%, want at least %.0f%%", 100*recall, 100*minRecallAt3)
	}
}

// TestSearchExtraWords reports, by query kind over the extra-words set
// (modifiers, filler and intents the catalogue does not name), the share
// of queries with any one accepted name in the top 3 and the share that
// find nothing, and fails below minExtraWordsHitRate or above
// maxExtraWordsZeroRate (go test -run SearchExtraWords -v ./catalog/dataset
// prints the figures and the misses).
func TestSearchExtraWords(t *testing.T) {
	all := runSearchSet(t, "testdata/extrawords.yaml", "hit@3", func(tc relevanceCase, got []string, k *tally) {
		k.want++
		if slices.ContainsFunc(tc.Top3, func(w string) bool { return slices.Contains(got, w) }) {
			k.found++
		} else {
			t.Logf("miss (%s) %q: want one of %q in the top 3, got %q", tc.Kind, tc.Q, tc.Top3, got)
		}
	})
	if hit := all.rate(); hit < minExtraWordsHitRate {
		t.Errorf("hit rate is %.1f%%, want at least %.0f%%", 100*hit, 100*minExtraWordsHitRate)
	}
	if zero := float64(all.empty) / float64(all.queries); zero > maxExtraWordsZeroRate {
		t.Errorf("zero-result rate is %.1f%%, want at most %.0f%%", 100*zero, 100*maxExtraWordsZeroRate)
	}
}

// tally counts, for a kind of query, the expected answers found and
// wanted, the queries and those that found nothing.
type tally struct{ found, want, queries, empty int }

func (v tally) rate() float64 { return float64(v.found) / float64(v.want) }

func (v *tally) add(o tally) {
	v.found += o.found
	v.want += o.want
	v.queries += o.queries
	v.empty += o.empty
}

func (v tally) log(t *testing.T, metric, kind string) {
	t.Helper()
	t.Logf("%s %-16s %5.1f%% (%d of %d), zero results %4.1f%% (%d of %d queries)", metric, kind,
		100*v.rate(), v.found, v.want, 100*float64(v.empty)/float64(v.queries), v.empty, v.queries)
}

// runSearchSet searches the embedded catalogue for each query of a
// relevance file (at least 300 of them, naming only records of the
// catalogue), lets score count the top 3 into the query's kind, logs the
// figures by kind and overall, and returns the overall tally.
func runSearchSet(t *testing.T, path, metric string, score func(tc relevanceCase, top3 []string, k *tally)) tally {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []relevanceCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 300 {
		t.Fatalf("%s has %d queries, want at least 300", path, len(cases))
	}
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, x := range catalogue(t).Exercises {
		names[x.Name] = true
	}
	byKind := map[string]*tally{}
	for _, tc := range cases {
		for _, want := range tc.Top3 {
			if !names[want] {
				t.Errorf("%q expects %q, which is not in the catalogue", tc.Q, want)
			}
		}
		page, err := c.List(exercise.Filter{Query: tc.Q}, exercise.PageRequest{Limit: 3})
		if err != nil {
			t.Errorf("%q: %v", tc.Q, err)
			continue
		}
		var got []string
		for _, x := range page.Exercises {
			got = append(got, x.Name)
		}
		k := byKind[tc.Kind]
		if k == nil {
			k = &tally{}
			byKind[tc.Kind] = k
		}
		k.queries++
		if len(got) == 0 {
			k.empty++
			t.Logf("no results (%s) %q", tc.Kind, tc.Q)
		}
		score(tc, got, k)
	}
	var all tally
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		byKind[k].log(t, metric, k)
		all.add(*byKind[k])
	}
	all.log(t, metric, "all")
	return all
}

// TestSearchHeads: a word that ends the names of several exercises (their
// head: "row", "fly", "squat"), searched alone, ranks exercises of that
// kind first: a "helms row" before an "indoor rowing", a "dumbbell fly"
// before a "flying knee", a "goblet squat" before a "squat jerk". It
// reports the share of such words whose top 3 are all of that head.
func TestSearchHeads(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	lastWord := func(name string) string {
		ws := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		return ws[len(ws)-1]
	}
	// A record is of the kind if its name or an alias ends with the word,
	// perhaps in the plural ("speed punches" for "punch"), before any
	// phrase a preposition starts ("plank with leg lift").
	phrase := regexp.MustCompile(` (on|with|to|over|behind|around|into|from|in) .*$`)
	// A name's head is its last word before such a phrase: "atlas stone
	// over bar" is a stone lift, not a kind of bar.
	count := map[string]int{}
	for _, x := range catalogue(t).Exercises {
		count[lastWord(phrase.ReplaceAllString(x.Name, ""))]++
	}
	// Words that end names without saying what the exercise is; "skip",
	// which is also a jump rope (synonyms.txt); "ball", an equipment.
	skip := map[string]bool{"up": true, "down": true, "over": true, "through": true, "out": true, "in": true, "off": true, "skip": true, "ball": true}
	ofKind := func(x *exercise.Exercise, w string) bool {
		for _, n := range append([]string{x.Name}, x.Aliases...) {
			if strings.HasPrefix(lastWord(n), w) || strings.HasPrefix(lastWord(phrase.ReplaceAllString(n, "")), w) {
				return true
			}
		}
		return false
	}
	var heads, good int
	for _, w := range slices.Sorted(maps.Keys(count)) {
		if count[w] < 4 || skip[w] || strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ing") {
			continue // plurals and -ing forms are heads of their stems too
		}
		heads++
		page, err := c.List(exercise.Filter{Query: w}, exercise.PageRequest{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var other []string
		for _, x := range page.Exercises {
			if !ofKind(x, w) {
				other = append(other, x.Name)
			}
		}
		if len(other) > 0 {
			t.Errorf("%q: %q in the top 3 do not end with it", w, other)
			continue
		}
		good++
	}
	t.Logf("%d of %d head words rank only their own kind in the top 3", good, heads)
}

// TestSearchSpellingsAgree checks that ways of writing the same words
// rank the same records in the same order: a word split in two or typed
// whole, with or without a hyphen.
func TestSearchSpellingsAgree(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	ids := func(q string) []string {
		page, err := c.List(exercise.Filter{Query: q}, exercise.PageRequest{Limit: exercise.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range page.Exercises {
			out = append(out, x.ID)
		}
		return out
	}
	for _, same := range [][]string{
		{"dumbbell", "dumb bell", "dumb-bell"},
		{"kettlebell swing", "kettle bell swing"},
		{"pull-up", "pull up", "pullup"},
		{"toes to bar", "toes-to-bar"},
	} {
		want := ids(same[0])
		if len(want) == 0 {
			t.Fatalf("%q found nothing", same[0])
		}
		for _, q := range same[1:] {
			if got := ids(q); !slices.Equal(got, want) {
				t.Errorf("%q ranks %q, %q ranks %q", q, got, same[0], want)
			}
		}
	}
}

// TestSearchInstead: a query that names an exercise and asks for another
// ("pull-up alternative", "instead of leg press") lists that exercise's
// alternatives in their order, less those the listing's filter leaves out.
func TestSearchInstead(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, name, equipment string }{
		{"pull up alternative", "pull-up", ""},
		{"instead of leg press", "leg press", ""},
		{"substitute for barbell bench press", "barbell bench press", "dumbbell"},
	} {
		var id string
		for x := range c.All() {
			if x.Name == tc.name {
				id = x.ID
			}
		}
		alts, err := c.Related(exercise.Alternatives, id, exercise.Filter{}, exercise.PageRequest{Limit: exercise.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, x := range alts.Exercises {
			if tc.equipment == "" || slices.Contains(x.Equipments, tc.equipment) {
				want = append(want, x.ID)
			}
		}
		f := exercise.Filter{Query: tc.q}
		if tc.equipment != "" {
			f.Equipments = []string{tc.equipment}
		}
		page, err := c.List(f, exercise.PageRequest{Limit: exercise.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range page.Exercises {
			got = append(got, x.ID)
		}
		// The first ten: the unfiltered list is cut at its page limit.
		got, want = got[:min(10, len(got))], want[:min(10, len(want))]
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%q lists %q, want the alternatives of %s %q", tc.q, got, tc.name, want)
		}
	}
}

// TestSearchNamesWhole: every name and alias, typed whole, ranks its
// record in the top 3, whatever stop words, filler or numbers it holds
// ("clean-grip pull from the floor", "touch-and-go deadlift"); an alias
// may be shared, hence not first.
func TestSearchNamesWhole(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	for x := range c.All() {
		for _, q := range append([]string{x.Name}, x.Aliases...) {
			page, err := c.List(exercise.Filter{Query: q}, exercise.PageRequest{Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(page.Exercises, func(y *exercise.Exercise) bool { return y.ID == x.ID }) {
				t.Errorf("%q does not rank %s in the top 3", q, x.Name)
			}
		}
	}
}
