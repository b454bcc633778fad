package importer

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// freeExerciseDBRecord is one element of free-exercise-db's exercises.json.
// Fields the import does not read (force, mechanic, instructions, images)
// are ignored.
type freeExerciseDBRecord struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Level            string   `json:"level"`
	Equipment        *string  `json:"equipment"` // null: not given
	PrimaryMuscles   []string `json:"primaryMuscles"`
	SecondaryMuscles []string `json:"secondaryMuscles"`
	Category         string   `json:"category"`
}

// ImportFreeExerciseDB converts free-exercise-db's exercises.json.
func ImportFreeExerciseDB(r io.Reader, opt Options) (*exercise.File, *Report, error) {
	var src []freeExerciseDBRecord
	if err := json.NewDecoder(r).Decode(&src); err != nil {
		return nil, nil, fmt.Errorf("free-exercise-db exercises: %w", err)
	}
	recs := make([]record, len(src))
	for i, s := range src {
		recs[i] = record{
			sourceID:  s.ID,
			name:      s.Name,
			primary:   s.PrimaryMuscles,
			secondary: s.SecondaryMuscles,
			category:  nonEmpty(s.Category),
			level:     s.Level,
		}
		if s.Equipment != nil {
			recs[i].equipment = nonEmpty(*s.Equipment)
		}
	}
	return convert(FreeExerciseDB, recs, freeExerciseDBMapping, opt)
}

// freeExerciseDBNames returns the names in exercises.json, in file order.
func freeExerciseDBNames(r io.Reader) ([]string, error) {
	var src []struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(r).Decode(&src); err != nil {
		return nil, fmt.Errorf("free-exercise-db exercises: %w", err)
	}
	names := make([]string, len(src))
	for i, s := range src {
		names[i] = s.Name
	}
	return names, nil
}

// freeExerciseDBMapping maps free-exercise-db's closed vocabularies (see its
// schema.json) onto ours. docs/importers.md gives the reasons.
var freeExerciseDBMapping = &mapping{
	levels: map[string]string{
		"beginner":     "beginner",
		"intermediate": "intermediate",
		"expert":       "advanced",
	},
	categories: map[string][]string{
		"strength":              {"strength"},
		"stretching":            {"stretching"},
		"plyometrics":           {"plyometrics"},
		"cardio":                {"cardio"},
		"olympic weightlifting": {"weightlifting"},
		"powerlifting":          {"strength"},
		"strongman":             {"strength"},
	},
	equipments: map[string][]string{
		"barbell":       {"barbell"},
		"dumbbell":      {"dumbbell"},
		"body only":     {"body weight"},
		"cable":         {"cable"},
		"machine":       {"leverage machine"}, // refined by name below
		"kettlebells":   {"kettlebell"},
		"bands":         {"resistance band"},
		"medicine ball": {"medicine ball"},
		"exercise ball": {"stability ball"},
		"foam roll":     {"foam roller"},
		"e-z curl bar":  {"ez barbell"},
		// "other" has no entry: unmapped unless a name rule names the
		// equipment.
	},
	muscles: map[string][]string{
		"abdominals":  {"rectus abdominis"},
		"abductors":   {"gluteus medius", "gluteus minimus"},
		"adductors":   {"adductors"},
		"biceps":      {"biceps brachii"},
		"calves":      {"gastrocnemius"},
		"chest":       {"pectoralis major"},
		"forearms":    {"wrist flexors", "wrist extensors"},
		"glutes":      {"gluteus maximus"},
		"hamstrings":  {"hamstrings"},
		"lats":        {"latissimus dorsi"},
		"lower back":  {"erector spinae"},
		"middle back": {"middle trapezius", "rhomboids"},
		"neck":        {"sternocleidomastoid", "splenius"},
		"quadriceps":  {"quadriceps"},
		"shoulders":   {"anterior deltoid", "lateral deltoid", "posterior deltoid"},
		"traps":       {"upper trapezius"},
		"triceps":     {"triceps brachii"},
	},
	rules: []nameRule{
		// "machine" covers selectorised machines, the Smith machine and the
		// cardio machines; the name tells them apart.
		{field: FieldEquipment, values: []string{"machine"}, phrases: []string{"smith"}, to: []string{"smith machine"}},
		{field: FieldEquipment, values: []string{"machine"}, phrases: []string{"treadmill"}, to: []string{"treadmill"}},
		{field: FieldEquipment, values: []string{"machine"}, phrases: []string{"bicycling stationary", "recumbent bike"}, to: []string{"stationary bike"}},
		{field: FieldEquipment, values: []string{"machine"}, phrases: []string{"rowing stationary"}, to: []string{"rowing machine"}},
		{field: FieldEquipment, values: []string{"machine"}, phrases: []string{"elliptical"}, to: []string{"elliptical trainer"}},
		{field: FieldEquipment, values: []string{"machine"}, phrases: []string{"stairmaster", "step mill"}, to: []string{"stair climber"}},
		// "other" is mapped only when the name names one of our
		// equipments; strongman implements (atlas stone, keg, log, yoke,
		// tire...) stay unmapped.
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"sled", "prowler"}, to: []string{"sled"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"trap bar"}, to: []string{"trap bar"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"sandbag"}, to: []string{"sandbag"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"plate"}, to: []string{"weight plate"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"box"}, to: []string{"plyo box"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"battling ropes"}, to: []string{"battle ropes"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"rope jumping"}, to: []string{"jump rope"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"ab roller"}, to: []string{"ab wheel"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"suspended", "straps"}, to: []string{"suspension trainer"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"ring dips"}, to: []string{"gymnastic rings"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"parallel bar", "parallel bars", "dips"}, to: []string{"dip station"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"pull up", "pull ups", "chin", "chins", "chin up", "muscle up", "hang"}, to: []string{"pull-up bar"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"with band", "with bands", "seated band"}, to: []string{"resistance band"}},
		{field: FieldEquipment, values: []string{"other"}, phrases: []string{"bench"}, to: []string{"bench"}},
	},
}
