package dataset_test

import (
	"os"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/dataset/source"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// TestContent is the content check of the catalogue: every record has a
// description, instructions and tips within their bounds (the decoder
// checks that); no record fails the lint (an equipment or a distinguishing
// word of the name its text never uses, a step shared verbatim by more
// than source.MaxStepRepeats records); and the alias rules hold (Build
// checks them). It logs the figures the README quotes.
// minAliasCoverage is the share of records that have at least one alias:
// most exercises have a name people type besides the catalogue's.
const minAliasCoverage = 0.6

func TestContent(t *testing.T) {
	src, err := source.Read(os.DirFS("source"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Build()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	for _, p := range source.Lint(src, f.Exercises, nil) {
		t.Error(p)
	}
	var steps, tips, aliases, withAliases int
	for _, x := range catalogue(t).Exercises {
		if x.Description == "" || len(x.Instructions) < exercise.MinInstructions || len(x.Tips) < exercise.MinTips || x.Family == "" || x.Pattern == "" {
			t.Errorf("%s (%s): incomplete content", x.Name, x.ID)
		}
		steps += len(x.Instructions)
		tips += len(x.Tips)
		aliases += len(x.Aliases)
		if len(x.Aliases) > 0 {
			withAliases++
		}
	}
	n := len(f.Exercises)
	t.Logf("%d records: %d descriptions, %d steps (%.1f a record), %d tips (%.1f a record), %d aliases on %d records; %d families",
		n, n, steps, float64(steps)/float64(n), tips, float64(tips)/float64(n), aliases, withAliases, len(src.Families))
	coverage := float64(withAliases) / float64(n)
	t.Logf("alias coverage: %d of %d records (%.1f%%) have aliases", withAliases, n, 100*coverage)
	if coverage < minAliasCoverage {
		t.Errorf("alias coverage %.1f%%, want at least %.0f%%", 100*coverage, 100*minAliasCoverage)
	}
	t.Logf("boilerplate rate (steps used verbatim by more than %d records): %.2f%%", source.MaxStepRepeats, 100*source.BoilerplateRate(f.Exercises))
}
