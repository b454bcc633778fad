package exercise

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
)

// MaxNameLength bounds the name search text, in characters.
const MaxNameLength = 100

// MaxFilterValues bounds the values one filter field may hold, blank ones
// not counted: every vocabulary is far smaller, so more is padding, which
// would only cost time. The gateway bounds its filter parameters alike.
const MaxFilterValues = 100

// Filter selects exercises. Values within one field are alternatives (any
// of); fields are all required (all of). Values are matched after
// Canonical, blank values are dropped, and a field left with none is
// absent. Every value must belong to the field's vocabulary, and a field
// holds at most MaxFilterValues values.
type Filter struct {
	BodyParts        []string
	Equipments       []string
	Difficulties     []string
	ExerciseTypes    []string
	TargetMuscles    []string
	SecondaryMuscles []string
	// The training fields: each keeps the exercises whose training has
	// any of the values.
	MovementPatterns []string
	Mechanics        []string
	Forces           []string
	Lateralities     []string
	Measures         []string
	// Name keeps exercises whose name contains it, compared by SearchKey:
	// case, spaces and punctuation do not matter.
	Name string
	// Query, when set, keeps the exercises that a search for it finds,
	// ranked best first (see search): the listing is then a ranked list.
	Query string
}

// fieldSpec ties a Filter field to its index and vocabulary.
type fieldSpec struct {
	index int
	field string
	noun  string // a value of this field, in an error message
}

var filterFields = [numIndexedFields]fieldSpec{
	{byBodyPart, FieldBodyParts, "body part"},
	{byEquipment, FieldEquipments, "equipment"},
	{byDifficulty, FieldDifficulties, "difficulty"},
	{byExerciseType, FieldExerciseTypes, "exercise type"},
	{byTargetMuscle, FieldTargetMuscles, "muscle"},
	{bySecondaryMuscle, FieldSecondaryMuscles, "muscle"},
	{byMovementPattern, FieldMovementPatterns, "movement pattern"},
	{byMechanics, FieldMechanics, "mechanics value"},
	{byForce, FieldForce, "force"},
	{byLaterality, FieldLaterality, "laterality"},
	{byMeasure, FieldMeasure, "measure"},
}

func (f *Filter) values(index int) []string {
	switch index {
	case byBodyPart:
		return f.BodyParts
	case byEquipment:
		return f.Equipments
	case byDifficulty:
		return f.Difficulties
	case byExerciseType:
		return f.ExerciseTypes
	case byTargetMuscle:
		return f.TargetMuscles
	case bySecondaryMuscle:
		return f.SecondaryMuscles
	case byMovementPattern:
		return f.MovementPatterns
	case byMechanics:
		return f.Mechanics
	case byForce:
		return f.Forces
	case byLaterality:
		return f.Lateralities
	default:
		return f.Measures
	}
}

// resolve returns the positions of the exercises that f selects, reporting
// unknown values into bad, and a key that identifies the selection (the
// same for filters that select by the same canonical values). The result is
// shared and must not be modified.
func (c *Catalogue) resolve(f *Filter, bad *ArgumentError) (*roaring.Bitmap, string) {
	// Canonical terms: one group of bitmaps (to be OR-ed) per field in use.
	var groups [][]*roaring.Bitmap
	var key strings.Builder
	for _, spec := range filterFields {
		values := f.values(spec.index)
		if extra, n := beyondBound(values); n > MaxFilterValues {
			bad.add(spec.field, extra, "is one value too many: a field holds at most %d values, and this one has %d", MaxFilterValues, n)
			continue
		}
		var group []*roaring.Bitmap
		var names []string
		for _, raw := range values {
			v := Canonical(raw)
			if v == "" || slices.Contains(names, v) {
				continue
			}
			b, ok := c.postings[spec.index][v]
			if !ok {
				bad.add(spec.field, raw, "is not a known %s%s", spec.noun, c.allowedHint(spec.index))
				bad.Violations[len(bad.Violations)-1].Reason = ReasonUnknownValue
				continue
			}
			names = append(names, v)
			group = append(group, b)
		}
		if len(group) == 0 {
			continue
		}
		groups = append(groups, group)
		slices.Sort(names)
		key.WriteString(spec.field)
		key.WriteByte('=')
		key.WriteString(strings.Join(names, ","))
		key.WriteByte(';')
	}
	if !checkName(f.Name, bad) {
		return nil, ""
	}
	name := SearchKey(f.Name)
	if len(bad.Violations) > 0 {
		return nil, ""
	}
	key.WriteString("name=")
	key.WriteString(name)
	k := key.String()
	switch {
	case len(groups) == 0 && name == "":
		return c.all, k
	case len(groups) == 1 && len(groups[0]) == 1 && name == "":
		return groups[0][0], k // a posting list as it is: nothing to compute
	}
	if b, ok := c.resolved.Get(k); ok {
		return b, k
	}
	b := c.compute(groups, name)
	c.resolved.Add(k, b, int(b.GetSizeInBytes())+len(k))
	return b, k
}

