package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// The open datasets, relative to this package. They are read at test time
// only: nothing from them is copied into the repository.
const datasets = "../../../shared/datasets"

// datasetPath returns the path of a dataset file or directory, skipping the
// test if the datasets are not there.
func datasetPath(t *testing.T, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{datasets}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("open datasets not available (%v): these tests read them from %s", err, datasets)
	}
	return p
}

// checkOutput checks what every import must produce: a file the catalog
// loads, with ids derived from canonical names, names unique under the
// search key, body parts those of the target muscles, and no media.
func checkOutput(t *testing.T, f *exercise.File) {
	t.Helper()
	c := mustLoad(t, f)
	if c.Len() != len(f.Exercises) {
		t.Errorf("catalogue holds %d records, file %d", c.Len(), len(f.Exercises))
	}
	v := newVocab(&f.Vocabularies)
	keys := map[string]string{}
	for _, x := range f.Exercises {
		if x.Name != exercise.Canonical(x.Name) || x.ID != exercise.IDFor(x.Name) || x.MediaKey != "" {
			t.Errorf("%q: id %q, media key %q; want a canonical name, IDFor(name) and no media", x.Name, x.ID, x.MediaKey)
		}
		if other, dup := keys[exercise.SearchKey(x.Name)]; dup {
			t.Errorf("%q and %q have the same search key", x.Name, other)
		}
		keys[exercise.SearchKey(x.Name)] = x.Name
		if want := v.bodyPartsOf(x.TargetMuscles); !slices.Equal(x.BodyParts, want) {
			t.Errorf("%q: body parts %q, want %q from its target muscles", x.Name, x.BodyParts, want)
		}
		for _, m := range x.SecondaryMuscles {
			if slices.Contains(x.TargetMuscles, m) {
				t.Errorf("%q: %q is both target and secondary", x.Name, m)
			}
		}
	}
}

// The figures below are measured: a change of a mapping table or rule
// changes them, and must be reflected here and in docs/importers.md.

