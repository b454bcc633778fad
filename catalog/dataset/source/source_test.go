package source

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

const testVocabularies = `bodyParts: [chest, back, upper arms]
muscles:
  - bodyPart: chest
    names: [pectoralis major]
  - bodyPart: back
    names: [latissimus dorsi]
  - bodyPart: upper arms
    names: [biceps brachii, triceps brachii]
equipments: [body weight, barbell, bench, pull-up bar]
exerciseTypes: [strength, power lifting]
difficulties: [beginner, intermediate]
patterns: [horizontal push, vertical pull]
mechanics: [compound, isolation]
forces: [push, pull, static, other]
lateralities: [bilateral, unilateral, alternating]
measures: [reps, time, distance]
prescriptions:
  - name: strength
    measure: reps
    doses:
      beginner: {sets: [2, 3], reps: [8, 12]}
      intermediate: {sets: [3, 4], reps: [6, 10]}
  - name: hold
    measure: time
    doses:
      beginner: {sets: [2, 3], seconds: [15, 30]}
      intermediate: {sets: [3, 4], seconds: [20, 45]}
`

// testPress is families/press.yaml of the test source. Tests refer to its
// lines: the family starts on line 1, the variants on lines 12 and 13.
const testPress = `- family: press
  targetMuscles: [pectoralis major]
  secondaryMuscles: [triceps brachii]
  exerciseTypes: [strength]
  difficulty: beginner
  pattern: horizontal push
  training: {mechanics: compound, force: push, laterality: bilateral, measure: reps, prescription: strength}
  description: The {name} is a test exercise that trains the chest.
  instructions: [Get into position., Move the weight through the full range., Return to the start.]
  tips: [Keep your shoulder blades pulled back.]
  variants:
    - {name: barbell bench press, equipments: [barbell, bench], difficulty: intermediate}
    - {name: push-up, equipments: [body weight]}
`

// testSource returns a valid source directory with files replaced or added
// by edits; an empty content removes the file.
func testSource(t *testing.T, edits map[string]string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{
		VocabulariesFile:      {Data: []byte(testVocabularies)},
		"families/press.yaml": {Data: []byte(testPress)},
	}
	for name, content := range edits {
		if content == "" {
			delete(fsys, name)
			continue
		}
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	return fsys
}

// generate runs Generate and fails the test on error.
func generate(t *testing.T, fsys fstest.MapFS) *exercise.File {
	t.Helper()
	f, _, err := Generate(fsys)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return f
}

// byName returns the record named name.
func byName(t *testing.T, f *exercise.File, name string) exercise.Exercise {
	t.Helper()
	i := slices.IndexFunc(f.Exercises, func(x exercise.Exercise) bool { return x.Name == name })
	if i < 0 {
		t.Fatalf("no exercise named %q", name)
	}
	return f.Exercises[i]
}

// wantError fails the test unless err holds every one of wants.
func wantError(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", wants)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not contain %q:\n%v", w, err)
		}
	}
}

