package importer

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// The wger exports ImportWger reads, by file name. licenses.json is
// optional: without it, licences are named by their key.
const (
	WgerExercisesFile    = "exercise-base-data.json"
	WgerTranslationsFile = "translations.json"
	WgerMusclesFile      = "muscles.json"
	WgerEquipmentFile    = "equipment.json"
	WgerCategoriesFile   = "categories.json"
	WgerLanguagesFile    = "languages.json"
	WgerLicencesFile     = "licenses.json"
)

// fixture is one object of a Django fixture export.
type fixture struct {
	Model  string          `json:"model"`
	PK     int             `json:"pk"`
	Fields json.RawMessage `json:"fields"`
}

// readFixtures decodes the objects of model in a fixture file, with their
// fields decoded into T, in file order.
func readFixtures[T any](fsys fs.FS, file, model string) ([]int, []T, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, nil, err
	}
	var all []fixture
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	var (
		pks    []int
		fields []T
	)
	for i, o := range all {
		if o.Model != model {
			continue
		}
		var f T
		if err := json.Unmarshal(o.Fields, &f); err != nil {
			return nil, nil, fmt.Errorf("%s: object %d (%s %d): %w", file, i, o.Model, o.PK, err)
		}
		pks = append(pks, o.PK)
		fields = append(fields, f)
	}
	if len(pks) == 0 {
		return nil, nil, fmt.Errorf("%s: no %s objects", file, model)
	}
	return pks, fields, nil
}

// namesByPK reads a fixture file of named objects into pk → name.
func namesByPK(fsys fs.FS, file, model string, name func(f map[string]any) string) (map[int]string, error) {
	pks, fields, err := readFixtures[map[string]any](fsys, file, model)
	if err != nil {
		return nil, err
	}
	out := make(map[int]string, len(pks))
	for i, pk := range pks {
		out[pk] = name(fields[i])
	}
	return out, nil
}

func stringField(key string) func(map[string]any) string {
	return func(f map[string]any) string {
		s, _ := f[key].(string)
		return s
	}
}

type wgerExercise struct {
	UUID             string `json:"uuid"`
	Category         int    `json:"category"`
	Muscles          []int  `json:"muscles"`
	MusclesSecondary []int  `json:"muscles_secondary"`
	Equipment        []int  `json:"equipment"`
	License          int    `json:"license"`
	LicenseAuthor    string `json:"license_author"`
}

type wgerTranslation struct {
	Exercise      int    `json:"exercise"`
	Language      int    `json:"language"`
	Name          string `json:"name"`
	License       int    `json:"license"`
	LicenseAuthor string `json:"license_author"`
}

// wgerData is what ImportWger reads from the exports.
type wgerData struct {
	exercisePKs []int
	exercises   []wgerExercise
	// names holds the chosen language's translation of each exercise
	// (the one with the lowest key if there are several).
	names                                   map[int]wgerTranslation
	muscles, equipment, categories, licence map[int]string
}

