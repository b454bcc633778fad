package source

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// Generate reads the source in fsys, builds the catalogue and encodes it
// with exercise.Encode. The encoded bytes are decoded again with
// exercise.Decode, so what it returns is a file the service accepts; the
// returned File is that decoded form.
func Generate(fsys fs.FS) (*exercise.File, []byte, error) {
	src, err := Read(fsys)
	if err != nil {
		return nil, nil, err
	}
	built, err := src.Build()
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := exercise.Encode(&buf, built); err != nil {
		return nil, nil, fmt.Errorf("encode catalogue: %w", err)
	}
	f, err := exercise.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		// Build checks more than Decode does, so this is a bug in Build.
		return nil, nil, fmt.Errorf("generated catalogue does not validate: %w", err)
	}
	return f, buf.Bytes(), nil
}

// Build expands the families into a catalogue file. Each variant becomes one
// record whose body parts are those of its target muscles and whose media
// key is "exercises/<id>". Build reports every problem it finds: values
// outside the vocabularies, names that are not canonical, names equal under
// exercise.SearchKey, colliding ids, and a muscle that is both a target and
// a secondary muscle of a record.
func (s *Source) Build() (*exercise.File, error) { return s.build(false) }

// BuildPartial is Build for a source whose content is still being written:
// a family without content templates yields records without content. Its
// result is for linting, not for the service.
func (s *Source) BuildPartial() (*exercise.File, error) { return s.build(true) }

func (s *Source) build(partial bool) (*exercise.File, error) {
	var p problems
	b := builder{
		vocab:    newVocabulary(&s.Vocabularies, &p),
		problems: &p,
		partial:  partial,
		names:    make(map[string]*Variant),
		ids:      make(map[string]*Variant),
		aliases:  make(map[string]*Variant),
	}
	b.families = s.Families
	for i := range s.Families {
		b.family(&s.Families[i])
	}
	b.checkAliases()
	if err := p.err(); err != nil {
		return nil, err
	}
	return &exercise.File{
		Format:       exercise.FormatV2,
		Vocabularies: b.vocab.file(),
		Exercises:    b.records,
	}, nil
}

// builder expands families into records, checking as it goes.
type builder struct {
	vocab    *vocabulary
	problems *problems
	partial  bool
	families []Family
	records  []exercise.Exercise
	// names and ids map the SearchKey of each name, and each id, to the
	// variant that has it, to report duplicates with both positions;
	// aliases does the same for aliases.
	names   map[string]*Variant
	ids     map[string]*Variant
	aliases map[string]*Variant
}

func (b *builder) family(f *Family) {
	where := fmt.Sprintf("%s: family %q", f.Pos, f.Family)
	if strings.TrimSpace(f.Family) == "" {
		b.problems.add("%s: family: missing", f.Pos)
	}
	b.checkList(where, "targetMuscles", f.TargetMuscles, b.vocab.muscles, true)
	b.checkList(where, "secondaryMuscles", f.SecondaryMuscles, b.vocab.muscles, false)
	b.checkList(where, "exerciseTypes", f.ExerciseTypes, b.vocab.exerciseTypes, true)
	b.checkValue(where, "difficulty", f.Difficulty, b.vocab.difficulties, true)
	b.checkValue(where, "pattern", f.Pattern, b.vocab.patterns, !b.partial)
	b.checkTraining(where, f.Training, !b.partial)
	if len(f.Variants) == 0 {
		b.problems.add("%s: variants: none", where)
	}
	standard := 0
	for i := range f.Variants {
		v := &f.Variants[i]
		if !v.Standard {
			continue
		}
		switch prev := &f.Variants[standard]; {
		case prev.Standard && prev != v:
			b.problems.add("%s: %q: standard: the family's standard form is already %q at %s; mark one variant", v.Pos, v.Name, prev.Name, prev.Pos)
		case i == 0:
			b.problems.add("%s: %q: standard: the first variant is the standard form without it; remove it", v.Pos, v.Name)
		default:
			standard = i
		}
	}
	for i := range f.Variants {
		b.variant(f, &f.Variants[i], i == standard)
	}
}

