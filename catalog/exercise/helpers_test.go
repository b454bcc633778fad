package exercise

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// testVocabularies is a small closed vocabulary for hand-made catalogues.
func testVocabularies() Vocabularies {
	return Vocabularies{
		BodyParts:  []Term{{"chest"}, {"back"}, {"upper legs"}, {"waist"}},
		Muscles:    []Muscle{{"pectoralis major", "chest"}, {"latissimus dorsi", "back"}, {"quadriceps", "upper legs"}, {"hamstrings", "upper legs"}, {"rectus abdominis", "waist"}},
		Equipments: []Term{{"barbell"}, {"dumbbell"}, {"body weight"}, {"cable"}, {"sled"}},
		ExerciseTypes: []ExerciseType{
			{"strength", "types/strength"}, {"cardio", "types/cardio"}, {"stretching", "types/stretching"},
		},
		Difficulties: []Term{{"beginner"}, {"intermediate"}, {"advanced"}},

		MovementPatterns: []Term{{"horizontal push"}, {"squat"}, {"hinge"}, {"stretch"}},
		Mechanics:        []Term{{"compound"}, {"isolation"}},
		Forces:           []Term{{"push"}, {"pull"}, {"static"}, {"other"}},
		Lateralities:     []Term{{"bilateral"}, {"unilateral"}, {"alternating"}},
		Measures:         []Term{{"reps"}, {"time"}, {"distance"}},
	}
}

// withTraining gives every record of f a random training drawn from
// testVocabularies (the pattern too), reproducible from seed, from a
// generator of its own so that the rest of the records stay as they were.
func withTraining(f *File, seed uint64) *File {
	rng := rand.New(rand.NewPCG(seed, ^seed))
	v := testVocabularies()
	one := func(ts []Term) string { return ts[rng.IntN(len(ts))].Name }
	for i := range f.Exercises {
		x := &f.Exercises[i]
		x.Pattern = one(v.MovementPatterns)
		t := &Training{MovementPattern: x.Pattern, Mechanics: one(v.Mechanics), Force: one(v.Forces),
			Laterality: one(v.Lateralities), Measure: one(v.Measures[:2]), Prescription: Prescription{Sets: []int{2, 3}}}
		if t.Measure == "reps" {
			t.Prescription.Reps = []int{8, 12}
		} else {
			t.Prescription.Seconds = []int{20, 30}
		}
		x.Training = t // "distance" stays unused
	}
	return f
}