func readWger(fsys fs.FS, language string) (*wgerData, error) {
	languages, err := namesByPK(fsys, WgerLanguagesFile, "core.language", stringField("short_name"))
	if err != nil {
		return nil, err
	}
	lang, found := 0, false
	for pk, short := range languages {
		if short == language && (!found || pk < lang) {
			lang, found = pk, true
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: no language with short name %q", WgerLanguagesFile, language)
	}
	d := &wgerData{}
	if d.muscles, err = namesByPK(fsys, WgerMusclesFile, "exercises.muscle", stringField("name")); err != nil {
		return nil, err
	}
	if d.equipment, err = namesByPK(fsys, WgerEquipmentFile, "exercises.equipment", stringField("name")); err != nil {
		return nil, err
	}
	if d.categories, err = namesByPK(fsys, WgerCategoriesFile, "exercises.exercisecategory", stringField("name")); err != nil {
		return nil, err
	}
	d.licence, err = namesByPK(fsys, WgerLicencesFile, "core.license", stringField("short_name"))
	if errors.Is(err, fs.ErrNotExist) {
		d.licence, err = map[int]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if d.exercisePKs, d.exercises, err = readFixtures[wgerExercise](fsys, WgerExercisesFile, "exercises.exercise"); err != nil {
		return nil, err
	}
	tpks, translations, err := readFixtures[wgerTranslation](fsys, WgerTranslationsFile, "exercises.translation")
	if err != nil {
		return nil, err
	}
	d.names = make(map[int]wgerTranslation)
	best := make(map[int]int) // exercise → translation pk chosen
	for i, t := range translations {
		if t.Language != lang {
			continue
		}
		if pk, ok := best[t.Exercise]; !ok || tpks[i] < pk {
			best[t.Exercise] = tpks[i]
			d.names[t.Exercise] = t
		}
	}
	return d, nil
}

// ImportWger converts wger's exports, found in fsys under their upstream
// file names (the Wger*File constants). Exercises are named by their
// translation in opt.Language and read in key order, so that of two with
// the same name the older is kept.
func ImportWger(fsys fs.FS, opt Options) (*exercise.File, *Report, error) {
	d, err := readWger(fsys, cmp.Or(opt.Language, DefaultLanguage))
	if err != nil {
		return nil, nil, fmt.Errorf("wger: %w", err)
	}
	order := make([]int, len(d.exercisePKs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(d.exercisePKs[a], d.exercisePKs[b]) })

	named := func(m map[int]string, pks []int) []string {
		out := make([]string, 0, len(pks))
		for _, pk := range pks {
			n, ok := m[pk]
			if !ok || n == "" {
				n = "#" + strconv.Itoa(pk) // an unknown key: reported as an unmapped value
			}
			out = append(out, n)
		}
		return out
	}
	licence := func(pk int) string {
		if l, ok := d.licence[pk]; ok && l != "" {
			return l
		}
		return "licence #" + strconv.Itoa(pk)
	}
	recs := make([]record, 0, len(order))
	for _, i := range order {
		pk, x := d.exercisePKs[i], d.exercises[i]
		t, ok := d.names[pk]
		r := record{
			sourceID:      strconv.Itoa(pk),
			name:          t.Name,
			primary:       named(d.muscles, x.Muscles),
			secondary:     named(d.muscles, x.MusclesSecondary),
			equipment:     named(d.equipment, x.Equipment),
			category:      named(d.categories, []int{x.Category}),
			noTranslation: !ok,
			attribution: &Attribution{
				SourceID:    strconv.Itoa(pk),
				UUID:        x.UUID,
				Licence:     licence(x.License),
				Author:      x.LicenseAuthor,
				NameLicence: licence(t.License),
				NameAuthor:  t.LicenseAuthor,
			},
		}
		if x.Category == 0 {
			r.category = nil
		}
		recs = append(recs, r)
	}
	return convert(Wger, recs, wgerMapping, opt)
}

// wgerNames returns the exercise names in the chosen language, in key order.
func wgerNames(fsys fs.FS, language string) ([]string, error) {
	d, err := readWger(fsys, cmp.Or(language, DefaultLanguage))
	if err != nil {
		return nil, fmt.Errorf("wger: %w", err)
	}
	pks := slices.Sorted(maps.Keys(d.names))
	names := make([]string, len(pks))
	for i, pk := range pks {
		names[i] = d.names[pk].Name
	}
	return names, nil
}

// wgerMapping maps wger's muscles (by Latin name), equipment and
// categories onto ours. wger has no difficulty: Options.Difficulty fills
// it. docs/importers.md gives the reasons.
var wgerMapping = &mapping{
	categories: map[string][]string{
		"Cardio": {"cardio"},
		// The other categories are body regions, not kinds of exercise:
		// wger files resistance exercises under them. They give the type
		// "strength" unless the name says stretch or yoga (rules below);
		// they give no body part, which comes from the target muscles.
		"Abs":       {"strength"},
		"Arms":      {"strength"},
		"Back":      {"strength"},
		"Calves":    {"strength"},
		"Chest":     {"strength"},
		"Legs":      {"strength"},
		"Shoulders": {"strength"},
	},
	equipments: map[string][]string{
		"Barbell":                    {"barbell"},
		"SZ-Bar":                     {"ez barbell"},
		"Dumbbell":                   {"dumbbell"},
		"Swiss Ball":                 {"stability ball"},
		"Pull-up bar":                {"pull-up bar"},
		"none (bodyweight exercise)": {"body weight"},
		"Bench":                      {"bench"},
		"Incline bench":              {"bench"},
		"Kettlebell":                 {"kettlebell"},
		"Resistance band":            {"resistance band"},
		"Cable machine":              {"cable"},
		// "Gym mat" has no entry: a mat is not in our vocabulary, and
		// mat-only records include machine exercises, so it does not
		// stand for body weight either.
	},
	muscles: map[string][]string{
		"Biceps brachii": {"biceps brachii"},
		// wger has one deltoid value (English name "Shoulders") and files
		// lateral raises and rear-delt flyes under it too: the whole
		// deltoid, as for free-exercise-db's "shoulders".
		"Anterior deltoid":            {"anterior deltoid", "lateral deltoid", "posterior deltoid"},
		"Serratus anterior":           {"serratus anterior"},
		"Pectoralis major":            {"pectoralis major"},
		"Triceps brachii":             {"triceps brachii"},
		"Rectus abdominis":            {"rectus abdominis"},
		"Gastrocnemius":               {"gastrocnemius"},
		"Gluteus maximus":             {"gluteus maximus"},
		"Trapezius":                   {"upper trapezius", "middle trapezius", "lower trapezius"},
		"Quadriceps femoris":          {"quadriceps"},
		"Biceps femoris":              {"hamstrings"},
		"Latissimus dorsi":            {"latissimus dorsi"},
		"Brachialis":                  {"brachialis"},
		"Obliquus externus abdominis": {"external obliques"},
		"Soleus":                      {"soleus"},
		"Erector spinae":              {"erector spinae"},
	},
	rules: []nameRule{
		{field: FieldCategory, phrases: []string{"stretch", "stretches", "stretching"}, to: []string{"stretching"}},
		{field: FieldCategory, phrases: []string{"yoga"}, to: []string{"yoga"}},
	},
}