// variant adds the record of v; standard tells whether it is its family's
// standard form: the variant marked standard, else the first.
func (b *builder) variant(f *Family, v *Variant, standard bool) {
	where := fmt.Sprintf("%s: %q", v.Pos, v.Name)
	b.checkName(where, v)
	b.checkList(where, "equipments", v.Equipments, b.vocab.equipments, true)
	b.checkValue(where, "difficulty", v.Difficulty, b.vocab.difficulties, false)
	// An override, once present, must be complete: only secondaryMuscles
	// may be cleared.
	b.checkList(where, "targetMuscles", v.TargetMuscles, b.vocab.muscles, v.TargetMuscles != nil)
	b.checkList(where, "secondaryMuscles", v.SecondaryMuscles, b.vocab.muscles, false)
	b.checkList(where, "exerciseTypes", v.ExerciseTypes, b.vocab.exerciseTypes, v.ExerciseTypes != nil)
	b.checkValue(where, "pattern", v.Pattern, b.vocab.patterns, false)
	b.checkTraining(where, v.Training, false)

	x := exercise.Exercise{
		ID:               b.id(where, v),
		Name:             v.Name,
		Equipments:       slices.Clone(v.Equipments),
		ExerciseTypes:    inherit(v.ExerciseTypes, f.ExerciseTypes),
		Difficulty:       cmp.Or(v.Difficulty, f.Difficulty),
		TargetMuscles:    inherit(v.TargetMuscles, f.TargetMuscles),
		SecondaryMuscles: inherit(v.SecondaryMuscles, f.SecondaryMuscles),
		Family:           f.Family,
		Pattern:          cmp.Or(v.Pattern, f.Pattern),
		Standard:         standard,
	}
	x.Training = b.training(where, f.Training, v.Training, x.Pattern, x.Difficulty)
	x.BodyParts = b.vocab.bodyPartsOf(x.TargetMuscles)
	x.MediaKey = "exercises/" + x.ID
	for _, m := range x.TargetMuscles {
		if slices.Contains(x.SecondaryMuscles, m) {
			b.problems.add("%s: muscle %q is both a target and a secondary muscle", where, m)
		}
	}
	b.content(where, f, v, &x)
	b.records = append(b.records, x)
}

// checkTraining checks the training fields that t sets, and that it sets
// every one if required.
func (b *builder) checkTraining(where string, t Training, required bool) {
	b.checkValue(where, "training: mechanics", t.Mechanics, b.vocab.mechanics, required)
	b.checkValue(where, "training: force", t.Force, b.vocab.forces, required)
	b.checkValue(where, "training: laterality", t.Laterality, b.vocab.lateralities, required)
	b.checkValue(where, "training: measure", t.Measure, b.vocab.measures, required)
	switch {
	case t.Prescription == "" && required:
		b.problems.add("%s: training: prescription: missing", where)
	case t.Prescription != "" && b.vocab.prescriptions[t.Prescription] == nil:
		b.problems.add("%s: training: prescription: %q is not in the prescriptions of %s", where, t.Prescription, VocabulariesFile)
	}
}

// training merges a variant's training overrides into its family's and
// returns the record's training, with the dose of its difficulty; nil
// when the family has none (a partial build).
func (b *builder) training(where string, fam, over Training, pattern, difficulty string) *exercise.Training {
	t := Training{
		Mechanics:    cmp.Or(over.Mechanics, fam.Mechanics),
		Force:        cmp.Or(over.Force, fam.Force),
		Laterality:   cmp.Or(over.Laterality, fam.Laterality),
		Measure:      cmp.Or(over.Measure, fam.Measure),
		Prescription: cmp.Or(over.Prescription, fam.Prescription),
	}
	if t == (Training{}) {
		return nil
	}
	scheme := b.vocab.prescriptions[t.Prescription]
	if scheme == nil {
		return nil // reported by checkTraining
	}
	if scheme.Measure != t.Measure {
		b.problems.add("%s: training: prescription %q is counted in %s, not in %s", where, t.Prescription, scheme.Measure, t.Measure)
	}
	dose := scheme.Doses[difficulty]
	return &exercise.Training{
		MovementPattern: pattern,
		Mechanics:       t.Mechanics,
		Force:           t.Force,
		Laterality:      t.Laterality,
		Measure:         t.Measure,
		Prescription: exercise.Prescription{
			Sets: slices.Clone(dose.Sets), Reps: slices.Clone(dose.Reps),
			Seconds: slices.Clone(dose.Seconds), Meters: slices.Clone(dose.Meters),
		},
	}
}

