package source

import "fmt"

// Source is a parsed source directory, before expansion.
type Source struct {
	Vocabularies Vocabularies
	Families     []Family
}

// Vocabularies is the content of vocabularies.yaml: the closed value sets
// every record must draw from. Order is kept, so the generated file lists
// the values as the source does.
type Vocabularies struct {
	BodyParts []string `yaml:"bodyParts"`
	// Muscles are grouped by the body part they belong to.
	Muscles    []MuscleGroup `yaml:"muscles"`
	Equipments []string      `yaml:"equipments"`
	// ExerciseTypes get the media key "types/<name>" with spaces written
	// as hyphens, so the source does not repeat it.
	ExerciseTypes []string `yaml:"exerciseTypes"`
	Difficulties  []string `yaml:"difficulties"`
	// Patterns are the movement patterns a family can have; alternatives
	// share one. They are not an API vocabulary.
	Patterns []string `yaml:"patterns"`

	// The closed lists of the training fields, and the prescriptions a
	// family's training may name.
	Mechanics     []string             `yaml:"mechanics"`
	Forces        []string             `yaml:"forces"`
	Lateralities  []string             `yaml:"lateralities"`
	Measures      []string             `yaml:"measures"`
	Prescriptions []PrescriptionScheme `yaml:"prescriptions"`

	// File is the source file, relative to the source directory.
	File string `yaml:"-"`
}

// MuscleGroup declares the muscles of one body part.
type MuscleGroup struct {
	BodyPart string   `yaml:"bodyPart"`
	Names    []string `yaml:"names"`
}

// PrescriptionScheme is a named set of doses, one per difficulty, for one
// goal (strength, hypertrophy, a hold, steady cardio).
type PrescriptionScheme struct {
	Name string `yaml:"name"`
	// Measure is the unit of every dose: reps, time or distance.
	Measure string          `yaml:"measure"`
	Doses   map[string]Dose `yaml:"doses"`
}

// Dose is sets and one of reps, seconds or meters, each [low, high].
type Dose struct {
	Sets    []int `yaml:"sets"`
	Reps    []int `yaml:"reps"`
	Seconds []int `yaml:"seconds"`
	Meters  []int `yaml:"meters"`
}

// Training is a family's training fields, or a variant's overrides of
// some of them. The movement pattern is the family's (or variant's)
// pattern.
type Training struct {
	Mechanics  string `yaml:"mechanics"`
	Force      string `yaml:"force"`
	Laterality string `yaml:"laterality"`
	Measure    string `yaml:"measure"`
	// Prescription names one of the vocabularies' prescriptions.
	Prescription string `yaml:"prescription"`
}

// Family is a movement pattern and its variants. Its fields are the
// defaults of its variants.
type Family struct {
	// Family names the movement for reviewers and error messages; it is
	// not part of the generated records.
	Family           string   `yaml:"family"`
	TargetMuscles    []string `yaml:"targetMuscles"`
	SecondaryMuscles []string `yaml:"secondaryMuscles"`
	ExerciseTypes    []string `yaml:"exerciseTypes"`
	Difficulty       string   `yaml:"difficulty"`
	// Pattern is the movement pattern, declared in vocabularies.yaml.
	Pattern string `yaml:"pattern"`
	// Training is the training fields of every variant, unless it
	// overrides them.
	Training Training `yaml:"training"`

	// The content templates of the family's records (see content.go):
	// {name} is the variant's name and any other {slot} the variant's (or
	// the family's default) text for that slot.
	Description  string            `yaml:"description"`
	Instructions []string          `yaml:"instructions"`
	Tips         []string          `yaml:"tips"`
	Slots        map[string]string `yaml:"slots"`

	Variants []Variant `yaml:"variants"`

	Pos Position `yaml:"-"`
}

// Variant is one exercise of a family. It names its equipments and may
// override the family's muscles, types and difficulty.
type Variant struct {
	// Name is the exercise's full canonical name (lower case, single
	// spaces), as a coach would say it: "dumbbell incline bench press".
	Name string `yaml:"name"`
	// ID, if set, replaces the id derived from Name. It exists so that an
	// exercise keeps its id when it is renamed: set it to the old id.
	ID string `yaml:"id"`
	// Standard marks the family's standard form, the version its plain
	// name means, when that is not the first variant: a progression lists
	// its variants easiest first, and its plain-named hold is not the
	// easiest. At most one variant of a family sets it; when none does,
	// the first variant is the standard form.
	Standard   bool     `yaml:"standard"`
	Equipments []string `yaml:"equipments"`
	Difficulty string   `yaml:"difficulty"`
	// The override lists replace the family's list when present. nil
	// (the key is absent) inherits; an empty list (secondaryMuscles: [])
	// clears it.
	TargetMuscles    []string `yaml:"targetMuscles"`
	SecondaryMuscles []string `yaml:"secondaryMuscles"`
	ExerciseTypes    []string `yaml:"exerciseTypes"`
	Pattern          string   `yaml:"pattern"`
	// Training overrides the fields of the family's training it sets.
	Training Training `yaml:"training"`

	// Aliases are other names people use for this exercise.
	Aliases []string `yaml:"aliases"`
	// About is appended to the family's description: what makes this
	// variant what it is.
	About string `yaml:"about"`
	// Slots fill the family's templates.
	Slots map[string]string `yaml:"slots"`
	// Tips come before the family's tips.
	Tips []string `yaml:"tips"`
	// Description and Instructions, when set, replace the family's.
	Description  string   `yaml:"description"`
	Instructions []string `yaml:"instructions"`

	Pos Position `yaml:"-"`
}

// Position locates a family or variant in the source, for error messages.
type Position struct {
	// File is relative to the source directory.
	File string
	Line int
}

func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}