func TestFreeExerciseDBDataset(t *testing.T) {
	path := datasetPath(t, "free-exercise-db", "exercises.json")
	f, rep, err := Import(FreeExerciseDB, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, f)
	if rep.RecordsIn != 873 || rep.RecordsOut != 724 || rep.RecordsSkipped != 149 || len(f.Exercises) != 724 {
		t.Errorf("records in/out/skipped = %d/%d/%d (%d written), want 873/724/149",
			rep.RecordsIn, rep.RecordsOut, rep.RecordsSkipped, len(f.Exercises))
	}
	wantReasons := map[string]int{ReasonEquipmentMissing: 77, ReasonEquipmentUnmapped: 72}
	if diff := cmp.Diff(wantReasons, rep.SkippedByReason); diff != "" {
		t.Errorf("skipped by reason (-want +got):\n%s", diff)
	}
	want := []string{
		`level "beginner" → beginner (523)`,
		`level "expert" → advanced (57)`,
		`level "intermediate" → intermediate (293)`,
		`category "cardio" → cardio (14)`,
		`category "olympic weightlifting" → weightlifting (35)`,
		`category "plyometrics" → plyometrics (61)`,
		`category "powerlifting" → strength (38)`,
		`category "strength" → strength (581)`,
		`category "stretching" → stretching (123)`,
		`category "strongman" → strength (21)`,
		`equipment "bands" → resistance band (20)`,
		`equipment "barbell" → barbell (170)`,
		`equipment "body only" → body weight (111)`,
		`equipment "cable" → cable (81)`,
		`equipment "dumbbell" → dumbbell (123)`,
		`equipment "e-z curl bar" → ez barbell (9)`,
		`equipment "exercise ball" → stability ball (12)`,
		`equipment "foam roll" → foam roller (11)`,
		`equipment "kettlebells" → kettlebell (53)`,
		`equipment "machine" → leverage machine (39)`,
		`equipment "machine" [name has "bicycling stationary" or "recumbent bike"] → stationary bike (2)`,
		`equipment "machine" [name has "elliptical"] → elliptical trainer (1)`,
		`equipment "machine" [name has "rowing stationary"] → rowing machine (1)`,
		`equipment "machine" [name has "smith"] → smith machine (19)`,
		`equipment "machine" [name has "stairmaster" or "step mill"] → stair climber (2)`,
		`equipment "machine" [name has "treadmill"] → treadmill (3)`,
		`equipment "medicine ball" → medicine ball (17)`,
		`equipment "other" → unmapped (72)`,
		`equipment "other" [name has "ab roller"] → ab wheel (1)`,
		`equipment "other" [name has "battling ropes"] → battle ropes (1)`,
		`equipment "other" [name has "bench"] → bench (2)`,
		`equipment "other" [name has "box"] → plyo box (6)`,
		`equipment "other" [name has "parallel bar" or "parallel bars" or "dips"] → dip station (3)`,
		`equipment "other" [name has "plate"] → weight plate (7)`,
		`equipment "other" [name has "pull up" or "pull ups" or "chin" or "chins" or "chin up" or "muscle up" or "hang"] → pull-up bar (10)`,
		`equipment "other" [name has "ring dips"] → gymnastic rings (1)`,
		`equipment "other" [name has "rope jumping"] → jump rope (1)`,
		`equipment "other" [name has "sandbag"] → sandbag (1)`,
		`equipment "other" [name has "sled" or "prowler"] → sled (8)`,
		`equipment "other" [name has "suspended" or "straps"] → suspension trainer (6)`,
		`equipment "other" [name has "trap bar"] → trap bar (1)`,
		`equipment "other" [name has "with band" or "with bands" or "seated band"] → resistance band (2)`,
		`muscle "abdominals" → rectus abdominis (149)`,
		`muscle "abductors" → gluteus medius, gluteus minimus (43)`,
		`muscle "adductors" → adductors (54)`,
		`muscle "biceps" → biceps brachii (127)`,
		`muscle "calves" → gastrocnemius (209)`,
		`muscle "chest" → pectoralis major (147)`,
		`muscle "forearms" → wrist flexors, wrist extensors (119)`,
		`muscle "glutes" → gluteus maximus (242)`,
		`muscle "hamstrings" → hamstrings (277)`,
		`muscle "lats" → latissimus dorsi (93)`,
		`muscle "lower back" → erector spinae (131)`,
		`muscle "middle back" → middle trapezius, rhomboids (97)`,
		`muscle "neck" → sternocleidomastoid, splenius (9)`,
		`muscle "quadriceps" → quadriceps (227)`,
		`muscle "shoulders" → anterior deltoid, lateral deltoid, posterior deltoid (335)`,
		`muscle "traps" → upper trapezius (97)`,
		`muscle "triceps" → triceps brachii (218)`,
	}
	if diff := cmp.Diff(want, valueLines(rep)); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if un := rep.Unmapped(); len(un) != 1 || un[0].Value != "other" || un[0].Records != 72 {
		t.Errorf("unmapped = %+v, want only equipment \"other\" (72 records)", un)
	}
}