// randomFile returns a catalogue of n records with ids r0000.. and values
// drawn from testVocabularies, reproducible from seed.
func randomFile(n int, seed uint64) *File {
	rng := rand.New(rand.NewPCG(seed, seed))
	v := testVocabularies()
	pick := func(names []string, most int) []string {
		k := 1 + rng.IntN(most)
		out := slices.Clone(names)
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out[:min(k, len(out))]
	}
	words := []string{"bench", "press", "row", "pull-up", "squat", "curl", "plank", "lunge", "incline", "front"}
	f := &File{Format: FormatV1, Vocabularies: v}
	muscles := Names(v.Muscles)
	for i := range n {
		target := pick(muscles, 2)
		var parts []string
		for _, m := range v.Muscles {
			if slices.Contains(target, m.Name) && !slices.Contains(parts, m.BodyPart) {
				parts = append(parts, m.BodyPart)
			}
		}
		f.Exercises = append(f.Exercises, Exercise{
			ID:               fmt.Sprintf("r%05d", i),
			Name:             fmt.Sprintf("%s %s %d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i),
			BodyParts:        parts,
			Equipments:       pick(Names(v.Equipments[:4]), 2), // "sled" stays unused
			ExerciseTypes:    pick(Names(v.ExerciseTypes), 2),
			Difficulty:       Names(v.Difficulties)[rng.IntN(3)],
			TargetMuscles:    target,
			SecondaryMuscles: pick(muscles, 3)[:rng.IntN(3)],
		})
	}
	return f
}

func mustNew(t testing.TB, f *File) *Catalogue {
	t.Helper()
	c, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// model is the specification of List written as plainly as possible: a
// scan of every record. Tests compare the index against it.
func model(f *File, flt Filter, p PageRequest) (Page, error) {
	xs := slices.SortedFunc(slices.Values(f.Exercises), func(a, b Exercise) int { return cmp.Compare(a.ID, b.ID) })
	anyOf := func(want, have []string) bool {
		var nonBlank int
		for _, w := range want {
			w = Canonical(w)
			if w == "" {
				continue
			}
			nonBlank++
			if slices.Contains(have, w) {
				return true
			}
		}
		return nonBlank == 0
	}
	var match []Exercise
	for _, x := range xs {
		if anyOf(flt.BodyParts, x.BodyParts) && anyOf(flt.Equipments, x.Equipments) &&
			anyOf(flt.Difficulties, []string{x.Difficulty}) && anyOf(flt.ExerciseTypes, x.ExerciseTypes) &&
			anyOf(flt.TargetMuscles, x.TargetMuscles) && anyOf(flt.SecondaryMuscles, x.SecondaryMuscles) &&
			anyOf(flt.MovementPatterns, trainingField(x, func(t *Training) string { return t.MovementPattern })) &&
			anyOf(flt.Mechanics, trainingField(x, func(t *Training) string { return t.Mechanics })) &&
			anyOf(flt.Forces, trainingField(x, func(t *Training) string { return t.Force })) &&
			anyOf(flt.Lateralities, trainingField(x, func(t *Training) string { return t.Laterality })) &&
			anyOf(flt.Measures, trainingField(x, func(t *Training) string { return t.Measure })) &&
			strings.Contains(SearchKey(x.Name), SearchKey(flt.Name)) {
			match = append(match, x)
		}
	}
	limit := cmp.Or(p.Limit, DefaultLimit)
	reach := match
	past := "" // under a cap, the catalogue's record right after the last reachable one
	if p.RecordCap > 0 && len(match) > p.RecordCap {
		reach = match[:p.RecordCap]
		j, _ := slices.BinarySearchFunc(xs, reach[len(reach)-1].ID+"\x00", func(x Exercise, id string) int { return cmp.Compare(x.ID, id) })
		past = xs[j].ID
		for _, c := range []struct{ field, id string }{{FieldAfter, p.After}, {FieldBefore, p.Before}} {
			if c.id != "" && c.id > reach[len(reach)-1].ID && (c.field != FieldBefore || c.id != past) {
				return Page{}, &CapError{Field: c.field, Value: c.id, RecordCap: p.RecordCap}
			}
		}
	}
	var page []Exercise
	var before, after []Exercise // reachable records around the page
	switch {
	case p.Before != "":
		i, _ := slices.BinarySearchFunc(reach, p.Before, func(x Exercise, id string) int { return cmp.Compare(x.ID, id) })
		page, after = reach[max(0, i-limit):i], reach[i:]
		before = reach[:max(0, i-limit)]
	default:
		i := 0
		if p.After != "" {
			i, _ = slices.BinarySearchFunc(reach, p.After+"\x00", func(x Exercise, id string) int { return cmp.Compare(x.ID, id) })
		}
		before = reach[:i]
		page = reach[i:min(len(reach), i+limit)]
		after = reach[min(len(reach), i+limit):]
	}
	out := Page{Exercises: refs(page), Total: len(reach), HasNextPage: len(after) > 0, HasPreviousPage: len(before) > 0}
	if len(page) > 0 && out.HasNextPage {
		out.NextCursor = page[len(page)-1].ID
	}
	if len(page) > 0 && out.HasPreviousPage {
		out.PreviousCursor = page[0].ID
	}
	if len(page) == 0 && out.HasPreviousPage && past != "" {
		out.PreviousCursor = past
	}
	return out, nil
}

// trainingField returns the field of x's training that get reads, none
// when x has no training.
func trainingField(x Exercise, get func(*Training) string) []string {
	if x.Training == nil {
		return nil
	}
	return []string{get(x.Training)}
}

// refs returns pointers to the records of xs, never nil.
func refs(xs []Exercise) []*Exercise {
	out := make([]*Exercise, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}

func ids(xs []*Exercise) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.ID
	}
	return out
}
