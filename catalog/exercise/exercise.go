package exercise

import "github.com/exercisedb/exercisedb/pkg/exercisejson"

// Exercise is one record of the catalogue. Its slices are shared with the
// catalogue and must be treated as read-only.
type Exercise struct {
	// ID is short, URL-safe and stable: it never changes when the file is
	// re-ordered or other records are added. Listings are ordered by ID.
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	BodyParts        []string `json:"bodyParts"`
	Equipments       []string `json:"equipments"`
	ExerciseTypes    []string `json:"exerciseTypes"`
	Difficulty       string   `json:"difficulty"`
	TargetMuscles    []string `json:"targetMuscles"`
	SecondaryMuscles []string `json:"secondaryMuscles"`
	// MediaKey names the exercise's image, if it has one; a product renders
	// it into a URL with its own template.
	MediaKey string `json:"mediaKey,omitempty"`

	// The content a person needs to do the exercise. A version 2 file
	// gives every record a description, 3 to 10 instructions and 1 to 5
	// tips; aliases may be empty. A version 1 file has none of them.
	Description  string   `json:"description,omitempty"`
	Instructions []string `json:"instructions,omitempty"`
	Tips         []string `json:"tips,omitempty"`
	// Aliases are other names people use for the exercise; no two records
	// share one, and none is another record's name.
	Aliases []string `json:"aliases,omitempty"`

	// Family is the movement family the record belongs to (the records of
	// one family are each other's variations) and Pattern the movement
	// pattern that alternatives share. Both are required in version 2.
	Family  string `json:"family,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	// Standard marks the family's standard form: the version a person
	// means by the movement's plain name (the barbell bench press of the
	// flat bench press family). At most one per family (version 2 only);
	// search ranks it before its variants.
	Standard bool `json:"standard,omitempty"`

	// Training is what an app programs the exercise with: its movement
	// pattern (Pattern), mechanics, force, laterality, measure and a
	// prescription. Optional in the file (a version 1 file has none);
	// when present every field is required and drawn from the file's
	// vocabularies.
	Training *Training `json:"training,omitempty"`
}

// Training is an exercise's training fields, in the public API's shape.
type Training = exercisejson.Training

// Prescription is a sensible dose of an exercise: sets, and reps, seconds
// or meters as its measure says, each a range [low, high].
type Prescription = exercisejson.Prescription

// Term is an entry of a vocabulary that has nothing but a name.
type Term struct {
	Name string `json:"name"`
}

// Muscle is an entry of the muscle vocabulary.
type Muscle struct {
	Name string `json:"name"`
	// BodyPart is the body part the muscle belongs to.
	BodyPart string `json:"bodyPart"`
}

// ExerciseType is an entry of the exercise type vocabulary.
type ExerciseType struct {
	Name     string `json:"name"`
	MediaKey string `json:"mediaKey"`
}

// Vocabularies are the closed value sets of a catalogue: every value a record
// uses must be declared here.
type Vocabularies struct {
	BodyParts     []Term         `json:"bodyParts"`
	Muscles       []Muscle       `json:"muscles"`
	Equipments    []Term         `json:"equipments"`
	ExerciseTypes []ExerciseType `json:"exerciseTypes"`
	Difficulties  []Term         `json:"difficulties"`

	// The vocabularies of the training fields: absent from a file whose
	// records have no training.
	MovementPatterns []Term `json:"movementPatterns,omitempty"`
	Mechanics        []Term `json:"mechanics,omitempty"`
	Forces           []Term `json:"forces,omitempty"`
	Lateralities     []Term `json:"lateralities,omitempty"`
	Measures         []Term `json:"measures,omitempty"`
}

// Entry is an entry of a vocabulary.
type Entry interface{ Term | Muscle | ExerciseType }

// Names returns the names of a vocabulary's entries, in order.
func Names[E Entry](entries []E) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		switch e := any(e).(type) {
		case Term:
			out[i] = e.Name
		case Muscle:
			out[i] = e.Name
		case ExerciseType:
			out[i] = e.Name
		}
	}
	return out
}
