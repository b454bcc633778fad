package importer

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// Source names, as Import and the catalogimport -from flag take them.
const (
	FreeExerciseDB = "free-exercise-db"
	Wger           = "wger"
)

// Sources lists the source names Import accepts.
var Sources = []string{FreeExerciseDB, Wger}

// Defaults of Options.
const (
	// DefaultDifficulty is given to records whose source has no difficulty
	// (wger has none): the middle of our scale, claiming neither way.
	DefaultDifficulty = "intermediate"
	// DefaultLanguage is the wger language whose translations name the
	// exercises.
	DefaultLanguage = "en"
)

// Options configure an import.
type Options struct {
	// Vocabularies are the closed lists the source is mapped onto, and the
	// vocabularies of the file produced. Nil means our catalogue's
	// (DefaultVocabularies). Every value the mapping tables name must be
	// declared in them.
	Vocabularies *exercise.Vocabularies
	// Difficulty is given to records whose source has no difficulty;
	// empty means DefaultDifficulty.
	Difficulty string
	// Language is the short name (languages export) of the wger language
	// whose translations name the exercises; empty means DefaultLanguage.
	Language string
}

// DefaultVocabularies returns the vocabularies of the embedded catalogue
// (dataset.Default()), which importers map onto.
func DefaultVocabularies() (*exercise.Vocabularies, error) {
	f, err := exercise.Decode(bytes.NewReader(dataset.Default()))
	if err != nil {
		return nil, fmt.Errorf("embedded catalogue: %w", err)
	}
	return &f.Vocabularies, nil
}

// Import converts the dataset at path: the exercises.json file for
// free-exercise-db, the directory of exports for wger. The file it returns
// has no exercises when nothing could be mapped; exercise.Decode refuses
// such a file, so check len(f.Exercises) before writing it.
func Import(source, path string, opt Options) (*exercise.File, *Report, error) {
	var (
		f   *exercise.File
		rep *Report
		err error
	)
	switch source {
	case FreeExerciseDB:
		var data []byte
		if data, err = os.ReadFile(path); err != nil {
			return nil, nil, err
		}
		f, rep, err = ImportFreeExerciseDB(bytes.NewReader(data), opt)
	case Wger:
		var st os.FileInfo
		if st, err = os.Stat(path); err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			return nil, nil, fmt.Errorf("%s: wger input must be the directory holding its exports", path)
		}
		f, rep, err = ImportWger(os.DirFS(path), opt)
	default:
		return nil, nil, fmt.Errorf("unknown source %q: want one of %s", source, strings.Join(Sources, ", "))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	rep.Input = path
	return f, rep, nil
}

// Fields of a source record, as the report names them.
const (
	FieldLevel      = "level"
	FieldCategory   = "category"
	FieldEquipment  = "equipment"
	FieldMuscle     = "muscle"
	FieldDifficulty = "difficulty"
)

// fieldOrder orders the report's value list.
var fieldOrder = []string{FieldLevel, FieldCategory, FieldEquipment, FieldMuscle}

// Reasons a record is skipped. A record is skipped for every reason that
// applies, except the last two, which are only checked for records that
// could otherwise be kept.
const (
	ReasonNameMissing          = "name missing"
	ReasonTranslationMissing   = "translation missing"
	ReasonTargetMuscleMissing  = "target muscle missing"
	ReasonTargetMuscleUnmapped = "target muscle unmapped"
	ReasonEquipmentMissing     = "equipment missing"
	ReasonEquipmentUnmapped    = "equipment unmapped"
	ReasonExerciseTypeMissing  = "exercise type missing"
	ReasonExerciseTypeUnmapped = "exercise type unmapped"
	ReasonDifficultyUnmapped   = "difficulty unmapped"
	ReasonDuplicateName        = "duplicate name"
	ReasonIDCollision          = "id collision"
)

// record is a source record reduced to what the mapping reads. Values are
// the source's own, not yet mapped.
type record struct {
	sourceID  string
	name      string // "" when missing
	primary   []string
	secondary []string
	equipment []string
	category  []string
	level     string // "" when the source has none
	// noTranslation marks a wger exercise without a translation in the
	// chosen language.
	noTranslation bool
	attribution   *Attribution
}

// mapping holds a source's tables: source value → our value(s). A value
// absent from its table is unmapped. Name rules are tried first.
type mapping struct {
	levels     map[string]string
	categories map[string][]string
	equipments map[string][]string
	muscles    map[string][]string
	rules      []nameRule
}

// nameRule refines a source value by the exercise name: when the record's
// field holds one of values (any value if values is empty) and the name
// contains one of phrases as whole words, the value maps to to instead of
// its table entry. Rules are tried in order; the first that applies wins.
type nameRule struct {
	field   string
	values  []string
	phrases []string
	to      []string
}

