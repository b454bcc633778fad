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

	// File is the source file, relative to the source directory.
	File string `yaml:"-"`
}

// MuscleGroup declares the muscles of one body part.
type MuscleGroup struct {
	BodyPart string   `yaml:"bodyPart"`
	Names    []string `yaml:"names"`
}

// Family is a movement pattern and its variants. Its fields are the
// defaults of its variants.
type Family struct {
	// Family names the movement for reviewers and error messages; it is
	// not part of the generated records.
	Family           string    `yaml:"family"`
	TargetMuscles    []string  `yaml:"targetMuscles"`
	SecondaryMuscles []string  `yaml:"secondaryMuscles"`
	ExerciseTypes    []string  `yaml:"exerciseTypes"`
	Difficulty       string    `yaml:"difficulty"`
	Variants         []Variant `yaml:"variants"`

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
	ID         string   `yaml:"id"`
	Equipments []string `yaml:"equipments"`
	Difficulty string   `yaml:"difficulty"`
	// The override lists replace the family's list when present. nil
	// (the key is absent) inherits; an empty list (secondaryMuscles: [])
	// clears it.
	TargetMuscles    []string `yaml:"targetMuscles"`
	SecondaryMuscles []string `yaml:"secondaryMuscles"`
	ExerciseTypes    []string `yaml:"exerciseTypes"`

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
