package search

import (
	"slices"
	"strings"
	"testing"
)

func TestTermsAndQueries(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Pull-Up", []string{"pull", "up", "pullup"}},
		{"dumbbell curls", []string{"dumbbel", "curl", "dumbbellcurl"}},
		{"  PRESSING  ", []string{"press"}},
		{"90/90 stretch", []string{"90", "90", "9090", "stretch"}},
		{"Farmer’s walk", []string{"farmer", "walk", "farmerswalk"}},
		{"ｓｑｕａｔ ﬂy", []string{"squat", "fli", "squatfli"}},
		{"ankle mobilisation", []string{"ankl", "mobil", "anklemobil"}}, // British spelling
	} {
		if got := terms(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("terms(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	for w, want := range map[string]string{"rows": "row", "presses": "press", "flies": "fly", "crunches": "crunch", "lunges": "lunge",
		"press": "press", "rowing": "rowing", "triceps": "tricep", "abs": "abs", "plus": "plus"} {
		if got := singular(w); got != want {
			t.Errorf("singular(%q) = %q, want %q", w, got, want)
		}
	}
	for name, want := range map[string]string{
		"dumbbell chest press on bosu ball": "press chestpress", "sandbag over the shoulder": "sandbag", "barbell bent-over row": "row overrow",
		"bird of paradise pose": "pose paradisepose", "sit-up with twist": "situp", "l-sit pull-up": "pullup", "squat 2": "squat", "plank": "plank",
	} {
		if got := strings.Join(heads(headPhrase(name)), " "); got != want {
			t.Errorf("heads of %q = %q, want %q", name, got, want)
		}
	}
	units := parseQuery("DB press-up with a band", nil, 0)
	var got []string
	for _, u := range units {
		var alts []string
		for _, a := range u.alternatives {
			alts = append(alts, strings.Join(a, " "))
		}
		got = append(got, strings.Join(alts, "|"))
	}
	if want := []string{"db|dumbbell", "press up|push up", "band|resistance band"}; !slices.Equal(got, want) {
		t.Errorf("parseQuery: %q, want %q (stop words dropped, the longest synonym phrase first)", got, want)
	}
	if !units[2].last || units[0].last {
		t.Error("only the last unit may be a prefix")
	}
	// Filler phrases and tempo prescriptions go as stop words do; a
	// query of nothing else looks for them.
	for q, want := range map[string]string{"how to do a proper push up with high reps": "push;up", "high reps": "high reps", "3-1-1 tempo squat": "tempo;squat", "1 arm row": "1 arm;row"} {
		var got []string
		for _, u := range parseQuery(q, nil, 0) {
			got = append(got, strings.Join(u.alternatives[0], " "))
		}
		if strings.Join(got, ";") != want {
			t.Errorf("parseQuery(%q): %q, want %q", q, got, want)
		}
	}
}

// TestPhrasal: a query of two words or more may be a name being typed,
// as itself or as the phrases of two words or more it stands for; a
// query of one word is not, whatever it stands for.
func TestPhrasal(t *testing.T) {
	for q, want := range map[string]string{
		"hex bar":       "hex bar|trap bar",
		"chest muscles": "chest muscles|pectoralis major",
		"dumbbell back": "dumbbell;back",
		"forearms":      "",
		"chest":         "",
	} {
		var got []string
		for _, u := range phrasal(parseQuery(q, nil, 0)) {
			var alts []string
			for _, a := range u.alternatives {
				alts = append(alts, strings.Join(a, " "))
			}
			got = append(got, strings.Join(alts, "|"))
		}
		if strings.Join(got, ";") != want {
			t.Errorf("phrasal(%q) = %q, want %q", q, strings.Join(got, ";"), want)
		}
	}
}
