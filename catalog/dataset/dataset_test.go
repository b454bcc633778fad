package dataset_test

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/dataset/source"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// minExercises is the size the catalogue must keep at least.
const minExercises = 2000

// catalogue decodes the embedded file, failing the test if it is invalid.
func catalogue(t *testing.T) *exercise.File {
	t.Helper()
	f, err := exercise.Decode(bytes.NewReader(dataset.Default()))
	if err != nil {
		t.Fatalf("embedded catalogue does not decode: %v", err)
	}
	return f
}

// pinnedIDs returns the ids the source pins, by exercise name.
func pinnedIDs(t *testing.T) map[string]string {
	t.Helper()
	src, err := source.Read(os.DirFS("source"))
	if err != nil {
		t.Fatalf("read source: %v", err)
	}
	pinned := make(map[string]string)
	for _, f := range src.Families {
		for _, v := range f.Variants {
			if v.ID != "" {
				pinned[v.Name] = v.ID
			}
		}
	}
	return pinned
}

func TestEmbeddedCatalogueIsCurrent(t *testing.T) {
	_, want, err := source.Generate(os.DirFS("source"))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if !bytes.Equal(dataset.Default(), want) {
		t.Fatal("catalogue.json is stale; run: go generate ./catalog/dataset")
	}
}

func TestCatalogueSize(t *testing.T) {
	if n := len(catalogue(t).Exercises); n < minExercises {
		t.Errorf("catalogue has %d exercises, want at least %d", n, minExercises)
	}
}

