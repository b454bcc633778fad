package importer

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// freeExerciseDBFixture is a hand-made exercises.json in free-exercise-db's
// shape: one record per mapping path.
const freeExerciseDBFixture = `[
 {"id": "Curl_1", "name": "Barbell Curl", "force": "pull", "level": "beginner", "mechanic": "isolation",
  "equipment": "barbell", "primaryMuscles": ["biceps"], "secondaryMuscles": ["forearms"],
  "instructions": ["Curl."], "category": "strength", "images": []},
 {"id": "Smith_1", "name": "Smith  Machine Squat", "force": "push", "level": "expert", "mechanic": "compound",
  "equipment": "machine", "primaryMuscles": ["quadriceps"], "secondaryMuscles": ["glutes", "quadriceps"],
  "instructions": [], "category": "powerlifting", "images": []},
 {"id": "Tire_1", "name": "Tire Flip", "force": null, "level": "intermediate", "mechanic": null,
  "equipment": "other", "primaryMuscles": ["quadriceps"], "secondaryMuscles": [],
  "instructions": [], "category": "strongman", "images": []},
 {"id": "Stretch_1", "name": "Hamstring Stretch", "force": "static", "level": "beginner", "mechanic": null,
  "equipment": null, "primaryMuscles": ["hamstrings"], "secondaryMuscles": [],
  "instructions": [], "category": "stretching", "images": []},
 {"id": "Odd_1", "name": "Mystery Move", "force": null, "level": "godlike", "mechanic": null,
  "equipment": "dumbbell", "primaryMuscles": ["spleen"], "secondaryMuscles": ["liver"],
  "instructions": [], "category": "juggling", "images": []},
 {"id": "Curl_2", "name": "Barbell-Curl", "force": "pull", "level": "beginner", "mechanic": "isolation",
  "equipment": "barbell", "primaryMuscles": ["biceps"], "secondaryMuscles": [],
  "instructions": [], "category": "strength", "images": []},
 {"id": "Sled_1", "name": "Sled Push", "force": "push", "level": "beginner", "mechanic": "compound",
  "equipment": "other", "primaryMuscles": ["shoulders"], "secondaryMuscles": ["calves"],
  "instructions": [], "category": "strongman", "images": []},
 {"id": "Machine_1", "name": "Machine Fly", "force": "push", "level": "beginner", "mechanic": "isolation",
  "equipment": "machine", "primaryMuscles": ["chest"], "secondaryMuscles": [],
  "instructions": [], "category": "strength", "images": []}
]`

