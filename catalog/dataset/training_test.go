package dataset_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// TestEveryRecordHasTraining holds every record's training to the closed
// lists the catalogue declares, its movement pattern to its pattern, and
// its prescription to its measure's unit.
func TestEveryRecordHasTraining(t *testing.T) {
	f := catalogue(t)
	v := f.Vocabularies
	lists := []struct {
		name     string
		declared []exercise.Term
		want     []string
		value    func(*exercise.Training) string
	}{
		{"mechanics", v.Mechanics, []string{"compound", "isolation"}, func(t *exercise.Training) string { return t.Mechanics }},
		{"force", v.Forces, []string{"push", "pull", "static", "other"}, func(t *exercise.Training) string { return t.Force }},
		{"laterality", v.Lateralities, []string{"bilateral", "unilateral", "alternating"}, func(t *exercise.Training) string { return t.Laterality }},
		{"measure", v.Measures, []string{"reps", "time", "distance"}, func(t *exercise.Training) string { return t.Measure }},
		{"movementPattern", v.MovementPatterns, nil, func(t *exercise.Training) string { return t.MovementPattern }},
	}
	for _, l := range lists {
		if l.want != nil && !slices.Equal(exercise.Names(l.declared), l.want) {
			t.Errorf("vocabularies: %s: %q, want %q", l.name, exercise.Names(l.declared), l.want)
		}
	}
	unit := map[string]func(*exercise.Prescription) []int{
		"reps":     func(p *exercise.Prescription) []int { return p.Reps },
		"time":     func(p *exercise.Prescription) []int { return p.Seconds },
		"distance": func(p *exercise.Prescription) []int { return p.Meters },
	}
	used := map[string]map[string]int{}
	for _, x := range f.Exercises {
		tr := x.Training
		if tr == nil {
			t.Errorf("%s (%s): no training", x.ID, x.Name)
			continue
		}
		for _, l := range lists {
			val := l.value(tr)
			if !slices.Contains(exercise.Names(l.declared), val) {
				t.Errorf("%s (%s): training.%s %q is not declared", x.ID, x.Name, l.name, val)
			}
			if used[l.name] == nil {
				used[l.name] = map[string]int{}
			}
			used[l.name][val]++
		}
		if tr.MovementPattern != x.Pattern {
			t.Errorf("%s (%s): movementPattern %q, pattern %q", x.ID, x.Name, tr.MovementPattern, x.Pattern)
		}
		p := &tr.Prescription
		n := 0
		for measure, get := range unit {
			if r := get(p); r != nil {
				n++
				if measure != tr.Measure || !validRange(r) {
					t.Errorf("%s (%s): prescription %s %v with measure %q", x.ID, x.Name, measure, r, tr.Measure)
				}
			}
		}
		if n != 1 || !validRange(p.Sets) {
			t.Errorf("%s (%s): prescription %+v: want sets and one of reps, seconds, meters", x.ID, x.Name, *p)
		}
	}
	// Every value of the closed lists is used: a value no record has is
	// a filter that can only come back empty.
	for _, l := range lists[:4] {
		for _, val := range l.want {
			if used[l.name][val] == 0 {
				t.Errorf("training.%s %q: no record has it", l.name, val)
			}
		}
	}
}

func validRange(r []int) bool { return len(r) == 2 && r[0] >= 1 && r[0] <= r[1] }

// label is one exercise of testdata/training.yaml: a coach's view of its
// mechanics, force, laterality and measure.
type label struct {
	Name       string `yaml:"name"`
	Mechanics  string `yaml:"mechanics"`
	Force      string `yaml:"force"`
	Laterality string `yaml:"laterality"`
	Measure    string `yaml:"measure"`
}

// minTrainingAgreement is the share of the labels of testdata/training.yaml
// that the catalogue must agree with.
const (
	minLabelled          = 150
	minTrainingAgreement = 0.95
)

