package importer

import (
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// The share of a dataset's names (those with a movement word) whose search
// must rank a record of the same movement in the top 3.
const (
	minFreeExerciseDBNameHits = 0.85
	minWgerNameHits           = 0.80
)

// shownMisses is how many misses per dataset go test -v prints.
const shownMisses = 40

// movementPhrases join the words of a movement spelled in two ("pull up",
// "good morning") into the single word movementWords knows; they apply
// after plural and -ing forms are reduced, so "pull ups" joins too.
var movementPhrases = map[[2]string]string{
	{"pull", "up"}:          "pullup",
	{"chin", "up"}:          "chinup",
	{"push", "up"}:          "pushup",
	{"press", "up"}:         "pushup",
	{"muscle", "up"}:        "muscleup",
	{"step", "up"}:          "stepup",
	{"sit", "up"}:           "situp",
	{"get", "up"}:           "getup",
	{"pull", "down"}:        "pulldown",
	{"pull", "over"}:        "pullover",
	{"pull", "through"}:     "pullthrough",
	{"pull", "apart"}:       "pullapart",
	{"face", "pull"}:        "facepull",
	{"kick", "back"}:        "kickback",
	{"roll", "out"}:         "rollout",
	{"good", "morning"}:     "goodmorning",
	{"wood", "chop"}:        "woodchop",
	{"mountain", "climber"}: "climber",
}

// movementWords are the head words that say what movement a name is, in
// their canonical spelling.
var movementWords = setOf(
	"squat", "press", "curl", "row", "deadlift", "lunge", "fly", "raise",
	"extension", "hyperextension", "pulldown", "pullup", "chinup", "muscleup",
	"pushup", "dip", "crunch", "plank", "bridge", "thrust", "thruster",
	"shrug", "swing", "clean", "snatch", "jerk", "carry", "walk", "stretch",
	"twist", "rollout", "kickback", "pullover", "stepup", "jump", "situp",
	"getup", "goodmorning", "pullthrough", "pullapart", "facepull",
	"woodchop", "burpee", "climber", "slam", "throw", "toss", "sprint",
	"run", "hop", "skip", "jack", "abduction", "adduction", "rotation",
	"pull", "push", "drag", "windmill", "handstand", "planche", "lever",
)

// wordSpellings maps spellings of a movement word that plural and -ing
// stripping cannot reach to the canonical one. A yoga pose counts as the
// stretch of the same name: a coach accepts either for the other.
var wordSpellings = map[string]string{
	"pose": "stretch", "poses": "stretch",
	"flye": "fly", "flyes": "fly", "flies": "fly",
	"carries": "carry", "chins": "chinup", "chin": "chinup",
	"pullups": "pullup", "chinups": "chinup", "pushups": "pushup",
	"situps": "situp", "stepups": "stepup", "muscleups": "muscleup",
	"woodchopper": "woodchop", "woodchoppers": "woodchop", "woodchops": "woodchop",
	"jumping": "jump", "running": "run", "skipping": "skip", "walking": "walk",
	"stretching": "stretch", "twisting": "twist", "hopping": "hop",
	"sprinting": "sprint", "swinging": "swing", "climbers": "climber",
	"hyperextensions": "hyperextension", "pulldowns": "pulldown",
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// normalWord reduces a lower-case word to its canonical movement spelling
// where it has one ("presses" → "press", "flyes" → "fly"), and returns it
// unchanged otherwise.
func normalWord(w string) string {
	if c, ok := wordSpellings[w]; ok {
		return c
	}
	if movementWords[w] {
		return w
	}
	for _, suffix := range []string{"es", "s"} {
		if b, ok := strings.CutSuffix(w, suffix); ok && movementWords[b] {
			return b
		}
	}
	return w
}

// movementTokens splits a name into words as the importer does, reduced
// by normalWord, with movement phrases joined.
func movementTokens(s string) []string {
	raw := strings.Fields(nameWords(s))
	var out []string
	for i := 0; i < len(raw); i++ {
		w := normalWord(raw[i])
		if i+1 < len(raw) {
			// The second word's plural ("pull ups", "good mornings").
			next := strings.TrimSuffix(normalWord(raw[i+1]), "s")
			if j, ok := movementPhrases[[2]string{w, next}]; ok {
				out = append(out, j)
				i++
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// mainPart is a name without what follows its first qualifier: a
// parenthesis, a dash, a comma or a word such as "with" or "on" ("Back
// Squat (Pause at Parallel)", "Calf Raise On The Hack Squat").
func mainPart(name string) string {
	cut := len(name)
	for _, sep := range []string{"(", " - ", ",", "/"} {
		if i := strings.Index(name, sep); i > 0 && i < cut {
			cut = i
		}
	}
	lower := " " + strings.ToLower(name[:cut]) + " "
	for _, w := range []string{" with ", " on ", " using ", " in ", " at ", " to ", " into ", " from "} {
		if i := strings.Index(lower, w); i > 0 && i-1 < cut {
			cut = i - 1
		}
	}
	return name[:cut]
}

// headMovement is the movement a name names: the last movement word of its
// main part, as English compounds put the head last ("jump squat" is a
// squat, "squat jump" a jump), or of the whole name if the main part has
// none. It is "" for a name without a movement word.
func headMovement(name string) string {
	for _, s := range []string{mainPart(name), name} {
		ws := movementTokens(s)
		for i := len(ws) - 1; i >= 0; i-- {
			if movementWords[ws[i]] {
				return ws[i]
			}
		}
	}
	return ""
}

// hasMovement reports whether a record's name or one of its aliases has
// the movement word m.
func hasMovement(x *exercise.Exercise, m string) bool {
	for _, s := range append([]string{x.Name}, x.Aliases...) {
		for _, w := range movementTokens(s) {
			if w == m {
				return true
			}
		}
	}
	return false
}

// TestMovementWords: the movement a name names, through plurals, spellings
// in two words and qualifiers after the main part.
func TestMovementWords(t *testing.T) {
	for name, want := range map[string]string{
		"Strict Pull Ups":                  "pullup",
		"Cable Flyes, Low to High":         "fly",
		"Machine Presses":                  "press",
		"Back Squat (Pause at Parallel)":   "squat",
		"Calf Raise On The Hack Squat":     "raise",
		"Dumbbell Jump Squat":              "squat",
		"Box Squat Jumps":                  "jump",
		"Deadlift with Chains and Bands":   "deadlift",
		"Hanging Knee Raises, Toes to Bar": "raise",
		"Heavy Farmers Walk":               "walk",
		"Overhead Triceps Work":            "",
		"Banded Good Mornings":             "goodmorning",
		"Wide Lat Pull-Downs":              "pulldown",
		"Decline Crunches":                 "crunch",
		"Seated Pigeon Pose":               "stretch",
	} {
		if got := headMovement(name); got != want {
			t.Errorf("headMovement(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestDatasetNamesSearch searches the embedded catalogue for each name of
// the open datasets that has a movement word, and counts the names whose
// top 3 holds a record of the same movement: what a user who knows an
// exercise by another catalogue's name finds. go test -v prints the
// figures and the first misses.
func TestDatasetNamesSearch(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		source  string
		path    []string
		minHits float64
	}{
		{FreeExerciseDB, []string{"free-exercise-db", "exercises.json"}, minFreeExerciseDBNameHits},
		{Wger, []string{"wger"}, minWgerNameHits},
	} {
		t.Run(d.source, func(t *testing.T) {
			names, err := ReadNames(d.source, datasetPath(t, d.path...), "")
			if err != nil {
				t.Fatal(err)
			}
			var withMovement, hits, empty int
			var misses []string
			for _, name := range names {
				m := headMovement(name)
				if m == "" {
					continue
				}
				withMovement++
				page, err := c.List(exercise.Filter{Query: name}, exercise.PageRequest{Limit: 3})
				if err != nil {
					misses = append(misses, name+" (refused)")
					continue
				}
				if len(page.Exercises) == 0 {
					empty++
				}
				hit := false
				var got []string
				for _, x := range page.Exercises {
					hit = hit || hasMovement(x, m)
					got = append(got, x.Name)
				}
				if hit {
					hits++
				} else {
					misses = append(misses, name+" ["+m+"] → "+strings.Join(got, "; "))
				}
			}
			if withMovement == 0 {
				t.Fatalf("none of %d names has a movement word", len(names))
			}
			share := float64(hits) / float64(withMovement)
			t.Logf("%s: %d names, %d with a movement word, %d find that movement in the top 3 (%.1f%%), %d find nothing",
				d.source, len(names), withMovement, hits, 100*share, empty)
			if testing.Verbose() {
				for i, m := range misses {
					if i == shownMisses {
						t.Logf("... and %d more misses", len(misses)-shownMisses)
						break
					}
					t.Logf("miss: %s", m)
				}
			}
			if share < d.minHits {
				t.Errorf("%s: %.1f%% of names with a movement word find it in the top 3, want at least %.0f%%",
					d.source, 100*share, 100*d.minHits)
			}
		})
	}
}
