package source

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// A family's description, instructions and tips are templates filled per
// variant, so that a family's records share their structure and each says
// what makes it that variant:
//
//   - {name} is the variant's name;
//   - any other {slot} is the variant's slots[slot], else the family's
//     slots[slot];
//   - a step or tip that is nothing but one {slot} is left out when neither
//     sets the slot, or when the slot's text is empty (an optional step,
//     such as a pause only some variants have, or a family tip that a
//     variant turns off with slot: ""); a slot inside a sentence must be
//     set.
//
// A variant's about sentence follows the family's description; its tips come
// before the family's; its description or instructions, when set, replace
// the family's.
var slotPattern = regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`)

// maxSlotDepth bounds how deep slots may refer to slots.
const maxSlotDepth = 3

// capitalize upper-cases the first letter, so that a sentence may start
// with a slot or with {name}.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// proseWords are the words of exercise names that prose spells with capitals:
// proper nouns (people, places, peoples, brands) and abbreviations. Names
// themselves stay lower case (they are the API's canonical form); {name} in
// a text is written with these spellings, and with letter words in capitals
// (see proseName).
var proseWords = map[string]string{
	"american": "American", "arnold": "Arnold", "aztec": "Aztec", "bayesian": "Bayesian",
	"bharadvaja's": "Bharadvaja's", "bosu": "BOSU", "bradford": "Bradford", "bulgarian": "Bulgarian",
	"california": "California", "charleston": "Charleston", "copenhagen": "Copenhagen",
	"cossack": "Cossack", "cuban": "Cuban", "d1": "D1", "d2": "D2", "dimel": "Dimel",
	"egyptian": "Egyptian", "ez": "EZ", "frankenstein": "Frankenstein", "german": "German",
	"ghd": "GHD", "granby": "Granby", "hatfield": "Hatfield", "heisman": "Heisman", "helms": "Helms",
	"hindu": "Hindu", "it": "IT", "janda": "Janda", "jefferson": "Jefferson", "jm": "JM",
	"kas": "KAS", "korean": "Korean", "kroc": "Kroc", "larsen": "Larsen", "lu": "Lu",
	"marichi's": "Marichi's", "mcgill": "McGill", "meadows": "Meadows", "nordic": "Nordic",
	"pallof": "Pallof", "pendlay": "Pendlay", "petersen": "Petersen", "pilates": "Pilates",
	"poliquin": "Poliquin", "rkc": "RKC", "roman": "Roman", "romanian": "Romanian",
	"russian": "Russian", "smith": "Smith", "sots": "Sots", "spanish": "Spanish",
	"spiderman": "Spiderman", "spoto": "Spoto", "superman": "Superman", "svend": "Svend",
	"swiss": "Swiss", "tate": "Tate", "thomas": "Thomas", "turkish": "Turkish",
	"viking": "Viking", "yates": "Yates", "zercher": "Zercher", "zottman": "Zottman",
}

// proseName is how {name} is written in a text: the canonical name with the
// spellings of proseWords, and with letter words in capitals: a single
// letter ("z press", "warrior i pose", the last word of "sun salutation a";
// a lone "a" elsewhere is the article), a single letter joined by hyphens
// ("l-sit", "t-bar row", "i-y-t raise") and the numerals "ii" and "iii".
func proseName(name string) string {
	ws := strings.Split(name, " ")
	for i, w := range ws {
		switch {
		case proseWords[w] != "":
			ws[i] = proseWords[w]
		case w == "ii" || w == "iii":
			ws[i] = strings.ToUpper(w)
		case w == "a":
			if i == len(ws)-1 {
				ws[i] = "A"
			}
		default:
			parts := strings.Split(w, "-")
			for j, p := range parts {
				if len(p) == 1 && p[0] >= 'a' && p[0] <= 'z' {
					parts[j] = strings.ToUpper(p)
				}
			}
			ws[i] = strings.Join(parts, "-")
		}
	}
	return strings.Join(ws, " ")
}

// content renders the content of variant v of family f into x and reports
// structural problems (counts, empty or unfinished sentences, unset and
// unused slots). With partial set, a variant of a family that has no
// content yet is left without content instead of being a problem.
func (b *builder) content(where string, f *Family, v *Variant, x *exercise.Exercise) {
	if b.partial && f.Description == "" && len(f.Instructions) == 0 && v.Description == "" && len(v.Instructions) == 0 {
		return
	}
	used := map[string]bool{}
	fill := func(field, tmpl string, optional bool) (string, bool) {
		if m := slotPattern.FindStringSubmatch(tmpl); optional && m != nil && m[0] == strings.TrimSpace(tmpl) {
			used[m[1]] = true
			if text, ok := slot(f, v, m[1]); !ok || text == "" {
				return "", false
			}
		}
		// A slot's text may use other slots: expand a few levels deep.
		out := tmpl
		for range maxSlotDepth {
			if !slotPattern.MatchString(out) {
				break
			}
			out = slotPattern.ReplaceAllStringFunc(out, func(s string) string {
				name := s[1 : len(s)-1]
				if name == "name" {
					return proseName(v.Name)
				}
				used[name] = true
				text, ok := slot(f, v, name)
				if !ok {
					b.problems.add("%s: %s: slot {%s} is set neither by the variant nor by the family", where, field, name)
				}
				return text
			})
		}
		if m := slotPattern.FindString(out); m != "" {
			b.problems.add("%s: %s: slots nested more than %d deep at %s", where, field, maxSlotDepth, m)
		}
		return capitalize(out), true
	}
	desc := cmp.Or(v.Description, f.Description)
	x.Description, _ = fill("description", desc, false)
	if v.About != "" {
		about, _ := fill("about", v.About, false)
		x.Description = strings.TrimSpace(x.Description + " " + about)
	}
	steps := f.Instructions
	if v.Instructions != nil {
		steps = v.Instructions
	}
	x.Instructions = []string{}
	for i, t := range steps {
		if s, ok := fill(fmt.Sprintf("instructions[%d]", i), t, true); ok {
			x.Instructions = append(x.Instructions, s)
		}
	}
	x.Tips = []string{}
	for i, t := range append(append([]string{}, v.Tips...), f.Tips...) {
		if s, ok := fill(fmt.Sprintf("tips[%d]", i), t, true); ok {
			x.Tips = append(x.Tips, s)
		}
	}
	x.Aliases = append([]string{}, v.Aliases...)
	// A variant slot no template mentions is a typo (or left over).
	for _, t := range append(append(append([]string{f.Description, v.Description, v.About}, f.Instructions...), f.Tips...), v.Tips...) {
		markSlots(used, t)
	}
	for _, t := range f.Slots {
		markSlots(used, t)
	}
	for _, t := range v.Slots {
		markSlots(used, t)
	}
	for name := range v.Slots {
		if !used[name] {
			b.problems.add("%s: slots: %q is used by no template of the family", where, name)
		}
	}
	b.checkContent(where, x)
}

func markSlots(used map[string]bool, tmpl string) {
	for _, m := range slotPattern.FindAllStringSubmatch(tmpl, -1) {
		used[m[1]] = true
	}
}

func slot(f *Family, v *Variant, name string) (string, bool) {
	if t, ok := v.Slots[name]; ok {
		return t, true
	}
	t, ok := f.Slots[name]
	return t, ok
}

// checkContent reports what the catalogue file would refuse, with the
// source position, and the sentence rules the file does not check.
func (b *builder) checkContent(where string, x *exercise.Exercise) {
	if n := sentences(x.Description); n < 1 || n > 3 {
		b.problems.add("%s: description: %d sentences, want 1 to 3", where, n)
	}
	count := func(field string, got, lo, hi int) {
		if got < lo || got > hi {
			b.problems.add("%s: %s: %d, want %d to %d", where, field, got, lo, hi)
		}
	}
	count("instructions", len(x.Instructions), exercise.MinInstructions, exercise.MaxInstructions)
	count("tips", len(x.Tips), exercise.MinTips, exercise.MaxTips)
	check := func(field, text string) {
		switch {
		case strings.TrimSpace(text) == "":
			b.problems.add("%s: %s: empty", where, field)
		case len(text) > exercise.MaxTextLength:
			b.problems.add("%s: %s: longer than %d bytes", where, field, exercise.MaxTextLength)
		case text != strings.TrimSpace(text) || strings.Contains(text, "  "):
			b.problems.add("%s: %s: stray spaces in %q", where, field, text)
		case !strings.ContainsAny(text[len(text)-1:], ".!?"):
			b.problems.add("%s: %s: does not end a sentence: %q", where, field, text)
		case strings.ToUpper(text[:1]) != text[:1]:
			b.problems.add("%s: %s: does not start with a capital: %q", where, field, text)
		}
	}
	check("description", x.Description)
	for i, s := range x.Instructions {
		check(fmt.Sprintf("instructions[%d]", i), s)
	}
	for i, s := range x.Tips {
		check(fmt.Sprintf("tips[%d]", i), s)
	}
	for i, a := range x.Aliases {
		if exercise.Canonical(a) != a || a == "" {
			b.problems.add("%s: aliases[%d]: %q is not canonical (lower case, single spaces)", where, i, a)
		}
	}
}

// sentences counts the sentences of a text: its ends of sentence.
func sentences(text string) int {
	n := 0
	for i := 0; i < len(text); i++ {
		if strings.IndexByte(".!?", text[i]) >= 0 && (i+1 == len(text) || text[i+1] == ' ') {
			n++
		}
	}
	return n
}