// label names the rule in the report.
func (r nameRule) label() string {
	q := make([]string, len(r.phrases))
	for i, p := range r.phrases {
		q[i] = fmt.Sprintf("%q", p)
	}
	return "name has " + strings.Join(q, " or ")
}

func (r nameRule) applies(field, value, words string) bool {
	if r.field != field || len(r.values) > 0 && !slices.Contains(r.values, value) {
		return false
	}
	return slices.ContainsFunc(r.phrases, func(p string) bool {
		return strings.Contains(words, " "+nameWords(p)+" ")
	})
}

// nameWords returns the lower-case words of a name, split at anything that
// is not a letter or a digit and joined by single spaces: "Pull-Ups, Wide"
// gives "pull ups wide".
func nameWords(name string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(name), notAlnum), " ")
}

// lookup maps one source value. It returns nil if the value is unmapped,
// and the label of the name rule that applied, if any.
func (m *mapping) lookup(field, value, words string) (to []string, rule string) {
	for _, r := range m.rules {
		if r.applies(field, value, words) {
			return r.to, r.label()
		}
	}
	var table map[string][]string
	switch field {
	case FieldCategory:
		table = m.categories
	case FieldEquipment:
		table = m.equipments
	case FieldMuscle:
		table = m.muscles
	case FieldLevel:
		if v, ok := m.levels[value]; ok {
			return []string{v}, ""
		}
		return nil, ""
	}
	return table[value], ""
}

// check verifies that every value the tables name is declared.
func (m *mapping) check(v *vocab) error {
	var errs []error
	bad := func(field, from string, to []string, declared map[string]bool, vocabulary string) {
		for _, t := range to {
			if !declared[t] {
				errs = append(errs, fmt.Errorf("%s %q maps to %q, which vocabularies.%s does not declare", field, from, t, vocabulary))
			}
		}
	}
	for from, to := range m.levels {
		bad(FieldLevel, from, []string{to}, v.difficulties, "difficulties")
	}
	for from, to := range m.categories {
		bad(FieldCategory, from, to, v.types, "exerciseTypes")
	}
	for from, to := range m.equipments {
		bad(FieldEquipment, from, to, v.equipments, "equipments")
	}
	for from, to := range m.muscles {
		bad(FieldMuscle, from, to, v.muscles, "muscles")
	}
	for _, r := range m.rules {
		declared, vocabulary := v.equipments, "equipments"
		switch r.field {
		case FieldCategory:
			declared, vocabulary = v.types, "exerciseTypes"
		case FieldMuscle:
			declared, vocabulary = v.muscles, "muscles"
		}
		bad(r.field, r.label(), r.to, declared, vocabulary)
	}
	return errors.Join(errs...)
}

// vocab indexes the vocabularies mapped onto.
type vocab struct {
	muscles, equipments, types, difficulties map[string]bool
	bodyPartOf                               map[string]string
	bodyPartRank                             map[string]int
}

func newVocab(v *exercise.Vocabularies) *vocab {
	set := func(names []string) map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	out := &vocab{
		muscles:      set(exercise.Names(v.Muscles)),
		equipments:   set(exercise.Names(v.Equipments)),
		types:        set(exercise.Names(v.ExerciseTypes)),
		difficulties: set(exercise.Names(v.Difficulties)),
		bodyPartOf:   make(map[string]string, len(v.Muscles)),
		bodyPartRank: make(map[string]int, len(v.BodyParts)),
	}
	for _, m := range v.Muscles {
		out.bodyPartOf[m.Name] = m.BodyPart
	}
	for i, b := range v.BodyParts {
		out.bodyPartRank[b.Name] = i
	}
	return out
}

// bodyPartsOf returns the body parts of muscles in vocabulary order, as the
// catalogue generator derives them.
func (v *vocab) bodyPartsOf(muscles []string) []string {
	var parts []string
	for _, m := range muscles {
		if bp, ok := v.bodyPartOf[m]; ok && !slices.Contains(parts, bp) {
			parts = append(parts, bp)
		}
	}
	slices.SortFunc(parts, func(a, b string) int { return cmp.Compare(v.bodyPartRank[a], v.bodyPartRank[b]) })
	return parts
}

// mapped is the result of mapping one field of one record.
type mapped struct {
	values   []string // our values, without repeats, in source order
	unmapped []string // source values without a mapping
}

