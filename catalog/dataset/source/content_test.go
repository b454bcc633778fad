package source

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testRow is a family whose content is all slots, to test rendering.
const testRow = `- family: row
  pattern: vertical pull
  training: {mechanics: compound, force: pull, laterality: bilateral, measure: reps, prescription: strength}
  targetMuscles: [latissimus dorsi]
  exerciseTypes: [strength]
  difficulty: beginner
  description: The {name} is a pull towards the body.
  slots:
    pull: Pull the {load} to your waist.
  instructions:
    - "{setup}"
    - "{pull}"
    - "{pause}"
    - Lower the {load} slowly.
  tips:
    - Keep your back flat.
  variants:
    - name: barbell row
      equipments: [barbell]
      aliases: [bent-over row]
      about: The bar is held with both hands.
      slots: {setup: Hinge forward over the barbell., load: bar}
      tips: [Brace first.]
    - name: paused barbell row
      equipments: [barbell]
      about: Every rep stops for a count.
      slots: {setup: Hinge forward over the barbell., load: bar, pause: "Pause with the bar at your waist, then lower it."}
`

func TestContentRendering(t *testing.T) {
	f := generate(t, testSource(t, map[string]string{"families/row.yaml": testRow}))
	row := byName(t, f, "barbell row")
	if want := "The barbell row is a pull towards the body. The bar is held with both hands."; row.Description != want {
		t.Errorf("description %q, want %q", row.Description, want)
	}
	if want := []string{"Hinge forward over the barbell.", "Pull the bar to your waist.", "Lower the bar slowly."}; !slices.Equal(row.Instructions, want) {
		t.Errorf("instructions (the unset {pause} step left out) %q, want %q", row.Instructions, want)
	}
	if want := []string{"Brace first.", "Keep your back flat."}; !slices.Equal(row.Tips, want) {
		t.Errorf("tips %q, want %q", row.Tips, want)
	}
	if !slices.Equal(row.Aliases, []string{"bent-over row"}) || row.Family != "row" || row.Pattern != "vertical pull" {
		t.Errorf("aliases %q, family %q, pattern %q", row.Aliases, row.Family, row.Pattern)
	}
	paused := byName(t, f, "paused barbell row")
	if len(paused.Instructions) != 4 || paused.Instructions[2] != "Pause with the bar at your waist, then lower it." {
		t.Errorf("paused instructions %q: want the {pause} step third", paused.Instructions)
	}
}

// TestContentOptionalTip: a tip that is only a slot is a family default that
// a variant turns off by setting the slot to "".
func TestContentOptionalTip(t *testing.T) {
	src := strings.NewReplacer(
		"    pull: Pull the {load} to your waist.\n", "    pull: Pull the {load} to your waist.\n    hinge: Hinge at the hips, not the waist.\n",
		"    - Keep your back flat.\n", "    - Keep your back flat.\n    - \"{hinge}\"\n",
		`pause: "Pause with the bar at your waist, then lower it."}`, `pause: "Pause with the bar at your waist, then lower it.", hinge: ""}`,
	).Replace(testRow)
	f := generate(t, testSource(t, map[string]string{"families/row.yaml": src}))
	if got, want := byName(t, f, "barbell row").Tips, []string{"Brace first.", "Keep your back flat.", "Hinge at the hips, not the waist."}; !slices.Equal(got, want) {
		t.Errorf("barbell row tips %q, want %q", got, want)
	}
	if got, want := byName(t, f, "paused barbell row").Tips, []string{"Keep your back flat."}; !slices.Equal(got, want) {
		t.Errorf("paused barbell row tips (hinge turned off) %q, want %q", got, want)
	}
}

func TestContentRejects(t *testing.T) {
	row := func(old, new string) map[string]string {
		if !strings.Contains(testRow, old) {
			t.Fatalf("%q is not in testRow", old)
		}
		return map[string]string{"families/row.yaml": strings.Replace(testRow, old, new, 1)}
	}
	for _, tc := range []struct {
		name  string
		edits map[string]string
		want  string
	}{
		{"slot inside a sentence unset", row("load: bar}\n      tips", "lift: bar}\n      tips"), `"barbell row": instructions[1]: slot {load} is set neither by the variant nor by the family`},
		{"slot no template uses", row("load: bar}\n      tips", "load: bar, lod: x}\n      tips"), `"barbell row": slots: "lod" is used by no template`},
		{"too few steps", row("    - Lower the {load} slowly.\n", ""), `"barbell row": instructions: 2, want 3 to 10`},
		{"too many sentences", row("The bar is held with both hands.", "One. Two. Three."), `"barbell row": description: 4 sentences, want 1 to 3`},
		{"unfinished sentence", row("Keep your back flat.", "Keep your back flat"), `tips[1]: does not end a sentence`},
		{"empty step", row("    - Lower the {load} slowly.\n", "    - \" \"\n"), `"barbell row": instructions[2]: empty`},
		{"too many tips", row("tips: [Brace first.]", "tips: [A., B., C., D., E.]"), `"barbell row": tips: 6, want 1 to 5`},
		{"alias is a name", row("aliases: [bent-over row]", "aliases: [push up]"), `"barbell row": alias "push up": is the name of "push-up"`},
		{"alias of two records", row("about: Every rep", "aliases: [Bent-over row]\n      about: Every rep"), `alias "Bent-over row": also an alias of "barbell row"`},
		{"alias not canonical", row("aliases: [bent-over row]", "aliases: [Bent Row]"), `"barbell row": aliases[0]: "Bent Row" is not canonical`},
		{"pattern undeclared", row("pattern: vertical pull", "pattern: rowing"), `pattern: "rowing" is not declared`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Generate(testSource(t, tc.edits))
			wantError(t, err, tc.want)
		})
	}
}