// TestTrainingAgreesWithCoaches compares the catalogue's training with a
// labelled set of well-known exercises, written from coaching knowledge
// apart from the catalogue's source, on mechanics, force, laterality and
// measure (four labels an exercise). It prints the agreement and every
// disagreement.
func TestTrainingAgreesWithCoaches(t *testing.T) {
	data, err := os.ReadFile("testdata/training.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var labels []label
	if err := yaml.Unmarshal(data, &labels); err != nil {
		t.Fatal(err)
	}
	if len(labels) < minLabelled {
		t.Errorf("%d labelled exercises, want at least %d", len(labels), minLabelled)
	}
	byName := map[string]*exercise.Exercise{}
	f := catalogue(t)
	for i := range f.Exercises {
		byName[f.Exercises[i].Name] = &f.Exercises[i]
	}
	agree, total := 0, 0
	for _, l := range labels {
		x, ok := byName[l.Name]
		if !ok || x.Training == nil {
			t.Errorf("labelled exercise %q: not in the catalogue", l.Name)
			continue
		}
		for _, c := range []struct{ field, want, got string }{
			{"mechanics", l.Mechanics, x.Training.Mechanics},
			{"force", l.Force, x.Training.Force},
			{"laterality", l.Laterality, x.Training.Laterality},
			{"measure", l.Measure, x.Training.Measure},
		} {
			total++
			if c.want == c.got {
				agree++
				continue
			}
			t.Logf("%s: %s: labelled %q, catalogue %q", l.Name, c.field, c.want, c.got)
		}
	}
	share := float64(agree) / float64(max(total, 1))
	t.Logf("training agrees with %d of %d labels (%.1f%%) on %d exercises", agree, total, 100*share, len(labels))
	if share < minTrainingAgreement {
		t.Errorf("agreement %.1f%%, want at least %.0f%%", 100*share, 100*minTrainingAgreement)
	}
}

// TestTrainingFiltersMatchAScan is a property test over the shipped
// catalogue: for random training filters (any of the values within a
// field, all fields), walking the filtered listing page by page yields
// exactly the records a plain scan of the catalogue selects, in id order.
func TestTrainingFiltersMatchAScan(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	v := c.Vocabularies()
	fields := []struct {
		values []string
		set    func(*exercise.Filter, []string)
		get    func(*exercise.Training) string
	}{
		{exercise.Names(v.MovementPatterns), func(f *exercise.Filter, vs []string) { f.MovementPatterns = vs }, func(t *exercise.Training) string { return t.MovementPattern }},
		{exercise.Names(v.Mechanics), func(f *exercise.Filter, vs []string) { f.Mechanics = vs }, func(t *exercise.Training) string { return t.Mechanics }},
		{exercise.Names(v.Forces), func(f *exercise.Filter, vs []string) { f.Forces = vs }, func(t *exercise.Training) string { return t.Force }},
		{exercise.Names(v.Lateralities), func(f *exercise.Filter, vs []string) { f.Lateralities = vs }, func(t *exercise.Training) string { return t.Laterality }},
		{exercise.Names(v.Measures), func(f *exercise.Filter, vs []string) { f.Measures = vs }, func(t *exercise.Training) string { return t.Measure }},
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 200 {
		var flt exercise.Filter
		chosen := make([][]string, len(fields))
		for j, fd := range fields {
			if rng.IntN(3) != 0 {
				continue
			}
			vs := slices.Clone(fd.values)
			rng.Shuffle(len(vs), func(a, b int) { vs[a], vs[b] = vs[b], vs[a] })
			chosen[j] = vs[:1+rng.IntN(min(3, len(vs)))]
			// Case and padding do not matter, as for every filter.
			sent := slices.Clone(chosen[j])
			sent[0] = " " + strings.ToUpper(sent[0]) + " "
			fd.set(&flt, sent)
		}
		if i%4 == 0 {
			flt.Difficulties = []string{"beginner"}
		}
		var want []string
		for x := range c.All() {
			ok := flt.Difficulties == nil || x.Difficulty == "beginner"
			for j, fd := range fields {
				ok = ok && (chosen[j] == nil || slices.Contains(chosen[j], fd.get(x.Training)))
			}
			if ok {
				want = append(want, x.ID)
			}
		}
		var got []string
		req := exercise.PageRequest{Limit: 100}
		for {
			p, err := c.List(flt, req)
			if err != nil {
				t.Fatalf("filter %+v: %v", flt, err)
			}
			if p.Total != len(want) {
				t.Fatalf("filter %+v: total %d, want %d", flt, p.Total, len(want))
			}
			for _, x := range p.Exercises {
				got = append(got, x.ID)
			}
			if !p.HasNextPage {
				break
			}
			req.After = p.NextCursor
		}
		if !slices.Equal(got, want) {
			t.Fatalf("filter %+v: listed %d records, a scan selects %d", flt, len(got), len(want))
		}
	}
}

// freeExerciseDB is the open dataset's file, read at test time only (as the
// importer's tests read it): nothing from it is copied into the repository.
const freeExerciseDB = "../../../shared/datasets/free-exercise-db/exercises.json"

// minFreeExerciseDBAgreement bounds from below the share of
// free-exercise-db's force and mechanic values, for the exercises both
// name alike, that the catalogue agrees with. The two follow different
// conventions (it has no "other" force), so the bound is lower than the
// labelled set's.
const minFreeExerciseDBAgreement = 0.85

// TestTrainingAgreesWithFreeExerciseDB compares force and mechanics with
// free-exercise-db's, an independent source, where it gives push, pull or
// static and compound or isolation for an exercise the catalogue names
// alike (name or alias, under exercise.SearchKey). It prints the figures.
func TestTrainingAgreesWithFreeExerciseDB(t *testing.T) {
	data, err := os.ReadFile(freeExerciseDB)
	if err != nil {
		t.Skipf("open datasets not available (%v)", err)
	}
	var records []struct {
		Name     string  `json:"name"`
		Force    *string `json:"force"`
		Mechanic *string `json:"mechanic"`
	}
	if err := json.Unmarshal(data, &records); err != nil {
		t.Fatal(err)
	}
	f := catalogue(t)
	byKey := map[string]*exercise.Exercise{}
	for i := range f.Exercises {
		x := &f.Exercises[i]
		byKey[exercise.SearchKey(x.Name)] = x
	}
	for i := range f.Exercises {
		for _, a := range f.Exercises[i].Aliases {
			if _, taken := byKey[exercise.SearchKey(a)]; !taken {
				byKey[exercise.SearchKey(a)] = &f.Exercises[i]
			}
		}
	}
	var force, mech struct{ agree, total int }
	for _, r := range records {
		x := byKey[exercise.SearchKey(r.Name)]
		if x == nil {
			continue
		}
		if r.Force != nil && slices.Contains([]string{"push", "pull", "static"}, *r.Force) {
			force.total++
			if x.Training.Force == *r.Force {
				force.agree++
			} else {
				t.Logf("%s: force: free-exercise-db %q, catalogue %q", r.Name, *r.Force, x.Training.Force)
			}
		}
		if r.Mechanic != nil && slices.Contains([]string{"compound", "isolation"}, *r.Mechanic) {
			mech.total++
			if x.Training.Mechanics == *r.Mechanic {
				mech.agree++
			} else {
				t.Logf("%s: mechanics: free-exercise-db %q, catalogue %q", r.Name, *r.Mechanic, x.Training.Mechanics)
			}
		}
	}
	t.Logf("free-exercise-db: force agrees on %d of %d, mechanics on %d of %d", force.agree, force.total, mech.agree, mech.total)
	for _, c := range []struct {
		field        string
		agree, total int
	}{{"force", force.agree, force.total}, {"mechanics", mech.agree, mech.total}} {
		if c.total < 100 {
			t.Errorf("%s: only %d exercises matched; the matching or the dataset changed", c.field, c.total)
		} else if share := float64(c.agree) / float64(c.total); share < minFreeExerciseDBAgreement {
			t.Errorf("%s: agreement %.1f%%, want at least %.0f%%", c.field, 100*share, 100*minFreeExerciseDBAgreement)
		}
	}
}