// checkAliases refuses an alias that is a name or another variant's alias
// under exercise.SearchKey: a search for it must find one exercise.
func (b *builder) checkAliases() {
	for fi := range b.families {
		for vi := range b.families[fi].Variants {
			v := &b.families[fi].Variants[vi]
			for _, a := range v.Aliases {
				k := exercise.SearchKey(a)
				if prev, ok := b.names[k]; ok {
					b.problems.add("%s: %q: alias %q: is the name of %q at %s", v.Pos, v.Name, a, prev.Name, prev.Pos)
					continue
				}
				if prev, ok := b.aliases[k]; ok {
					b.problems.add("%s: %q: alias %q: also an alias of %q at %s", v.Pos, v.Name, a, prev.Name, prev.Pos)
					continue
				}
				b.aliases[k] = v
			}
		}
	}
}

// checkName requires a canonical name that no other variant has under
// exercise.SearchKey, which is how the service matches names: "pull-up"
// and "pull up" would be one exercise to a user.
func (b *builder) checkName(where string, v *Variant) {
	switch {
	case strings.TrimSpace(v.Name) == "":
		b.problems.add("%s: name: missing", where)
		return
	case exercise.Canonical(v.Name) != v.Name:
		b.problems.add("%s: name: not canonical, write %q", where, exercise.Canonical(v.Name))
	}
	key := exercise.SearchKey(v.Name)
	if prev, dup := b.names[key]; dup {
		b.problems.add("%s: name: duplicate of %q at %s", where, prev.Name, prev.Pos)
		return
	}
	b.names[key] = v
}

// id returns the variant's id: the pinned one if set, else the one derived
// from its name. It reports malformed, redundant and colliding ids.
func (b *builder) id(where string, v *Variant) string {
	derived := exercise.IDFor(v.Name)
	id := cmp.Or(v.ID, derived)
	switch {
	case v.ID == "":
	case !exercise.ValidID(v.ID):
		b.problems.add("%s: id %q: malformed, want 1 to %d characters of [A-Za-z0-9_-]", where, v.ID, exercise.MaxIDLength)
	case v.ID == derived:
		// A pin equal to the derived id would outlive a rename unnoticed
		// and make the next reader wonder why it is there.
		b.problems.add("%s: id %q: equals the id derived from the name; remove it", where, v.ID)
	}
	if prev, dup := b.ids[id]; dup {
		b.problems.add("%s: id %q: also the id of %q at %s", where, id, prev.Name, prev.Pos)
	} else {
		b.ids[id] = v
	}
	return id
}

// checkList checks that values are declared and distinct, and present if
// required.
func (b *builder) checkList(where, field string, values []string, declared map[string]bool, required bool) {
	if required && len(values) == 0 {
		b.problems.add("%s: %s: missing, at least one value is required", where, field)
	}
	for i, val := range values {
		switch {
		case !declared[val]:
			b.problems.add("%s: %s: %q is not declared in %s", where, field, val, VocabulariesFile)
		case slices.Index(values, val) < i:
			b.problems.add("%s: %s: %q is listed twice", where, field, val)
		}
	}
}

func (b *builder) checkValue(where, field, value string, declared map[string]bool, required bool) {
	switch {
	case value == "" && required:
		b.problems.add("%s: %s: missing", where, field)
	case value != "" && !declared[value]:
		b.problems.add("%s: %s: %q is not declared in %s", where, field, value, VocabulariesFile)
	}
}

// inherit returns a copy of override if the variant sets it, else of base,
// never nil: the catalogue file requires every list member to be present.
func inherit(override, base []string) []string {
	src := base
	if override != nil {
		src = override
	}
	return append([]string{}, src...)
}

// maxProblems bounds a report, so that one typo in a family does not bury
// the terminal.
const maxProblems = 50

// problems collects the problems of a build.
type problems struct {
	msgs    []string
	dropped int
}

func (p *problems) add(format string, args ...any) {
	if len(p.msgs) >= maxProblems {
		p.dropped++
		return
	}
	p.msgs = append(p.msgs, fmt.Sprintf(format, args...))
}

func (p *problems) err() error {
	if len(p.msgs) == 0 {
		return nil
	}
	msgs := p.msgs
	if p.dropped > 0 {
		msgs = append(msgs, fmt.Sprintf("... and %d more", p.dropped))
	}
	return errors.New(strings.Join(msgs, "\n"))
}