func TestWgerDataset(t *testing.T) {
	path := datasetPath(t, "wger")
	f, rep, err := Import(Wger, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, f)
	if rep.RecordsIn != 872 || rep.RecordsOut != 435 || rep.RecordsSkipped != 437 || len(f.Exercises) != 435 {
		t.Errorf("records in/out/skipped = %d/%d/%d (%d written), want 872/435/437",
			rep.RecordsIn, rep.RecordsOut, rep.RecordsSkipped, len(f.Exercises))
	}
	wantReasons := map[string]int{
		ReasonEquipmentMissing:    303,
		ReasonTargetMuscleMissing: 185,
		ReasonEquipmentUnmapped:   12,
		ReasonDuplicateName:       13,
	}
	if diff := cmp.Diff(wantReasons, rep.SkippedByReason); diff != "" {
		t.Errorf("skipped by reason (-want +got):\n%s", diff)
	}
	want := []string{
		`category "Abs" → strength (111)`,
		`category "Arms" → strength (142)`,
		`category "Arms" [name has "stretch" or "stretches" or "stretching"] → stretching (4)`,
		`category "Back" → strength (153)`,
		`category "Back" [name has "stretch" or "stretches" or "stretching"] → stretching (9)`,
		`category "Back" [name has "yoga"] → yoga (1)`,
		`category "Calves" → strength (11)`,
		`category "Calves" [name has "stretch" or "stretches" or "stretching"] → stretching (1)`,
		`category "Cardio" → cardio (40)`,
		`category "Chest" → strength (97)`,
		`category "Chest" [name has "stretch" or "stretches" or "stretching"] → stretching (3)`,
		`category "Legs" → strength (171)`,
		`category "Legs" [name has "stretch" or "stretches" or "stretching"] → stretching (21)`,
		`category "Shoulders" → strength (99)`,
		`category "Shoulders" [name has "stretch" or "stretches" or "stretching"] → stretching (9)`,
		`equipment "Barbell" → barbell (81)`,
		`equipment "Bench" → bench (44)`,
		`equipment "Dumbbell" → dumbbell (155)`,
		`equipment "Gym mat" → unmapped (15)`,
		`equipment "Incline bench" → bench (20)`,
		`equipment "Kettlebell" → kettlebell (16)`,
		`equipment "Pull-up bar" → pull-up bar (25)`,
		`equipment "Resistance band" → resistance band (13)`,
		`equipment "SZ-Bar" → ez barbell (18)`,
		`equipment "Swiss Ball" → stability ball (3)`,
		`equipment "none (bodyweight exercise)" → body weight (235)`,
		`muscle "Anterior deltoid" → anterior deltoid, lateral deltoid, posterior deltoid (201)`,
		`muscle "Biceps brachii" → biceps brachii (128)`,
		`muscle "Biceps femoris" → hamstrings (96)`,
		`muscle "Brachialis" → brachialis (43)`,
		`muscle "Gastrocnemius" → gastrocnemius (58)`,
		`muscle "Gluteus maximus" → gluteus maximus (149)`,
		`muscle "Latissimus dorsi" → latissimus dorsi (153)`,
		`muscle "Obliquus externus abdominis" → external obliques (89)`,
		`muscle "Pectoralis major" → pectoralis major (137)`,
		`muscle "Quadriceps femoris" → quadriceps (114)`,
		`muscle "Rectus abdominis" → rectus abdominis (147)`,
		`muscle "Serratus anterior" → serratus anterior (40)`,
		`muscle "Soleus" → soleus (23)`,
		`muscle "Trapezius" → upper trapezius, middle trapezius, lower trapezius (102)`,
		`muscle "Triceps brachii" → triceps brachii (134)`,
	}
	if diff := cmp.Diff(want, valueLines(rep)); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	var dups []string
	for _, s := range rep.Skipped {
		if slices.Contains(s.Reasons, ReasonDuplicateName) {
			dups = append(dups, s.SourceID)
		}
	}
	wantDups := []string{"525", "1106", "1315", "1316", "1317", "1321", "1389", "1549", "1594", "1636", "1642", "1674", "1765"}
	if diff := cmp.Diff(wantDups, dups); diff != "" {
		t.Errorf("duplicates dropped, by source id (-want +got):\n%s", diff)
	}
	wantFilled := []Filled{{Field: FieldDifficulty, Value: "intermediate", Records: 435, Reason: "the source has no difficulty"}}
	if diff := cmp.Diff(wantFilled, rep.Filled); diff != "" {
		t.Errorf("filled (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"CC-BY-SA 3": 55, "CC-BY-SA 4": 366, "CC0": 14}, rep.Licences); diff != "" {
		t.Errorf("licences (-want +got):\n%s", diff)
	}
	if len(rep.Attributions) != 435 {
		t.Errorf("%d attributions, want one per record out (435)", len(rep.Attributions))
	}
}

// Every value of free-exercise-db's schema has a mapping, except equipment
// "other", which only name rules map.
func TestFreeExerciseDBSchemaValuesMapped(t *testing.T) {
	data, err := os.ReadFile(datasetPath(t, "free-exercise-db", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type enum struct {
		Enum  []*string `json:"enum"`
		Items []struct {
			Enum []*string `json:"enum"`
		} `json:"items"`
	}
	var schema struct {
		Properties map[string]enum `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	values := func(prop string) []string {
		e := schema.Properties[prop]
		all := e.Enum
		for _, it := range e.Items {
			all = append(all, it.Enum...)
		}
		var out []string
		for _, v := range all {
			if v != nil {
				out = append(out, *v)
			}
		}
		if len(out) == 0 {
			t.Fatalf("schema.json: no values for %q", prop)
		}
		return out
	}
	m := freeExerciseDBMapping
	for _, v := range values("level") {
		if _, ok := m.levels[v]; !ok {
			t.Errorf("level %q unmapped", v)
		}
	}
	for prop, table := range map[string]map[string][]string{
		"category": m.categories, "equipment": m.equipments, "primaryMuscles": m.muscles, "secondaryMuscles": m.muscles,
	} {
		for _, v := range values(prop) {
			if _, ok := table[v]; !ok && !(prop == "equipment" && v == "other") {
				t.Errorf("%s %q unmapped", prop, v)
			}
		}
	}
}

// Every muscle, equipment and category the wger exports declare has a
// mapping, except "Gym mat".
func TestWgerExportValuesMapped(t *testing.T) {
	fsys := os.DirFS(datasetPath(t, "wger"))
	d, err := readWger(fsys, DefaultLanguage)
	if err != nil {
		t.Fatal(err)
	}
	m := wgerMapping
	for _, tt := range []struct {
		field    string
		declared map[int]string
		table    map[string][]string
		count    int
	}{
		{FieldMuscle, d.muscles, m.muscles, 16},
		{FieldEquipment, d.equipment, m.equipments, 12},
		{FieldCategory, d.categories, m.categories, 8},
	} {
		if len(tt.declared) != tt.count {
			t.Errorf("%d %s values in the export, want %d", len(tt.declared), tt.field, tt.count)
		}
		for _, v := range tt.declared {
			if _, ok := tt.table[v]; !ok && v != "Gym mat" {
				t.Errorf("%s %q unmapped", tt.field, v)
			}
		}
	}
}

// TestFreeExerciseDBCoverage measures how many free-exercise-db names the
// embedded catalogue holds. The catalogue is growing, so the figure only
// has a floor; the log line gives the figure of the day.
//
// Measured: with the 793 exercises committed at the time, 113 of 873 exact
// (12.9%) and 151 loose (17.3%); with 1,509 (work in progress), 135 (15.5%)
// and 175 (20.0%).
func TestFreeExerciseDBCoverage(t *testing.T) {
	names, err := ReadNames(FreeExerciseDB, datasetPath(t, "free-exercise-db", "exercises.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := exercise.Decode(bytes.NewReader(dataset.Default()))
	if err != nil {
		t.Fatal(err)
	}
	c := MeasureCoverage(names, f)
	t.Logf("free-exercise-db names in the embedded catalogue (%d exercises): exact %d of %d (%.1f%%), loose %d (%.1f%%)",
		c.Catalogue, c.Exact, c.Names, c.ExactPercent(), c.Loose, c.LoosePercent())
	if c.Names != 873 {
		t.Errorf("%d names, want 873", c.Names)
	}
	if c.Exact < 110 || c.Loose < 145 {
		t.Errorf("coverage fell to exact %d, loose %d: want at least 110 and 145", c.Exact, c.Loose)
	}
	if c.Exact+len(c.LooseOnly) != c.Loose || c.Loose+len(c.Unmatched) != c.Names {
		t.Errorf("figures do not add up: %d exact + %d loose only != %d loose, or + %d unmatched != %d",
			c.Exact, len(c.LooseOnly), c.Loose, len(c.Unmatched), c.Names)
	}
}

// TestWgerCoverage is the same figure for wger's English names.
//
// Measured: with 793 catalogue exercises, 116 of 872 exact (13.3%) and 173
// loose (19.8%); with 1,509, 133 (15.3%) and 199 (22.8%).
func TestWgerCoverage(t *testing.T) {
	names, err := ReadNames(Wger, datasetPath(t, "wger"), "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := exercise.Decode(bytes.NewReader(dataset.Default()))
	if err != nil {
		t.Fatal(err)
	}
	c := MeasureCoverage(names, f)
	t.Logf("wger names in the embedded catalogue (%d exercises): exact %d of %d (%.1f%%), loose %d (%.1f%%)",
		c.Catalogue, c.Exact, c.Names, c.ExactPercent(), c.Loose, c.LoosePercent())
	if c.Names != 872 {
		t.Errorf("%d names, want 872", c.Names)
	}
	if c.Exact < 100 || c.Loose < 150 {
		t.Errorf("coverage fell to exact %d, loose %d: want at least 100 and 150", c.Exact, c.Loose)
	}
}