func TestVocabulariesAreTheAgreedOnes(t *testing.T) {
	v := catalogue(t).Vocabularies
	muscles := make(map[string]string)
	for _, m := range v.Muscles {
		muscles[m.Name] = m.BodyPart
	}
	wantMuscles := map[string][]string{
		"neck":       {"sternocleidomastoid", "splenius", "levator scapulae"},
		"shoulders":  {"anterior deltoid", "lateral deltoid", "posterior deltoid", "supraspinatus", "infraspinatus", "teres minor", "subscapularis"},
		"chest":      {"pectoralis major", "pectoralis minor", "serratus anterior"},
		"back":       {"latissimus dorsi", "upper trapezius", "middle trapezius", "lower trapezius", "rhomboids", "teres major", "erector spinae"},
		"upper arms": {"biceps brachii", "brachialis", "triceps brachii"},
		"lower arms": {"brachioradialis", "wrist flexors", "wrist extensors"},
		"waist":      {"rectus abdominis", "external obliques", "internal obliques", "transverse abdominis", "quadratus lumborum"},
		"hips":       {"gluteus maximus", "gluteus medius", "gluteus minimus", "iliopsoas", "tensor fasciae latae"},
		"upper legs": {"quadriceps", "hamstrings", "adductors"},
		"lower legs": {"gastrocnemius", "soleus", "tibialis anterior", "peroneals"},
	}
	t.Run("bodyParts", func(t *testing.T) {
		want := []string{"neck", "shoulders", "chest", "back", "upper arms", "lower arms", "waist", "hips", "upper legs", "lower legs"}
		if got := exercise.Names(v.BodyParts); !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("muscles", func(t *testing.T) {
		want := make(map[string]string)
		for bp, names := range wantMuscles {
			for _, m := range names {
				want[m] = bp
			}
		}
		if !maps.Equal(muscles, want) {
			t.Errorf("got %v,\nwant %v", muscles, want)
		}
	})
	t.Run("equipments", func(t *testing.T) {
		got := exercise.Names(v.Equipments)
		for _, e := range []string{"body weight", "barbell", "dumbbell", "kettlebell", "cable", "resistance band", "smith machine", "ez barbell", "trap bar", "medicine ball", "stability ball", "bosu ball", "leverage machine", "sled", "pull-up bar", "dip station", "bench", "suspension trainer", "battle ropes", "jump rope", "plyo box", "foam roller", "weight plate", "landmine", "rowing machine", "stationary bike", "treadmill", "elliptical trainer", "stair climber", "ab wheel", "sandbag", "parallettes", "gymnastic rings", "ski erg", "atlas stone", "tyre", "climbing rope"} {
			if !slices.Contains(got, e) {
				t.Errorf("%q missing", e)
			}
		}
	})
	t.Run("exerciseTypes", func(t *testing.T) {
		want := []exercise.ExerciseType{}
		for _, n := range []string{"strength", "cardio", "plyometrics", "stretching", "weightlifting", "yoga", "aerobic"} {
			want = append(want, exercise.ExerciseType{Name: n, MediaKey: "types/" + n})
		}
		if !slices.Equal(v.ExerciseTypes, want) {
			t.Errorf("got %v, want %v", v.ExerciseTypes, want)
		}
	})
	t.Run("difficulties", func(t *testing.T) {
		want := []string{"beginner", "intermediate", "advanced"}
		if got := exercise.Names(v.Difficulties); !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestIDs(t *testing.T) {
	pinned := pinnedIDs(t)
	seen := make(map[string]string)
	for _, x := range catalogue(t).Exercises {
		want := exercise.IDFor(x.Name)
		if id, ok := pinned[x.Name]; ok {
			want = id
		}
		if x.ID != want {
			t.Errorf("%q: id %q, want %q", x.Name, x.ID, want)
		}
		if other, dup := seen[x.ID]; dup {
			t.Errorf("%q and %q share id %q", x.Name, other, x.ID)
		}
		seen[x.ID] = x.Name
	}
}

func TestNamesAreUniqueAndCanonical(t *testing.T) {
	seen := make(map[string]string)
	for _, x := range catalogue(t).Exercises {
		if c := exercise.Canonical(x.Name); c != x.Name {
			t.Errorf("%q: name not canonical, want %q", x.Name, c)
		}
		key := exercise.SearchKey(x.Name)
		if other, dup := seen[key]; dup {
			t.Errorf("%q and %q have the same search key %q", x.Name, other, key)
		}
		seen[key] = x.Name
	}
}

func TestRecordsAreComplete(t *testing.T) {
	for _, x := range catalogue(t).Exercises {
		fields := []struct {
			name string
			ok   bool
		}{
			{"id", x.ID != ""},
			{"name", x.Name != ""},
			{"bodyParts", len(x.BodyParts) > 0},
			{"equipments", len(x.Equipments) > 0},
			{"exerciseTypes", len(x.ExerciseTypes) > 0},
			{"difficulty", x.Difficulty != ""},
			{"targetMuscles", len(x.TargetMuscles) > 0},
			{"secondaryMuscles", x.SecondaryMuscles != nil},
			{"mediaKey", x.MediaKey == "exercises/"+x.ID},
		}
		for _, f := range fields {
			if !f.ok {
				t.Errorf("%q (%s): field %s is missing or wrong", x.Name, x.ID, f.name)
			}
		}
	}
}

func TestBodyPartsFollowTargetMuscles(t *testing.T) {
	f := catalogue(t)
	bodyPart := make(map[string]string)
	for _, m := range f.Vocabularies.Muscles {
		bodyPart[m.Name] = m.BodyPart
	}
	for _, x := range f.Exercises {
		want := make(map[string]bool)
		for _, m := range x.TargetMuscles {
			want[bodyPart[m]] = true
		}
		got := make(map[string]bool)
		for _, bp := range x.BodyParts {
			got[bp] = true
		}
		if !maps.Equal(got, want) || len(got) != len(x.BodyParts) {
			t.Errorf("%q: bodyParts %q, want the body parts of %q", x.Name, x.BodyParts, x.TargetMuscles)
		}
	}
}

func TestEveryVocabularyValueIsUsed(t *testing.T) {
	f := catalogue(t)
	used := map[string]map[string]bool{}
	mark := func(vocabulary string, values ...string) {
		if used[vocabulary] == nil {
			used[vocabulary] = make(map[string]bool)
		}
		for _, v := range values {
			used[vocabulary][v] = true
		}
	}
	for _, x := range f.Exercises {
		mark("bodyParts", x.BodyParts...)
		mark("muscles", x.TargetMuscles...)
		mark("muscles", x.SecondaryMuscles...)
		mark("equipments", x.Equipments...)
		mark("exerciseTypes", x.ExerciseTypes...)
		mark("difficulties", x.Difficulty)
	}
	v := f.Vocabularies
	declared := map[string][]string{
		"bodyParts":     exercise.Names(v.BodyParts),
		"muscles":       exercise.Names(v.Muscles),
		"equipments":    exercise.Names(v.Equipments),
		"exerciseTypes": exercise.Names(v.ExerciseTypes),
		"difficulties":  exercise.Names(v.Difficulties),
	}
	for _, vocabulary := range slices.Sorted(maps.Keys(declared)) {
		t.Run(vocabulary, func(t *testing.T) {
			for _, value := range declared[vocabulary] {
				if !used[vocabulary][value] {
					t.Errorf("%q is used by no exercise", value)
				}
			}
		})
	}
}

// TestNoNearDuplicateValues guards the vocabularies against values a user
// could not tell apart: equal search keys ("pull-up bar", "pullup bar") or
// a singular and its plural ("quadricep", "quadriceps").
func TestNoNearDuplicateValues(t *testing.T) {
	v := catalogue(t).Vocabularies
	vocabularies := map[string][]string{
		"bodyParts":     exercise.Names(v.BodyParts),
		"muscles":       exercise.Names(v.Muscles),
		"equipments":    exercise.Names(v.Equipments),
		"exerciseTypes": exercise.Names(v.ExerciseTypes),
		"difficulties":  exercise.Names(v.Difficulties),
	}
	for _, vocabulary := range slices.Sorted(maps.Keys(vocabularies)) {
		t.Run(vocabulary, func(t *testing.T) {
			seen := make(map[string]string)
			for _, value := range vocabularies[vocabulary] {
				key := strings.TrimSuffix(exercise.SearchKey(value), "s")
				if other, dup := seen[key]; dup {
					t.Errorf("%q and %q are near-duplicates", value, other)
				}
				seen[key] = value
			}
		})
	}
}