// lintRow lints families as the file families/row.yaml.
func lintRow(t *testing.T, families string) []string {
	t.Helper()
	src, err := Read(testSource(t, map[string]string{"families/row.yaml": families}))
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.BuildPartial()
	if err != nil {
		t.Fatal(err)
	}
	return Lint(src, f.Exercises, func(file string) bool { return file == "families/row.yaml" })
}

func TestLint(t *testing.T) {
	lint := func(families string) []string {
		t.Helper()
		return lintRow(t, families)
	}
	if got := lint(testRow); len(got) != 0 {
		t.Fatalf("lint of a good family: %q", got)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"equipment never named", "Hinge forward over the barbell., load: bar}\n      tips", "Hinge forward., load: weight}\n      tips",
			`"barbell row": never names its equipment "barbell" outside the name`},
		{"modifier never used", "Pause with the bar at your waist, then lower it.", "Hold, then lower it.",
			`"paused barbell row": never uses "paused"`},
		{"no content", "  description: The {name} is a pull towards the body.\n", "",
			`"paused barbell row": no content`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(testRow, tc.old, tc.new, 1)
			if tc.name == "no content" {
				// A family without templates, and variants without content.
				in = strings.NewReplacer(tc.old, "", "    - \"{setup}\"\n    - \"{pull}\"\n    - \"{pause}\"\n    - Lower the {load} slowly.\n", "",
					"  instructions:\n", "", "  slots:\n    pull: Pull the {load} to your waist.\n", "",
					"      slots: {setup: Hinge forward over the barbell., load: bar}\n", "",
					"      slots: {setup: Hinge forward over the barbell., load: bar, pause: \"Pause with the bar at your waist, then lower it.\"}\n", "",
					"      about: The bar is held with both hands.\n", "", "      about: Every rep stops for a count.\n", "").Replace(testRow)
			}
			got := lint(in)
			if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Fatalf("lint %q, want a problem containing %q", got, tc.want)
			}
		})
	}
	t.Run("body weight need not be named", func(t *testing.T) {
		in := strings.Replace(testRow, "equipments: [barbell]\n      aliases", "equipments: [barbell, body weight]\n      aliases", 1)
		if got := lint(in); len(got) != 0 {
			t.Fatalf("lint %q, want no problem", got)
		}
	})
	t.Run("a plain synonym sets the variant apart", func(t *testing.T) {
		in := testRow + "    - {name: single-arm barbell row, equipments: [barbell], slots: {setup: Hinge forward over the barbell and hold it with one arm; switch arms halfway., load: bar}}\n"
		if got := lint(in); len(got) != 0 {
			t.Fatalf("lint %q, want \"one arm\" to stand for single-arm", got)
		}
	})
	t.Run("step shared by more than 20 records", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(strings.Split(testRow, "  variants:\n")[0])
		b.WriteString("  variants:\n")
		for i := range MaxStepRepeats + 1 {
			fmt.Fprintf(&b, "    - {name: barbell row %d, equipments: [barbell], slots: {setup: Hinge forward over the barbell., load: bar}}\n", i)
		}
		got := lint(b.String())
		if !slices.ContainsFunc(got, func(p string) bool {
			return strings.Contains(p, `step used verbatim by 21 records (at most 20): "Pull the bar to your waist."`)
		}) {
			t.Fatalf("lint %q, want the shared step reported", got)
		}
	})
}

func TestProseName(t *testing.T) {
	for name, want := range map[string]string{
		"romanian deadlift":           "Romanian deadlift",
		"jm press":                    "JM press",
		"ez bar curl":                 "EZ bar curl",
		"t-bar row":                   "T-bar row",
		"warrior i pose":              "warrior I pose",
		"warrior iii pose":            "warrior III pose",
		"sun salutation a":            "sun salutation A",
		"pilates rolling like a ball": "Pilates rolling like a ball",
		"l-sit pull-up":               "L-sit pull-up",
		"dumbbell i-y-t raise":        "dumbbell I-Y-T raise",
		"smith machine bench press":   "Smith machine bench press",
		"standing it band stretch":    "standing IT band stretch",
		"barbell bench press":         "barbell bench press",
		"90/90 hip switch":            "90/90 hip switch",
	} {
		if got := proseName(name); got != want {
			t.Errorf("proseName(%q) = %q, want %q", name, got, want)
		}
	}
}