func TestGenerateExpandsFamilies(t *testing.T) {
	f := generate(t, testSource(t, nil))
	want := []exercise.Exercise{{
		ID:               exercise.IDFor("barbell bench press"),
		Name:             "barbell bench press",
		BodyParts:        []string{"chest"},
		Equipments:       []string{"barbell", "bench"},
		ExerciseTypes:    []string{"strength"},
		Difficulty:       "intermediate",
		TargetMuscles:    []string{"pectoralis major"},
		SecondaryMuscles: []string{"triceps brachii"},
		MediaKey:         "exercises/" + exercise.IDFor("barbell bench press"),
	}, {
		ID:               exercise.IDFor("push-up"),
		Name:             "push-up",
		BodyParts:        []string{"chest"},
		Equipments:       []string{"body weight"},
		ExerciseTypes:    []string{"strength"},
		Difficulty:       "beginner",
		TargetMuscles:    []string{"pectoralis major"},
		SecondaryMuscles: []string{"triceps brachii"},
		MediaKey:         "exercises/" + exercise.IDFor("push-up"),
	}}
	for _, w := range want {
		t.Run(w.Name, func(t *testing.T) {
			got := byName(t, f, w.Name)
			if !equalExercise(got, w) {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
		})
	}
	t.Run("type media keys", func(t *testing.T) {
		got := f.Vocabularies.ExerciseTypes
		want := []exercise.ExerciseType{{Name: "strength", MediaKey: "types/strength"}, {Name: "power lifting", MediaKey: "types/power-lifting"}}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
}

func equalExercise(a, b exercise.Exercise) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Difficulty == b.Difficulty && a.MediaKey == b.MediaKey &&
		slices.Equal(a.BodyParts, b.BodyParts) && slices.Equal(a.Equipments, b.Equipments) &&
		slices.Equal(a.ExerciseTypes, b.ExerciseTypes) && slices.Equal(a.TargetMuscles, b.TargetMuscles) &&
		slices.Equal(a.SecondaryMuscles, b.SecondaryMuscles)
}

func TestVariantOverrides(t *testing.T) {
	const pull = `- family: pull
  targetMuscles: [latissimus dorsi]
  secondaryMuscles: [biceps brachii]
  exerciseTypes: [strength]
  difficulty: intermediate
  pattern: vertical pull
  training: {mechanics: compound, force: pull, laterality: bilateral, measure: reps, prescription: strength}
  description: The {name} is a test exercise that trains the back.
  instructions: [Get into position., Move the weight through the full range., Return to the start.]
  tips: [Keep your shoulder blades pulled back.]
  variants:
    - {name: pull-up, equipments: [body weight, pull-up bar], id: keptid}
    - {name: chin-up, equipments: [body weight, pull-up bar], targetMuscles: [biceps brachii, latissimus dorsi], secondaryMuscles: []}
    - {name: power pull-up, equipments: [body weight, pull-up bar], exerciseTypes: [power lifting, strength]}
    - {name: one-arm hang, equipments: [pull-up bar], difficulty: beginner, training: {laterality: unilateral, force: static, measure: time, prescription: hold}}
`
	f := generate(t, testSource(t, map[string]string{"families/pull.yaml": pull}))
	tests := []struct {
		name, exercise string
		got            func(exercise.Exercise) []string
		want           []string
	}{
		{"id pinned", "pull-up", func(x exercise.Exercise) []string { return []string{x.ID, x.MediaKey} }, []string{"keptid", "exercises/keptid"}},
		{"secondary cleared", "chin-up", func(x exercise.Exercise) []string { return x.SecondaryMuscles }, []string{}},
		{"secondary inherited", "pull-up", func(x exercise.Exercise) []string { return x.SecondaryMuscles }, []string{"biceps brachii"}},
		{"body parts follow target, in vocabulary order", "chin-up", func(x exercise.Exercise) []string { return x.BodyParts }, []string{"back", "upper arms"}},
		{"types replaced", "power pull-up", func(x exercise.Exercise) []string { return x.ExerciseTypes }, []string{"power lifting", "strength"}},
		{"training inherited, dose of the difficulty", "pull-up", trainingOf, []string{"vertical pull", "compound", "pull", "bilateral", "reps", "[3 4]", "[6 10]", "[]", "[]"}},
		{"training fields overridden one by one", "one-arm hang", trainingOf, []string{"vertical pull", "compound", "static", "unilateral", "time", "[2 3]", "[]", "[15 30]", "[]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.got(byName(t, f, tt.exercise))
			if got == nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// trainingOf lists a record's training: pattern, mechanics, force,
// laterality, measure, then sets, reps, seconds and meters.
func trainingOf(x exercise.Exercise) []string {
	t := x.Training
	if t == nil {
		return nil
	}
	p := t.Prescription
	out := []string{t.MovementPattern, t.Mechanics, t.Force, t.Laterality, t.Measure}
	for _, r := range [][]int{p.Sets, p.Reps, p.Seconds, p.Meters} {
		out = append(out, fmt.Sprint(r))
	}
	return out
}

func TestReadRejects(t *testing.T) {
	tests := []struct {
		name  string
		edits map[string]string
		want  []string
	}{{
		name:  "unknown variant key",
		edits: map[string]string{"families/press.yaml": strings.Replace(testPress, "{name: push-up, equipments:", "{name: push-up, equipment:", 1)},
		want:  []string{`families/press.yaml:13: unknown key "equipment"`},
	}, {
		name:  "unknown family key",
		edits: map[string]string{"families/press.yaml": strings.Replace(testPress, "  difficulty: beginner", "  level: beginner", 1)},
		want:  []string{`families/press.yaml:5: unknown key "level"`},
	}, {
		name:  "unknown vocabulary key",
		edits: map[string]string{VocabulariesFile: testVocabularies + "equipment: [sled]\n"},
		want:  []string{`vocabularies.yaml:28: unknown key "equipment"`},
	}, {
		name:  "unknown key in a muscle group",
		edits: map[string]string{VocabulariesFile: strings.Replace(testVocabularies, "    names: [latissimus dorsi]", "    name: [latissimus dorsi]", 1)},
		want:  []string{`vocabularies.yaml:6: unknown key "name"`},
	}, {
		name:  "duplicate key",
		edits: map[string]string{"families/press.yaml": testPress + "  difficulty: beginner\n"},
		want:  []string{`families/press.yaml:14: mapping key "difficulty" already defined at line 5`},
	}, {
		name:  "syntax error",
		edits: map[string]string{"families/press.yaml": testPress + "  - {name: [\n"},
		want:  []string{"families/press.yaml:"},
	}, {
		name:  "second document",
		edits: map[string]string{"families/press.yaml": testPress + "---\n" + testPress},
		want:  []string{"families/press.yaml:14: a second YAML document"},
	}, {
		name:  "empty family file",
		edits: map[string]string{"families/empty.yaml": "# nothing yet\n"},
		want:  []string{"families/empty.yaml: empty file"},
	}, {
		name:  "file that is not yaml",
		edits: map[string]string{"families/legs.yml": testPress},
		want:  []string{"families/legs.yml: not a .yaml file"},
	}, {
		name:  "no family files",
		edits: map[string]string{"families/press.yaml": ""},
		want:  []string{"families/: no family files"},
	}, {
		name:  "no vocabularies",
		edits: map[string]string{VocabulariesFile: ""},
		want:  []string{VocabulariesFile},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Generate(testSource(t, tt.edits))
			wantError(t, err, tt.want...)
		})
	}
}

func TestBuildRejects(t *testing.T) {
	press := func(old, new string) map[string]string {
		return map[string]string{"families/press.yaml": strings.Replace(testPress, old, new, 1)}
	}
	const variant = "{name: push-up, equipments: [body weight]}"
	tests := []struct {
		name  string
		edits map[string]string
		want  []string
	}{{
		name:  "duplicate name in another file",
		edits: map[string]string{"families/more.yaml": strings.Replace(testPress, "push-up", "Push Up", 1)},
		want:  []string{`families/press.yaml:13: "push-up": name: duplicate of "Push Up" at families/more.yaml:13`},
	}, {
		name:  "duplicate name under search key",
		edits: press(variant, variant+"\n    - {name: pushup, equipments: [body weight]}"),
		want:  []string{`families/press.yaml:14: "pushup": name: duplicate of "push-up" at families/press.yaml:13`},
	}, {
		name:  "name not canonical",
		edits: press("name: push-up", "name: Push-Up"),
		want:  []string{`families/press.yaml:13: "Push-Up": name: not canonical, write "push-up"`},
	}, {
		name:  "undeclared equipment",
		edits: press("equipments: [body weight]", "equipments: [bodyweight]"),
		want:  []string{`families/press.yaml:13: "push-up": equipments: "bodyweight" is not declared in vocabularies.yaml`},
	}, {
		name:  "family without training",
		edits: press("  training: {mechanics: compound, force: push, laterality: bilateral, measure: reps, prescription: strength}\n", ""),
		want:  []string{`families/press.yaml:1: family "press": training: mechanics: missing`, `training: prescription: missing`},
	}, {
		name:  "undeclared training value",
		edits: press("force: push,", "force: press,"),
		want:  []string{`families/press.yaml:1: family "press": training: force: "press" is not declared in vocabularies.yaml`},
	}, {
		name:  "variant training value undeclared",
		edits: press(variant, "{name: push-up, equipments: [body weight], training: {laterality: one side}}"),
		want:  []string{`families/press.yaml:13: "push-up": training: laterality: "one side" is not declared in vocabularies.yaml`},
	}, {
		name:  "unknown prescription",
		edits: press("prescription: strength", "prescription: volume"),
		want:  []string{`training: prescription: "volume" is not in the prescriptions of vocabularies.yaml`},
	}, {
		name:  "prescription in another unit than the measure",
		edits: press(variant, "{name: push-up, equipments: [body weight], training: {measure: time}}"),
		want:  []string{`families/press.yaml:13: "push-up": training: prescription "strength" is counted in reps, not in time`},
	}, {
		name:  "prescription without a dose for a difficulty",
		edits: map[string]string{VocabulariesFile: strings.Replace(testVocabularies, "      intermediate: {sets: [3, 4], reps: [6, 10]}\n", "", 1)},
		want:  []string{`vocabularies.yaml: prescriptions: "strength": doses: intermediate: missing`},
	}, {
		name:  "undeclared family muscle",
		edits: press("targetMuscles: [pectoralis major]", "targetMuscles: [pecs]"),
		want:  []string{`families/press.yaml:1: family "press": targetMuscles: "pecs" is not declared`},
	}, {
		name:  "undeclared variant muscle",
		edits: press(variant, "{name: push-up, equipments: [body weight], secondaryMuscles: [triceps]}"),
		want:  []string{`families/press.yaml:13: "push-up": secondaryMuscles: "triceps" is not declared`},
	}, {
		name:  "undeclared exercise type",
		edits: press("exerciseTypes: [strength]", "exerciseTypes: [calisthenics]"),
		want:  []string{`exerciseTypes: "calisthenics" is not declared`},
	}, {
		name:  "undeclared difficulty",
		edits: press(variant, "{name: push-up, equipments: [body weight], difficulty: easy}"),
		want:  []string{`families/press.yaml:13: "push-up": difficulty: "easy" is not declared`},
	}, {
		name:  "missing equipments",
		edits: press(variant, "{name: push-up}"),
		want:  []string{`"push-up": equipments: missing`},
	}, {
		name:  "empty target override",
		edits: press(variant, "{name: push-up, equipments: [body weight], targetMuscles: []}"),
		want:  []string{`"push-up": targetMuscles: missing`},
	}, {
		name:  "value listed twice",
		edits: press("equipments: [barbell, bench]", "equipments: [barbell, barbell]"),
		want:  []string{`equipments: "barbell" is listed twice`},
	}, {
		name:  "target and secondary overlap",
		edits: press(variant, "{name: push-up, equipments: [body weight], secondaryMuscles: [pectoralis major]}"),
		want:  []string{`"push-up": muscle "pectoralis major" is both a target and a secondary muscle`},
	}, {
		name:  "pinned id collides",
		edits: press(variant, "{name: push-up, equipments: [body weight], id: "+exercise.IDFor("barbell bench press")+"}"),
		want:  []string{`families/press.yaml:13: "push-up": id "` + exercise.IDFor("barbell bench press") + `": also the id of "barbell bench press" at families/press.yaml:12`},
	}, {
		name:  "pinned id malformed",
		edits: press(variant, "{name: push-up, equipments: [body weight], id: push up}"),
		want:  []string{`id "push up": malformed`},
	}, {
		name:  "pinned id redundant",
		edits: press(variant, "{name: push-up, equipments: [body weight], id: "+exercise.IDFor("push-up")+"}"),
		want:  []string{"equals the id derived from the name"},
	}, {
		name:  "near-duplicate vocabulary value",
		edits: map[string]string{VocabulariesFile: strings.Replace(testVocabularies, "pull-up bar]", "pull-up bar, pullup bar]", 1)},
		want:  []string{`vocabularies.yaml: equipments: "pullup bar" is a near-duplicate of "pull-up bar"`},
	}, {
		name:  "vocabulary value not canonical",
		edits: map[string]string{VocabulariesFile: strings.Replace(testVocabularies, "[beginner,", "[Beginner,", 1)},
		want:  []string{`difficulties: "Beginner" is not canonical`},
	}, {
		name:  "muscle of an undeclared body part",
		edits: map[string]string{VocabulariesFile: strings.Replace(testVocabularies, "bodyPart: back", "bodyPart: upper back", 1)},
		want:  []string{`muscles: bodyPart "upper back" is not in bodyParts`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Generate(testSource(t, tt.edits))
			wantError(t, err, tt.want...)
		})
	}
}

func TestBuildRejectsFamilyWithoutVariants(t *testing.T) {
	src := testSource(t, map[string]string{"families/empty.yaml": "- family: empty\n  targetMuscles: [pectoralis major]\n  exerciseTypes: [strength]\n  difficulty: beginner\n"})
	_, _, err := Generate(src)
	wantError(t, err, `families/empty.yaml:1: family "empty": variants: none`)
}

func TestBuildReportsEveryProblem(t *testing.T) {
	src := testSource(t, map[string]string{"families/press.yaml": strings.NewReplacer(
		"[barbell, bench]", "[barbel, bench]",
		"[body weight]", "[bodyweight]",
	).Replace(testPress)})
	_, _, err := Generate(src)
	wantError(t, err, `"barbel"`, `"bodyweight"`)
}

func TestBuildCapsReport(t *testing.T) {
	var b strings.Builder
	b.WriteString(testPress)
	for i := range maxProblems + 5 {
		b.WriteString("    - {name: press " + strings.Repeat("i", i+1) + ", equipments: [nothing]}\n")
	}
	_, _, err := Generate(testSource(t, map[string]string{"families/press.yaml": b.String()}))
	wantError(t, err, "... and 5 more")
	if n := strings.Count(err.Error(), "\n"); n != maxProblems {
		t.Errorf("error has %d lines, want %d", n+1, maxProblems+1)
	}
}

// TestStandardForm: the first variant is the family's standard form unless
// one variant is marked standard; marking two, or the first, is an error.
func TestStandardForm(t *testing.T) {
	press := func(old, new string) fstest.MapFS {
		t.Helper()
		if !strings.Contains(testPress, old) {
			t.Fatalf("%q is not in testPress", old)
		}
		return testSource(t, map[string]string{"families/press.yaml": strings.Replace(testPress, old, new, 1)})
	}
	standards := func(f *exercise.File) []string {
		var names []string
		for _, x := range f.Exercises {
			if x.Standard {
				names = append(names, x.Name)
			}
		}
		return names
	}
	if got := standards(generate(t, testSource(t, nil))); !slices.Equal(got, []string{"barbell bench press"}) {
		t.Errorf("unmarked: standard forms %q, want the first variant", got)
	}
	marked := press("{name: push-up, equipments: [body weight]}", "{name: push-up, equipments: [body weight], standard: true}")
	if got := standards(generate(t, marked)); !slices.Equal(got, []string{"push-up"}) {
		t.Errorf("marked: standard forms %q, want the marked variant", got)
	}
	_, _, err := Generate(press("difficulty: intermediate}\n    - {name: push-up, equipments: [body weight]}",
		"difficulty: intermediate}\n    - {name: push-up, equipments: [body weight], standard: true}\n    - {name: dip, equipments: [body weight], standard: true}"))
	wantError(t, err, `"dip": standard: the family's standard form is already "push-up" at families/press.yaml:13`)
	_, _, err = Generate(press("difficulty: intermediate}", "difficulty: intermediate, standard: true}"))
	wantError(t, err, `"barbell bench press": standard: the first variant is the standard form without it`)
}
