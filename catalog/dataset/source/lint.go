package source

import (
	"fmt"
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// MaxStepRepeats is how many records may share one instruction verbatim.
// A step that more records use is boilerplate: it says nothing about the
// exercise it is in.
const MaxStepRepeats = 20

// Lint reports what makes content generic rather than wrong, for the
// families in the files that only accepts (nil: every file), given the
// records that BuildPartial (or Build) made of s, in source order:
//
//   - a record without content;
//   - an equipment of the record that its description and instructions
//     never name (outside the exercise's name itself), except body weight,
//     which a text need not name: with no other load it goes without
//     saying, and next to support apparatus the apparatus is named;
//   - a word of the name that sets the variant apart from the rest of its
//     family ("incline", "single-arm", "paused") that its text never uses
//     outside the name itself, by the word or a plain synonym of it
//     (wordSynonyms: "one arm" for single-arm);
//   - an instruction used verbatim by more than MaxStepRepeats records;
//   - what a family's templates say wrongly of a variant that differs from
//     the family (coherence.go): a hold described as reps or a range, a
//     target muscle whose joint action no step performs, a muscle the
//     description says it works but the record does not list, a one-sided
//     record that never turns to the other side, a tip about an action the
//     record never does, a muscle both switched off and doing the work, and
//     gym myths.
func Lint(s *Source, records []exercise.Exercise, only func(file string) bool) []string {
	var out []string
	steps := StepUse(records)
	k := 0
	for fi := range s.Families {
		f := &s.Families[fi]
		common := commonWords(f)
		for vi := range f.Variants {
			v := &f.Variants[vi]
			x := &records[k]
			k++
			if only != nil && !only(v.Pos.File) {
				continue
			}
			where := fmt.Sprintf("%s: %q", v.Pos, v.Name)
			if x.Pattern == "" {
				out = append(out, where+": no movement pattern (set the family's pattern:)")
			}
			if x.Description == "" {
				out = append(out, where+": no content (the family has no description or instructions)")
				continue
			}
			all := strings.Join(append(append([]string{x.Description}, x.Instructions...), x.Tips...), " ")
			text := words(strings.ReplaceAll(strings.ToLower(all), v.Name, " "))
			for _, e := range x.Equipments {
				if e != bodyWeight && !mentionsAny(text, e, equipmentWords) {
					out = append(out, fmt.Sprintf("%s: never names its equipment %q outside the name", where, e))
				}
			}
			for _, w := range distinguishing(v, common) {
				if !mentionsAny(text, w, wordSynonyms) {
					out = append(out, fmt.Sprintf("%s: never uses %q, which sets it apart in its family, outside the name", where, w))
				}
			}
			for _, p := range coherence(x) {
				out = append(out, where+": "+p)
			}
			for _, st := range x.Instructions {
				if n := steps[st]; n > MaxStepRepeats {
					out = append(out, fmt.Sprintf("%s: step used verbatim by %d records (at most %d): %q", where, n, MaxStepRepeats, st))
				}
			}
		}
	}
	return out
}

// StepUse counts the records that use each instruction.
func StepUse(records []exercise.Exercise) map[string]int {
	n := map[string]int{}
	for _, x := range records {
		seen := map[string]bool{}
		for _, st := range x.Instructions {
			if !seen[st] {
				n[st]++
				seen[st] = true
			}
		}
	}
	return n
}

// BoilerplateRate is the share of instructions (counted per record) whose
// text more than MaxStepRepeats records use.
func BoilerplateRate(records []exercise.Exercise) float64 {
	use := StepUse(records)
	var all, shared int
	for _, x := range records {
		for _, st := range x.Instructions {
			all++
			if use[st] > MaxStepRepeats {
				shared++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(shared) / float64(all)
}

// stopWords never set a variant apart on their own.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "on": true, "to": true, "with": true,
	"of": true, "in": true, "for": true, "from": true, "at": true, "or": true, "up": true,
}

// bodyWeight is the equipment a text need not name.
const bodyWeight = "body weight"

// equipmentWords are how a text may name an equipment besides its name.
var equipmentWords = map[string][]string{
	"body weight":        {"body", "bodyweight"},
	"ez barbell":         {"ez bar", "ez-bar", "ez barbell"},
	"leverage machine":   {"machine"},
	"smith machine":      {"smith"},
	"resistance band":    {"band"},
	"suspension trainer": {"suspension", "straps", "handles"},
	"gymnastic rings":    {"ring"},
	"battle ropes":       {"rope"},
	"jump rope":          {"rope"},
	"plyo box":           {"box"},
	"foam roller":        {"roller"},
	"weight plate":       {"plate"},
	"stability ball":     {"ball"},
	"bosu ball":          {"bosu"},
	"medicine ball":      {"ball"},
	"dip station":        {"dip bar", "bars", "handles", "station"},
	"pull-up bar":        {"bar"},
	"trap bar":           {"trap bar", "hex bar"},
	"rowing machine":     {"rower", "rowing"},
	"stationary bike":    {"bike"},
	"elliptical trainer": {"elliptical"},
	"stair climber":      {"stair", "steps"},
	"ab wheel":           {"wheel"},
	"ski erg":            {"erg"},
	"parallettes":        {"parallette"},
	"atlas stone":        {"stone"},
	"tyre":               {"tire"},
	"climbing rope":      {"rope"},
}

// wordSynonyms are the plain words a text may use for a word of a name:
// "one arm" for single-arm, "to the side" for lateral, "backwards" for
// reverse, "foot" for feet (a plural the stemmer does not join).
var wordSynonyms = map[string][]string{
	"single":   {"one"},
	"one":      {"single"},
	"lateral":  {"side", "sideways"},
	"side":     {"lateral", "sideways"},
	"reverse":  {"backward", "backwards"},
	"backward": {"reverse", "backwards"},
	"feet":     {"foot"},
	"foot":     {"feet"},
}

// mentionsAny reports whether text holds phrase or one of the other
// words for it, others[phrase] (equipmentWords, wordSynonyms).
func mentionsAny(text, phrase string, others map[string][]string) bool {
	return mentions(text, phrase) || slices.ContainsFunc(others[phrase], func(o string) bool { return mentions(text, o) })
}

// mentions reports whether text (lower case words, space-separated, with
// spaces at both ends) holds phrase, each of its words matched by stem.
func mentions(text, phrase string) bool {
	ws := strings.Fields(words(phrase))
	for i := range ws {
		ws[i] = stem(ws[i])
	}
	return containsStems(text, ws)
}

// containsStems reports whether text holds consecutive words starting with
// the stems.
func containsStems(text string, stems []string) bool {
	tw := strings.Fields(text)
	for i := 0; i+len(stems) <= len(tw); i++ {
		ok := true
		for j, s := range stems {
			if !strings.HasPrefix(tw[i+j], s) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// stem cuts a word to a prefix that its inflections share ("paused",
// "pause", "pausing"; "alternating", "alternate").
func stem(w string) string {
	if len(w) <= 4 {
		return w
	}
	return w[:max(4, len(w)-3)]
}

// words lower-cases text and turns everything but letters and digits into
// single spaces, with a space at both ends.
func words(text string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(text) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// commonWords are the words of every variant name of a family.
func commonWords(f *Family) map[string]bool {
	var common map[string]bool
	for _, v := range f.Variants {
		ws := map[string]bool{}
		for _, w := range strings.Fields(words(v.Name)) {
			if common == nil || common[w] {
				ws[w] = true
			}
		}
		common = ws
	}
	return common
}

// distinguishing returns the words of v's name that its family's other
// names do not all have, less stop words and the words of its equipments.
// A name of one word is its own distinction: the text cannot use it
// without naming the exercise.
func distinguishing(v *Variant, common map[string]bool) []string {
	if len(strings.Fields(words(v.Name))) == 1 {
		return nil
	}
	equip := map[string]bool{}
	for _, e := range v.Equipments {
		for _, w := range strings.Fields(words(e)) {
			equip[w] = true
		}
		for _, alt := range equipmentWords[e] {
			for _, w := range strings.Fields(words(alt)) {
				equip[w] = true
			}
		}
	}
	var out []string
	for _, w := range strings.Fields(words(v.Name)) {
		if common[w] || stopWords[w] || equip[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}