// beyondBound returns the number of values that are not blank, and the
// first of them beyond MaxFilterValues, if any.
func beyondBound(values []string) (string, int) {
	var extra string
	n := 0
	for _, v := range values {
		if strings.TrimSpace(v) == "" {
			continue
		}
		n++
		if n == MaxFilterValues+1 {
			extra = v
		}
	}
	return extra, n
}

// checkName reports what makes a name search unusable, and reports whether
// it is usable (see checkText). A name of spaces only is blank, and counts
// as absent, as a blank filter value does; a name of other characters
// only (punctuation, emoji) would match every exercise, so it is refused
// rather than return the catalogue unfiltered.
func checkName(name string, bad *ArgumentError) bool {
	blank := strings.TrimSpace(name) == ""
	return checkText(FieldName, name, MaxNameLength, blank || SearchKey(name) != "", "to match", bad)
}

// checkText reports what makes the text s of field unusable, and reports
// whether it is usable: not valid UTF-8, longer than max characters,
// control characters, or, without letters, no letter or digit to look
// for (the message says what for).
func checkText(field, s string, max int, letters bool, what string, bad *ArgumentError) bool {
	switch {
	case !utf8.ValidString(s):
		bad.add(field, s, "is not valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		bad.add(field, s, "is longer than %d characters", max)
	case strings.ContainsFunc(s, unicode.IsControl):
		bad.add(field, s, "contains control characters")
	case !letters:
		bad.add(field, s, "has no letters or digits %s", what)
	default:
		return true
	}
	return false
}

// compute intersects the unions of groups with the name matches.
func (c *Catalogue) compute(groups [][]*roaring.Bitmap, name string) *roaring.Bitmap {
	sets := make([]*roaring.Bitmap, 0, len(groups)+1)
	for _, g := range groups {
		if len(g) == 1 {
			sets = append(sets, g[0])
		} else {
			sets = append(sets, roaring.FastOr(g...))
		}
	}
	if name != "" {
		sets = append(sets, c.nameMatches(name))
	}
	var out *roaring.Bitmap
	if len(sets) == 1 {
		out = sets[0].Clone()
	} else {
		// Smallest first keeps every intermediate result small.
		slices.SortFunc(sets, func(a, b *roaring.Bitmap) int {
			return int(a.GetCardinality()) - int(b.GetCardinality())
		})
		out = roaring.FastAnd(sets...)
	}
	out.RunOptimize()
	return out
}

// nameMatches returns the positions whose name key contains key. Keys of
// three bytes or more narrow the candidates with the trigram index first.
func (c *Catalogue) nameMatches(key string) *roaring.Bitmap {
	candidates := c.all
	if len(key) >= 3 {
		grams := make([]*roaring.Bitmap, 0, len(key)-2)
		for i := 0; i+3 <= len(key); i++ {
			b, ok := c.trigrams[key[i:i+3]]
			if !ok {
				return roaring.New()
			}
			grams = append(grams, b)
		}
		candidates = roaring.FastAnd(grams...)
		if len(key) == 3 {
			return candidates
		}
	}
	out := roaring.New()
	it := candidates.Iterator()
	for it.HasNext() {
		pos := it.Next()
		if strings.Contains(c.nameKeys[pos], key) {
			out.Add(pos)
		}
	}
	return out
}

// allowedHint lists the allowed values of a vocabulary that has no
// reference list of its own to point to.
func (c *Catalogue) allowedHint(index int) string {
	var terms []Term
	switch index {
	case byDifficulty:
		terms = c.vocab.Difficulties
	case byMechanics:
		terms = c.vocab.Mechanics
	case byForce:
		terms = c.vocab.Forces
	case byLaterality:
		terms = c.vocab.Lateralities
	case byMeasure:
		terms = c.vocab.Measures
	default:
		return ""
	}
	if len(terms) == 0 {
		return " (this catalogue has no training fields)"
	}
	return " (one of: " + strings.Join(Names(terms), ", ") + ")"
}