func TestImportFreeExerciseDBFixture(t *testing.T) {
	dir := writeFiles(t, map[string]string{"exercises.json": freeExerciseDBFixture})
	f, rep, err := Import(FreeExerciseDB, filepath.Join(dir, "exercises.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustLoad(t, f)

	want := []exercise.Exercise{
		{
			ID: exercise.IDFor("barbell curl"), Name: "barbell curl",
			BodyParts: []string{"upper arms"}, Equipments: []string{"barbell"}, ExerciseTypes: []string{"strength"},
			Difficulty: "beginner", TargetMuscles: []string{"biceps brachii"},
			SecondaryMuscles: []string{"wrist flexors", "wrist extensors"},
		},
		{
			// Name canonicalised; "machine" refined by name; "expert" is
			// "advanced"; a secondary muscle that is also a target dropped.
			ID: exercise.IDFor("smith machine squat"), Name: "smith machine squat",
			BodyParts: []string{"upper legs"}, Equipments: []string{"smith machine"}, ExerciseTypes: []string{"strength"},
			Difficulty: "advanced", TargetMuscles: []string{"quadriceps"},
			SecondaryMuscles: []string{"gluteus maximus"},
		},
		{
			// "other" mapped by the name rule; three deltoid heads.
			ID: exercise.IDFor("sled push"), Name: "sled push",
			BodyParts: []string{"shoulders"}, Equipments: []string{"sled"}, ExerciseTypes: []string{"strength"},
			Difficulty: "beginner", TargetMuscles: []string{"anterior deltoid", "lateral deltoid", "posterior deltoid"},
			SecondaryMuscles: []string{"gastrocnemius"},
		},
		{
			ID: exercise.IDFor("machine fly"), Name: "machine fly",
			BodyParts: []string{"chest"}, Equipments: []string{"leverage machine"}, ExerciseTypes: []string{"strength"},
			Difficulty: "beginner", TargetMuscles: []string{"pectoralis major"}, SecondaryMuscles: []string{},
		},
	}
	if diff := cmp.Diff(want, f.Exercises); diff != "" {
		t.Errorf("exercises (-want +got):\n%s", diff)
	}

	if rep.RecordsIn != 8 || rep.RecordsOut != 4 || rep.RecordsSkipped != 4 {
		t.Errorf("records in/out/skipped = %d/%d/%d, want 8/4/4", rep.RecordsIn, rep.RecordsOut, rep.RecordsSkipped)
	}
	wantReasons := map[string]int{
		ReasonEquipmentUnmapped:    1,
		ReasonEquipmentMissing:     1,
		ReasonTargetMuscleUnmapped: 1,
		ReasonExerciseTypeUnmapped: 1,
		ReasonDifficultyUnmapped:   1,
		ReasonDuplicateName:        1,
	}
	if diff := cmp.Diff(wantReasons, rep.SkippedByReason); diff != "" {
		t.Errorf("skipped by reason (-want +got):\n%s", diff)
	}
	wantSkipped := []Skip{
		{SourceID: "Tire_1", Name: "Tire Flip", Reasons: []string{ReasonEquipmentUnmapped}, Detail: `equipment "other" unmapped`},
		{SourceID: "Stretch_1", Name: "Hamstring Stretch", Reasons: []string{ReasonEquipmentMissing}},
		{
			SourceID: "Odd_1", Name: "Mystery Move",
			Reasons: []string{ReasonTargetMuscleUnmapped, ReasonExerciseTypeUnmapped, ReasonDifficultyUnmapped},
			Detail:  `target muscle "spleen" unmapped; category "juggling" unmapped; level "godlike" unmapped; secondary muscle "liver" unmapped`,
		},
		{
			SourceID: "Curl_2", Name: "Barbell-Curl", Reasons: []string{ReasonDuplicateName},
			Detail: `same search key as "Barbell Curl" (source id Curl_1), which is kept`,
		},
	}
	if diff := cmp.Diff(wantSkipped, rep.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	wantValues := []string{
		`level "beginner" → beginner (5)`,
		`level "expert" → advanced (1)`,
		`level "godlike" → unmapped (1)`,
		`level "intermediate" → intermediate (1)`,
		`category "juggling" → unmapped (1)`,
		`category "powerlifting" → strength (1)`,
		`category "strength" → strength (3)`,
		`category "stretching" → stretching (1)`,
		`category "strongman" → strength (2)`,
		`equipment "barbell" → barbell (2)`,
		`equipment "dumbbell" → dumbbell (1)`,
		`equipment "machine" → leverage machine (1)`,
		`equipment "machine" [name has "smith"] → smith machine (1)`,
		`equipment "other" → unmapped (1)`,
		`equipment "other" [name has "sled" or "prowler"] → sled (1)`,
		`muscle "biceps" → biceps brachii (2)`,
		`muscle "calves" → gastrocnemius (1)`,
		`muscle "chest" → pectoralis major (1)`,
		`muscle "forearms" → wrist flexors, wrist extensors (1)`,
		`muscle "glutes" → gluteus maximus (1)`,
		`muscle "hamstrings" → hamstrings (1)`,
		`muscle "liver" → unmapped (1)`,
		`muscle "quadriceps" → quadriceps (2)`, // counted once per record
		`muscle "shoulders" → anterior deltoid, lateral deltoid, posterior deltoid (1)`,
		`muscle "spleen" → unmapped (1)`,
	}
	if diff := cmp.Diff(wantValues, valueLines(rep)); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if len(rep.Filled) != 0 || rep.Licences != nil || rep.Attributions != nil {
		t.Errorf("filled %v, licences %v, attributions %v: want none for free-exercise-db", rep.Filled, rep.Licences, rep.Attributions)
	}
}

// wgerFixture is a hand-made set of wger exports, in Django fixture form.
// Exercise 10 is listed before 9 in the file: key order decides which of
// two equal names is kept.
var wgerFixture = map[string]string{
	WgerLanguagesFile: `[
 {"model": "core.language", "pk": 1, "fields": {"short_name": "de", "full_name": "Deutsch"}},
 {"model": "core.language", "pk": 2, "fields": {"short_name": "en", "full_name": "English"}}]`,
	WgerMusclesFile: `[
 {"model": "exercises.muscle", "pk": 1, "fields": {"name": "Biceps brachii", "name_en": "Biceps", "is_front": true}},
 {"model": "exercises.muscle", "pk": 2, "fields": {"name": "Anterior deltoid", "name_en": "Shoulders", "is_front": true}},
 {"model": "exercises.muscle", "pk": 99, "fields": {"name": "Musculus fictus", "name_en": "", "is_front": true}}]`,
	WgerEquipmentFile: `[
 {"model": "exercises.equipment", "pk": 1, "fields": {"name": "Barbell"}},
 {"model": "exercises.equipment", "pk": 4, "fields": {"name": "Gym mat"}},
 {"model": "exercises.equipment", "pk": 7, "fields": {"name": "none (bodyweight exercise)"}}]`,
	WgerCategoriesFile: `[
 {"model": "exercises.exercisecategory", "pk": 8, "fields": {"name": "Arms"}},
 {"model": "exercises.exercisecategory", "pk": 10, "fields": {"name": "Abs"}},
 {"model": "exercises.exercisecategory", "pk": 15, "fields": {"name": "Cardio"}}]`,
	WgerLicencesFile: `[
 {"model": "core.license", "pk": 1, "fields": {"short_name": "CC-BY-SA 3", "full_name": "x", "url": "x"}},
 {"model": "core.license", "pk": 2, "fields": {"short_name": "CC-BY-SA 4", "full_name": "x", "url": "x"}}]`,
	WgerExercisesFile: `[
 {"model": "exercises.exercise", "pk": 10, "fields": {"uuid": "u10", "category": 8, "muscles": [1], "muscles_secondary": [], "equipment": [1], "license": 2, "license_author": "ann", "variation_group": null}},
 {"model": "exercises.exercise", "pk": 9, "fields": {"uuid": "u9", "category": 8, "muscles": [1], "muscles_secondary": [2], "equipment": [1], "license": 1, "license_author": "bob", "variation_group": null}},
 {"model": "exercises.exercise", "pk": 11, "fields": {"uuid": "u11", "category": 8, "muscles": [2], "muscles_secondary": [99, 2], "equipment": [7, 4], "license": 2, "license_author": "cy", "variation_group": null}},
 {"model": "exercises.exercise", "pk": 12, "fields": {"uuid": "u12", "category": 10, "muscles": [], "muscles_secondary": [], "equipment": [4], "license": 2, "license_author": "dee", "variation_group": null}},
 {"model": "exercises.exercise", "pk": 13, "fields": {"uuid": "u13", "category": 15, "muscles": [1], "muscles_secondary": [], "equipment": [], "license": 2, "license_author": "eve", "variation_group": null}},
 {"model": "exercises.exercise", "pk": 14, "fields": {"uuid": "u14", "category": 15, "muscles": [1], "muscles_secondary": [], "equipment": [7], "license": 2, "license_author": "flo", "variation_group": null}}]`,
	WgerTranslationsFile: `[
 {"model": "exercises.translation", "pk": 100, "fields": {"exercise": 10, "language": 2, "name": "Biceps Curl", "description": "<p>x</p>", "license": 2, "license_author": "ann"}},
 {"model": "exercises.translation", "pk": 101, "fields": {"exercise": 10, "language": 1, "name": "Bizepscurl", "description": "", "license": 2, "license_author": "ann"}},
 {"model": "exercises.translation", "pk": 90, "fields": {"exercise": 9, "language": 2, "name": "Biceps-Curl", "description": "", "license": 1, "license_author": "bob"}},
 {"model": "exercises.translation", "pk": 110, "fields": {"exercise": 11, "language": 2, "name": "Standing Biceps Stretch", "description": "", "license": 2, "license_author": "cy"}},
 {"model": "exercises.translation", "pk": 120, "fields": {"exercise": 12, "language": 2, "name": "Crunch", "description": "", "license": 2, "license_author": "dee"}},
 {"model": "exercises.translation", "pk": 130, "fields": {"exercise": 13, "language": 2, "name": "Run", "description": "", "license": 2, "license_author": "eve"}},
 {"model": "exercises.translation", "pk": 140, "fields": {"exercise": 14, "language": 1, "name": "Hampelmann", "description": "", "license": 2, "license_author": "flo"}},
 {"model": "exercises.alias", "pk": 1, "fields": {"translation": 100, "alias": "Curl"}},
 {"model": "exercises.exercisecomment", "pk": 1, "fields": {"translation": 100, "comment": "Elbows in"}}]`,
}

func TestImportWgerFixture(t *testing.T) {
	dir := writeFiles(t, wgerFixture)
	f, rep, err := Import(Wger, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustLoad(t, f)
	want := []exercise.Exercise{
		{
			ID: exercise.IDFor("biceps-curl"), Name: "biceps-curl",
			BodyParts: []string{"upper arms"}, Equipments: []string{"barbell"}, ExerciseTypes: []string{"strength"},
			Difficulty: DefaultDifficulty, TargetMuscles: []string{"biceps brachii"},
			SecondaryMuscles: []string{"anterior deltoid", "lateral deltoid", "posterior deltoid"},
		},
		{
			// The name makes it a stretch; the mat is dropped, body weight
			// kept; the unknown secondary muscle is only reported.
			ID: exercise.IDFor("standing biceps stretch"), Name: "standing biceps stretch",
			BodyParts: []string{"shoulders"}, Equipments: []string{"body weight"}, ExerciseTypes: []string{"stretching"},
			Difficulty: DefaultDifficulty, TargetMuscles: []string{"anterior deltoid", "lateral deltoid", "posterior deltoid"},
			SecondaryMuscles: []string{},
		},
	}
	if diff := cmp.Diff(want, f.Exercises); diff != "" {
		t.Errorf("exercises (-want +got):\n%s", diff)
	}
	if rep.RecordsIn != 6 || rep.RecordsOut != 2 || rep.RecordsSkipped != 4 {
		t.Errorf("records in/out/skipped = %d/%d/%d, want 6/2/4", rep.RecordsIn, rep.RecordsOut, rep.RecordsSkipped)
	}
	wantSkipped := []Skip{
		{SourceID: "10", Name: "Biceps Curl", Reasons: []string{ReasonDuplicateName}, Detail: `same search key as "Biceps-Curl" (source id 9), which is kept`},
		{SourceID: "12", Name: "Crunch", Reasons: []string{ReasonTargetMuscleMissing, ReasonEquipmentUnmapped}, Detail: `equipment "Gym mat" unmapped`},
		{SourceID: "13", Name: "Run", Reasons: []string{ReasonEquipmentMissing}},
		{SourceID: "14", Name: "", Reasons: []string{ReasonTranslationMissing}},
	}
	if diff := cmp.Diff(wantSkipped, rep.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	wantValues := []string{
		`category "Abs" → strength (1)`,
		`category "Arms" → strength (2)`,
		`category "Arms" [name has "stretch" or "stretches" or "stretching"] → stretching (1)`,
		`category "Cardio" → cardio (2)`,
		`equipment "Barbell" → barbell (2)`,
		`equipment "Gym mat" → unmapped (2)`,
		`equipment "none (bodyweight exercise)" → body weight (2)`,
		`muscle "Anterior deltoid" → anterior deltoid, lateral deltoid, posterior deltoid (2)`,
		`muscle "Biceps brachii" → biceps brachii (4)`,
		`muscle "Musculus fictus" → unmapped (1)`,
	}
	if diff := cmp.Diff(wantValues, valueLines(rep)); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Filled{{Field: FieldDifficulty, Value: DefaultDifficulty, Records: 2, Reason: "the source has no difficulty"}}, rep.Filled); diff != "" {
		t.Errorf("filled (-want +got):\n%s", diff)
	}
	wantAttr := []Attribution{
		{ID: exercise.IDFor("biceps-curl"), Name: "biceps-curl", SourceID: "9", UUID: "u9", Licence: "CC-BY-SA 3", Author: "bob", NameLicence: "CC-BY-SA 3", NameAuthor: "bob"},
		{ID: exercise.IDFor("standing biceps stretch"), Name: "standing biceps stretch", SourceID: "11", UUID: "u11", Licence: "CC-BY-SA 4", Author: "cy", NameLicence: "CC-BY-SA 4", NameAuthor: "cy"},
	}
	if diff := cmp.Diff(wantAttr, rep.Attributions); diff != "" {
		t.Errorf("attributions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"CC-BY-SA 3": 1, "CC-BY-SA 4": 1}, rep.Licences); diff != "" {
		t.Errorf("licences (-want +got):\n%s", diff)
	}
}

func TestImportWgerOptions(t *testing.T) {
	dir := writeFiles(t, wgerFixture)
	f, rep, err := Import(Wger, dir, Options{Language: "de", Difficulty: "beginner"})
	if err != nil {
		t.Fatal(err)
	}
	mustLoad(t, f)
	got := byName(f)
	// German names: exercise 10 is "bizepscurl", 14 "hampelmann"; 9, 11,
	// 12 and 13 have no German translation.
	if x, ok := got["bizepscurl"]; !ok || x.Difficulty != "beginner" {
		t.Errorf("bizepscurl = %+v, %v; want it, with difficulty beginner", x, ok)
	}
	if _, ok := got["hampelmann"]; !ok {
		t.Errorf("hampelmann missing from %v", got)
	}
	if n := rep.SkippedByReason[ReasonTranslationMissing]; n != 4 {
		t.Errorf("translation missing: %d, want 4", n)
	}

	// Without licenses.json licences are named by key.
	files := map[string]string{}
	for k, v := range wgerFixture {
		if k != WgerLicencesFile {
			files[k] = v
		}
	}
	_, rep, err = Import(Wger, writeFiles(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"licence #1": 1, "licence #2": 1}, rep.Licences); diff != "" {
		t.Errorf("licences without licenses.json (-want +got):\n%s", diff)
	}
}

func TestImportErrors(t *testing.T) {
	fedb := writeFiles(t, map[string]string{"exercises.json": freeExerciseDBFixture, "broken.json": `{"not": "an array"}`})
	wger := writeFiles(t, wgerFixture)
	noMuscles := map[string]string{}
	for k, v := range wgerFixture {
		if k != WgerMusclesFile {
			noMuscles[k] = v
		}
	}
	tests := []struct {
		name, source, path string
		opt                Options
		want               string
	}{
		{"unknown source", "exrx", fedb, Options{}, `unknown source "exrx"`},
		{"missing file", FreeExerciseDB, filepath.Join(fedb, "none.json"), Options{}, "no such file"},
		{"not an array", FreeExerciseDB, filepath.Join(fedb, "broken.json"), Options{}, "free-exercise-db exercises"},
		{"wger file, not directory", Wger, filepath.Join(fedb, "exercises.json"), Options{}, "must be the directory"},
		{"wger export missing", Wger, writeFiles(t, noMuscles), Options{}, WgerMusclesFile},
		{"unknown language", Wger, wger, Options{Language: "xx"}, `no language with short name "xx"`},
		{"undeclared difficulty", FreeExerciseDB, filepath.Join(fedb, "exercises.json"), Options{Difficulty: "elite"}, `difficulty "elite" is not in vocabularies.difficulties`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Import(tt.source, tt.path, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// The tables must name only values our vocabularies declare; a vocabulary
// that lacks one is an error naming it.
func TestMappingTablesFitVocabularies(t *testing.T) {
	v, err := DefaultVocabularies()
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*mapping{FreeExerciseDB: freeExerciseDBMapping, Wger: wgerMapping} {
		if err := m.check(newVocab(v)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	narrow := *v
	narrow.Equipments = slices.DeleteFunc(slices.Clone(v.Equipments), func(e exercise.Term) bool { return e.Name == "smith machine" })
	dir := writeFiles(t, map[string]string{"exercises.json": freeExerciseDBFixture})
	_, _, err = Import(FreeExerciseDB, filepath.Join(dir, "exercises.json"), Options{Vocabularies: &narrow})
	if err == nil || !strings.Contains(err.Error(), `maps to "smith machine", which vocabularies.equipments does not declare`) {
		t.Errorf("err = %v, want the undeclared smith machine named", err)
	}
}

func TestNameRulesMatchWholeWords(t *testing.T) {
	tests := []struct {
		name, value string
		want        []string
	}{
		{"Mixed Grip Chin", "other", []string{"pull-up bar"}},
		{"One Arm Chin-Up", "other", []string{"pull-up bar"}},
		{"Weighted Pull Ups", "other", []string{"pull-up bar"}},
		{"Machine Row", "other", nil},               // "chin" inside "machine" is no word
		{"Sledgehammer Swings", "other", nil},       // nor "sled" inside "sledgehammer"
		{"Platform Hamstring Slides", "other", nil}, // nor "plate"
		{"IT Band and Glute Stretch", "other", nil}, // the iliotibial band is no resistance band
		{"Sled Push", "other", []string{"sled"}},
		{"Bicycling, Stationary", "machine", []string{"stationary bike"}},
		{"Smith Machine Squat", "machine", []string{"smith machine"}},
		{"Leg Press", "machine", []string{"leverage machine"}},
		{"Sled Push", "barbell", []string{"barbell"}}, // rules only refine the values they name
	}
	for _, tt := range tests {
		got, _ := freeExerciseDBMapping.lookup(FieldEquipment, tt.value, " "+nameWords(tt.name)+" ")
		if !slices.Equal(got, tt.want) {
			t.Errorf("equipment %q of %q → %q, want %q", tt.value, tt.name, got, tt.want)
		}
	}
}

func TestReportText(t *testing.T) {
	dir := writeFiles(t, wgerFixture)
	_, rep, err := Import(Wger, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"wger (" + dir + "): 6 records in, 2 out, 4 skipped\n",
		"  duplicate name:              1\n",
		"unmapped source values (records carrying the value, skipped ones included):\n" +
			"  equipment \"Gym mat\": unmapped (2 records)\n" +
			"  muscle \"Musculus fictus\": unmapped (1 record)\n",
		`  muscle "Anterior deltoid" → "anterior deltoid", "lateral deltoid", "posterior deltoid" (2 records)` + "\n",
		`  category "Arms" [name has "stretch" or "stretches" or "stretching"] → "stretching" (1 record)` + "\n",
		"filled in: difficulty \"intermediate\" on 2 records: the source has no difficulty\n",
		"dropped as duplicates:\n  \"Biceps Curl\" (source id 10): same search key as \"Biceps-Curl\" (source id 9), which is kept\n",
		"licences of the records out (attribution required; the JSON report lists the authors): CC-BY-SA 3 1; CC-BY-SA 4 1;\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q; got:\n%s", want, b.String())
		}
	}
	if diff := cmp.Diff([]Value{
		{Field: FieldEquipment, Value: "Gym mat", MappedTo: []string{}, Records: 2},
		{Field: FieldMuscle, Value: "Musculus fictus", MappedTo: []string{}, Records: 1},
	}, rep.Unmapped(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Unmapped (-want +got):\n%s", diff)
	}
}