// convert maps records onto the vocabularies and builds the file and the
// report.
func convert(source string, recs []record, m *mapping, opt Options) (*exercise.File, *Report, error) {
	if opt.Vocabularies == nil {
		var err error
		if opt.Vocabularies, err = DefaultVocabularies(); err != nil {
			return nil, nil, err
		}
	}
	v := newVocab(opt.Vocabularies)
	if err := m.check(v); err != nil {
		return nil, nil, fmt.Errorf("%s mapping tables do not fit the vocabularies:\n%w", source, err)
	}
	difficulty := cmp.Or(opt.Difficulty, DefaultDifficulty)
	if !v.difficulties[difficulty] {
		return nil, nil, fmt.Errorf("difficulty %q is not in vocabularies.difficulties (%s)",
			difficulty, strings.Join(exercise.Names(opt.Vocabularies.Difficulties), ", "))
	}

	rep := newReport(source, len(recs))
	f := &exercise.File{Format: exercise.FormatV1, Vocabularies: *opt.Vocabularies, Exercises: []exercise.Exercise{}}
	type kept struct{ name, sourceID string }
	byKey := make(map[string]kept, len(recs))
	byID := make(map[string]string, len(recs)) // id → search key
	defaulted := 0
	for i := range recs {
		r := &recs[i]
		t := rep.tally()
		words := " " + nameWords(r.name) + " "
		field := func(name string, values []string) mapped {
			var out mapped
			for _, sv := range values {
				to, rule := m.lookup(name, sv, words)
				t.count(name, sv, rule, to)
				if to == nil {
					out.unmapped = append(out.unmapped, sv)
					continue
				}
				for _, x := range to {
					if !slices.Contains(out.values, x) {
						out.values = append(out.values, x)
					}
				}
			}
			return out
		}

		var reasons, details []string
		required := func(res mapped, n int, missing, unmapped, label string) {
			switch {
			case n == 0:
				reasons = append(reasons, missing)
			case len(res.values) == 0:
				reasons = append(reasons, unmapped)
			}
			for _, u := range res.unmapped {
				details = append(details, fmt.Sprintf("%s %q unmapped", label, u))
			}
		}

		name := exercise.Canonical(r.name)
		switch {
		case r.noTranslation:
			reasons = append(reasons, ReasonTranslationMissing)
		case exercise.SearchKey(name) == "":
			reasons = append(reasons, ReasonNameMissing)
		}
		levels := field(FieldLevel, nonEmpty(r.level))
		categories := field(FieldCategory, r.category)
		equipments := field(FieldEquipment, r.equipment)
		targets := field(FieldMuscle, r.primary)
		secondary := field(FieldMuscle, r.secondary)
		required(targets, len(r.primary), ReasonTargetMuscleMissing, ReasonTargetMuscleUnmapped, "target muscle")
		required(equipments, len(r.equipment), ReasonEquipmentMissing, ReasonEquipmentUnmapped, "equipment")
		required(categories, len(r.category), ReasonExerciseTypeMissing, ReasonExerciseTypeUnmapped, "category")
		level := difficulty
		if r.level != "" {
			if len(levels.values) == 0 {
				reasons = append(reasons, ReasonDifficultyUnmapped)
				details = append(details, fmt.Sprintf("level %q unmapped", r.level))
			} else {
				level = levels.values[0]
			}
		}
		for _, u := range secondary.unmapped {
			details = append(details, fmt.Sprintf("secondary muscle %q unmapped", u))
		}

		skip := func(reasons []string, details []string) {
			rep.skip(Skip{SourceID: r.sourceID, Name: r.name, Reasons: reasons, Detail: strings.Join(details, "; ")})
		}
		if len(reasons) > 0 {
			skip(reasons, details)
			continue
		}
		key := exercise.SearchKey(name)
		if k, dup := byKey[key]; dup {
			skip([]string{ReasonDuplicateName}, []string{fmt.Sprintf("same search key as %q (source id %s), which is kept", k.name, k.sourceID)})
			continue
		}
		id := exercise.IDFor(name)
		if other, dup := byID[id]; dup {
			skip([]string{ReasonIDCollision}, []string{fmt.Sprintf("id %s is also derived from %q", id, byKey[other].name)})
			continue
		}
		byKey[key] = kept{name: r.name, sourceID: r.sourceID}
		byID[id] = key
		if r.level == "" {
			defaulted++
		}
		x := exercise.Exercise{
			ID:               id,
			Name:             name,
			BodyParts:        v.bodyPartsOf(targets.values),
			Equipments:       equipments.values,
			ExerciseTypes:    categories.values,
			Difficulty:       level,
			TargetMuscles:    targets.values,
			SecondaryMuscles: slices.DeleteFunc(secondary.values, func(s string) bool { return slices.Contains(targets.values, s) }),
		}
		if x.SecondaryMuscles == nil {
			x.SecondaryMuscles = []string{}
		}
		f.Exercises = append(f.Exercises, x)
		if r.attribution != nil {
			a := *r.attribution
			a.ID, a.Name = id, name
			rep.attribute(a)
		}
	}
	if defaulted > 0 {
		rep.Filled = append(rep.Filled, Filled{
			Field: FieldDifficulty, Value: difficulty, Records: defaulted,
			Reason: "the source has no difficulty",
		})
	}
	rep.finish(len(f.Exercises))
	return f, rep, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
