package exercise

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fixture is a twelve-record catalogue: odd positions are chest, even
// positions back; every third is advanced.
func fixture(t testing.TB) (*Catalogue, *File) {
	t.Helper()
	f := &File{Format: FormatV1, Vocabularies: testVocabularies()}
	for i := 1; i <= 12; i++ {
		x := Exercise{
			ID: fmt.Sprintf("a%02d", i), Name: fmt.Sprintf("Pull-Up %d", i),
			Equipments: []string{"barbell"}, ExerciseTypes: []string{"strength"},
			Difficulty: "beginner", SecondaryMuscles: []string{},
		}
		if i%2 == 1 {
			x.BodyParts, x.TargetMuscles = []string{"chest"}, []string{"pectoralis major"}
		} else {
			x.BodyParts, x.TargetMuscles = []string{"back"}, []string{"latissimus dorsi"}
		}
		if i%3 == 0 {
			x.Difficulty = "advanced"
		}
		f.Exercises = append(f.Exercises, x)
	}
	// Reversed input: the index must not depend on file order.
	slices.Reverse(f.Exercises)
	return mustNew(t, f), f
}

func TestListCursorRules(t *testing.T) {
	c, _ := fixture(t)
	chest := Filter{BodyParts: []string{"chest"}} // a01 a03 a05 a07 a09 a11
	tests := []struct {
		name    string
		filter  Filter
		req     PageRequest
		want    []string
		total   int
		next    string // "" = no next page
		prev    string
		hasNext bool
		hasPrev bool
	}{
		{name: "first page default limit", want: idRange(1, 10), total: 12, hasNext: true, next: "a10"},
		{name: "first page limit 5", req: PageRequest{Limit: 5}, want: []string{"a01", "a02", "a03", "a04", "a05"}, total: 12, hasNext: true, next: "a05"},
		{name: "middle page", req: PageRequest{Limit: 3, After: "a03"}, want: []string{"a04", "a05", "a06"}, total: 12, hasNext: true, next: "a06", hasPrev: true, prev: "a04"},
		{name: "last page exactly", req: PageRequest{Limit: 3, After: "a09"}, want: []string{"a10", "a11", "a12"}, total: 12, hasPrev: true, prev: "a10"},
		{name: "after the last record", req: PageRequest{After: "a12"}, want: []string{}, total: 12, hasPrev: true},
		{name: "before the first record", req: PageRequest{Before: "a01"}, want: []string{}, total: 12, hasNext: true},
		{name: "before, full page", req: PageRequest{Limit: 3, Before: "a07"}, want: []string{"a04", "a05", "a06"}, total: 12, hasNext: true, next: "a06", hasPrev: true, prev: "a04"},
		{name: "before, short first page", req: PageRequest{Limit: 5, Before: "a03"}, want: []string{"a01", "a02"}, total: 12, hasNext: true, next: "a02"},
		{name: "filter", filter: chest, req: PageRequest{Limit: 2}, want: []string{"a01", "a03"}, total: 6, hasNext: true, next: "a03"},
		{name: "filter, cursor not matching", filter: chest, req: PageRequest{Limit: 2, After: "a04"}, want: []string{"a05", "a07"}, total: 6, hasNext: true, next: "a07", hasPrev: true, prev: "a05"},
		{name: "filter, backward from non-matching cursor", filter: chest, req: PageRequest{Limit: 2, Before: "a06"}, want: []string{"a03", "a05"}, total: 6, hasNext: true, next: "a05", hasPrev: true, prev: "a03"},
		{name: "OR within a field", filter: Filter{Difficulties: []string{"advanced", "BEGINNER "}}, req: PageRequest{Limit: 25}, want: idRange(1, 12), total: 12},
		{name: "AND across fields", filter: Filter{BodyParts: []string{"chest"}, Difficulties: []string{"advanced"}}, want: []string{"a03", "a09"}, total: 2},
		{name: "case and space insensitive", filter: Filter{BodyParts: []string{"  CHEST "}, Difficulties: []string{"Advanced"}}, want: []string{"a03", "a09"}, total: 2},
		{name: "blank values dropped", filter: Filter{BodyParts: []string{"", "  "}}, req: PageRequest{Limit: 2}, want: []string{"a01", "a02"}, total: 12, hasNext: true, next: "a02"},
		{name: "declared value nobody uses", filter: Filter{Equipments: []string{"sled"}}, want: []string{}, total: 0},
		{name: "empty result with cursor", filter: Filter{Equipments: []string{"sled"}}, req: PageRequest{After: "a05"}, want: []string{}, total: 0},
		{name: "name search ignores punctuation", filter: Filter{Name: "pullup 1"}, want: []string{"a01", "a10", "a11", "a12"}, total: 4},
		{name: "name search spaced", filter: Filter{Name: "PULL up 12"}, want: []string{"a12"}, total: 1},
		{name: "name no match", filter: Filter{Name: "squat"}, want: []string{}, total: 0},
		{name: "name of two letters", filter: Filter{Name: "p1"}, want: []string{"a01", "a10", "a11", "a12"}, total: 4},
		{name: "name of 100 characters, not bytes", filter: Filter{Name: strings.Repeat("é", MaxNameLength)}, want: []string{}, total: 0},
		{name: "blank name is absent", filter: Filter{Name: "  "}, req: PageRequest{Limit: 2}, want: []string{"a01", "a02"}, total: 12, hasNext: true, next: "a02"},
		{name: "cap inside the page", req: PageRequest{RecordCap: 4}, want: []string{"a01", "a02", "a03", "a04"}, total: 4},
		{name: "cap at the page edge", req: PageRequest{Limit: 4, RecordCap: 8, After: "a04"}, want: []string{"a05", "a06", "a07", "a08"}, total: 8, hasPrev: true, prev: "a05"},
		{name: "cap one past the page edge", req: PageRequest{Limit: 4, RecordCap: 9, After: "a04"}, want: []string{"a05", "a06", "a07", "a08"}, total: 9, hasNext: true, next: "a08", hasPrev: true, prev: "a05"},
		// The empty page after the last reachable record pages back with
		// the record past the cap, which before accepts.
		{name: "cursor at the cap", req: PageRequest{RecordCap: 4, After: "a04"}, want: []string{}, total: 4, hasPrev: true, prev: "a05"},
		{name: "before the record past the cap", req: PageRequest{Limit: 3, RecordCap: 4, Before: "a05"}, want: []string{"a02", "a03", "a04"}, total: 4, hasPrev: true, prev: "a02"},
		{name: "cap with filter, past the cap", filter: chest, req: PageRequest{Limit: 2, RecordCap: 3, After: "a05"}, want: []string{}, total: 3, hasPrev: true, prev: "a06"},
		{name: "cap with filter, before the record past the cap", filter: chest, req: PageRequest{Limit: 2, RecordCap: 3, Before: "a06"}, want: []string{"a03", "a05"}, total: 3, hasPrev: true, prev: "a03"},
		{name: "before the cap's last record", req: PageRequest{Limit: 2, RecordCap: 4, Before: "a04"}, want: []string{"a02", "a03"}, total: 4, hasNext: true, next: "a03", hasPrev: true, prev: "a02"},
		{name: "cap with filter", filter: chest, req: PageRequest{Limit: 2, RecordCap: 3, After: "a03"}, want: []string{"a05"}, total: 3, hasPrev: true, prev: "a05"},
		{name: "cap above the matches", filter: chest, req: PageRequest{RecordCap: 100, After: "a12"}, want: []string{}, total: 6, hasPrev: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.List(tt.filter, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want := Page{Total: tt.total, HasNextPage: tt.hasNext, HasPreviousPage: tt.hasPrev, NextCursor: tt.next, PreviousCursor: tt.prev}
			gotMeta := got
			gotMeta.Exercises = nil
			if diff := cmp.Diff(want, gotMeta, ignorePositions); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, ids(got.Exercises)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

// idRange returns the fixture's ids a<from>..a<to>.
func idRange(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("a%02d", i))
	}
	return out
}

func TestListErrors(t *testing.T) {
	c, _ := fixture(t)
	// 102 values, blanks not counted; each would be an unknown value.
	tooMany := []string{" "}
	for i := range MaxFilterValues + 2 {
		tooMany = append(tooMany, fmt.Sprintf("x%d", i), "")
	}
	tests := []struct {
		name   string
		filter Filter
		req    PageRequest
		want   []FieldError // nil: a CapError is expected
		cap    *CapError
	}{
		{name: "both cursors", req: PageRequest{After: "a01", Before: "a05"}, want: []FieldError{{FieldBefore, "a05", "cannot be combined with after: send one cursor", ""}}},
		{name: "unknown cursor", req: PageRequest{After: "zz"}, want: []FieldError{{FieldAfter, "zz", "names no exercise", ""}}},
		{name: "malformed cursor", req: PageRequest{Before: "a/1"}, want: []FieldError{{FieldBefore, "a/1", malformedID, ""}}},
		{name: "overlong cursor", req: PageRequest{After: string(make([]byte, 33))}, want: []FieldError{{FieldAfter, string(make([]byte, 33)), malformedID, ""}}},
		{name: "limit too big", req: PageRequest{Limit: 101}, want: []FieldError{{FieldLimit, "101", "must be between 1 and 100", ""}}},
		{name: "negative limit", req: PageRequest{Limit: -1}, want: []FieldError{{FieldLimit, "-1", "must be between 1 and 100", ""}}},
		{name: "negative cap", req: PageRequest{RecordCap: -5}, want: []FieldError{{FieldRecordCap, "-5", "must not be negative", ""}}},
		{name: "unknown values, all named", filter: Filter{BodyParts: []string{"chest", "Chst"}, Equipments: []string{"hammer"}},
			want: []FieldError{{FieldBodyParts, "Chst", "is not a known body part", ReasonUnknownValue}, {FieldEquipments, "hammer", "is not a known equipment", ReasonUnknownValue}}},
		{name: "unknown difficulty lists the allowed", filter: Filter{Difficulties: []string{"expert"}},
			want: []FieldError{{FieldDifficulties, "expert", "is not a known difficulty (one of: beginner, intermediate, advanced)", ReasonUnknownValue}}},
		{name: "unknown training values list the allowed", filter: Filter{Mechanics: []string{"compound", "multi-joint"}, Measures: []string{"sets"}},
			want: []FieldError{{FieldMechanics, "multi-joint", "is not a known mechanics value (one of: compound, isolation)", ReasonUnknownValue}, {FieldMeasure, "sets", "is not a known measure (one of: reps, time, distance)", ReasonUnknownValue}}},
		{name: "unknown movement pattern", filter: Filter{MovementPatterns: []string{"press"}}, want: []FieldError{{FieldMovementPatterns, "press", "is not a known movement pattern", ReasonUnknownValue}}},
		{name: "muscle vocabulary", filter: Filter{SecondaryMuscles: []string{"abs"}}, want: []FieldError{{FieldSecondaryMuscles, "abs", "is not a known muscle", ReasonUnknownValue}}},
		{name: "every problem at once", filter: Filter{ExerciseTypes: []string{"zumba"}}, req: PageRequest{Limit: 200, After: "nope"},
			want: []FieldError{{FieldLimit, "200", "must be between 1 and 100", ""}, {FieldAfter, "nope", "names no exercise", ""}, {FieldExerciseTypes, "zumba", "is not a known exercise type", ReasonUnknownValue}}},
		{name: "name of invalid UTF-8", filter: Filter{Name: "\xff\xfe"}, want: []FieldError{{FieldName, "\xff\xfe", "is not valid UTF-8", ""}}},
		{name: "name with NUL", filter: Filter{Name: "\x00"}, want: []FieldError{{FieldName, "\x00", "contains control characters", ""}}},
		{name: "name with a control character", filter: Filter{Name: "\x01pull"}, want: []FieldError{{FieldName, "\x01pull", "contains control characters", ""}}},
		{name: "name of an emoji", filter: Filter{Name: "\U0001F4AA"}, want: []FieldError{{FieldName, "\U0001F4AA", "has no letters or digits to match", ""}}},
		{name: "name of punctuation", filter: Filter{Name: " -- "}, want: []FieldError{{FieldName, " -- ", "has no letters or digits to match", ""}}},
		{name: "name over 100 characters", filter: Filter{Name: strings.Repeat("é", MaxNameLength+1)},
			want: []FieldError{{FieldName, strings.Repeat("é", MaxNameLength+1), "is longer than 100 characters", ""}}},
		{name: "too many values, and the other fields still checked", filter: Filter{BodyParts: tooMany, Equipments: []string{"hammer"}},
			want: []FieldError{
				{FieldBodyParts, "x100", "is one value too many: a field holds at most 100 values, and this one has 102", ""},
				{FieldEquipments, "hammer", "is not a known equipment", ReasonUnknownValue},
			}},
		{name: "after beyond the cap", req: PageRequest{RecordCap: 4, After: "a05"}, cap: &CapError{FieldAfter, "a05", 4}},
		{name: "before beyond the cap", filter: Filter{BodyParts: []string{"back"}}, req: PageRequest{RecordCap: 2, Before: "a06"}, cap: &CapError{FieldBefore, "a06", 2}},
		{name: "after the record past the cap", filter: Filter{BodyParts: []string{"back"}}, req: PageRequest{RecordCap: 2, After: "a05"}, cap: &CapError{FieldAfter, "a05", 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.List(tt.filter, tt.req)
			if tt.cap != nil {
				var ce *CapError
				if !errors.As(err, &ce) || !errors.Is(err, ErrBeyondRecordCap) {
					t.Fatalf("err = %v, want a CapError", err)
				}
				if diff := cmp.Diff(tt.cap, ce); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			var ae *ArgumentError
			if !errors.As(err, &ae) || !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("err = %v, want an ArgumentError", err)
			}
			if diff := cmp.Diff(tt.want, ae.Violations); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilterValueBoundCountsNoBlanks(t *testing.T) {
	c, _ := fixture(t)
	values := slices.Repeat([]string{"back", " ", ""}, MaxFilterValues)
	if _, err := c.List(Filter{BodyParts: values}, PageRequest{}); err != nil {
		t.Fatalf("%d values and blanks: %v", MaxFilterValues, err)
	}
	values = append(values, "back")
	if _, err := c.List(Filter{BodyParts: values}, PageRequest{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%d values: err = %v, want an ArgumentError", MaxFilterValues+1, err)
	}
}

func TestExerciseLookup(t *testing.T) {
	c, _ := fixture(t)
	x, err := c.Exercise("a07")
	if err != nil || x.Name != "Pull-Up 7" {
		t.Fatalf("Exercise(a07) = %+v, %v", x, err)
	}
	if _, err := c.Exercise("a99"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Exercise(a99) err = %v, want ErrNotFound", err)
	}
	if _, err := c.Exercise("a 9"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Exercise(\"a 9\") err = %v, want ErrInvalidArgument", err)
	}
}

// TestListMatchesModel walks random filters over a random catalogue: forward
// from the start visits every matching record once in order, backward from
// the end visits the same pages in reverse, total equals the count, and
// every page equals the plain scan's.
func TestListMatchesModel(t *testing.T) {
	f := withTraining(randomFile(700, 1), 3)
	c := mustNew(t, f)
	rng := rand.New(rand.NewPCG(2, 2))
	v := testVocabularies()
	some := func(names []string) []string {
		if rng.IntN(2) == 0 {
			return nil
		}
		out := slices.Clone(names)
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out[:1+rng.IntN(2)]
	}
	for i := range 300 {
		flt := Filter{
			BodyParts: some(Names(v.BodyParts)), Equipments: some(Names(v.Equipments)),
			Difficulties: some(Names(v.Difficulties)), ExerciseTypes: some(Names(v.ExerciseTypes)),
			TargetMuscles: some(Names(v.Muscles)), SecondaryMuscles: some(Names(v.Muscles)),
		}
		if rng.IntN(2) == 0 {
			flt.MovementPatterns, flt.Mechanics, flt.Forces = some(Names(v.MovementPatterns)), some(Names(v.Mechanics)), some(Names(v.Forces))
			flt.Lateralities, flt.Measures = some(Names(v.Lateralities)), some(Names(v.Measures))
		}
		if rng.IntN(4) == 0 {
			flt.Name = []string{"press", "pull up", "ow", "1", "incline-bench"}[rng.IntN(5)]
		}
		limit := 1 + rng.IntN(25)
		cap := []int{0, 0, 1, 7, 50, 1000}[rng.IntN(6)]
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkWalk(t, c, f, flt, limit, cap) })
	}
}

func checkWalk(t *testing.T, c *Catalogue, f *File, flt Filter, limit, cap int) {
	t.Helper()
	want, _ := model(f, flt, PageRequest{Limit: 1000, RecordCap: cap})
	var forward [][]string
	req := PageRequest{Limit: limit, RecordCap: cap}
	var seen []string
	for {
		p := listSame(t, c, f, flt, req)
		if p.Total != len(want.Exercises) {
			t.Fatalf("total = %d, want %d", p.Total, len(want.Exercises))
		}
		seen = append(seen, ids(p.Exercises)...)
		forward = append(forward, ids(p.Exercises))
		if !p.HasNextPage {
			break
		}
		req = PageRequest{Limit: limit, RecordCap: cap, After: p.NextCursor}
	}
	if diff := cmp.Diff(ids(want.Exercises), seen, cmpEmpty); diff != "" {
		t.Fatalf("forward walk (-want +got):\n%s", diff)
	}
	// Backward from the end: the last page, then previousCursor until none.
	if len(seen) == 0 {
		return
	}
	if all, _ := model(f, flt, PageRequest{Limit: 1000}); cap > 0 && len(all.Exercises) > cap {
		// Under a cap, the empty page after the last reachable record
		// pages back to the last records.
		end := listSame(t, c, f, flt, PageRequest{Limit: limit, RecordCap: cap, After: seen[len(seen)-1]})
		if !end.HasPreviousPage || end.PreviousCursor == "" {
			t.Fatalf("the page after the cap: hasPreviousPage %v, previousCursor %q", end.HasPreviousPage, end.PreviousCursor)
		}
		back := listSame(t, c, f, flt, PageRequest{Limit: limit, RecordCap: cap, Before: end.PreviousCursor})
		if diff := cmp.Diff(seen[max(0, len(seen)-limit):], ids(back.Exercises)); diff != "" {
			t.Fatalf("back from the page after the cap (-want +got):\n%s", diff)
		}
	}
	last := seen[len(seen)-1]
	backward := [][]string{forward[len(forward)-1]}
	req = PageRequest{Limit: limit, RecordCap: cap, Before: forward[len(forward)-1][0]}
	if len(forward) == 1 {
		return
	}
	for {
		p := listSame(t, c, f, flt, req)
		backward = append(backward, ids(p.Exercises))
		if !p.HasNextPage {
			t.Fatalf("backward page before %s has no next page though %s follows", req.Before, last)
		}
		if !p.HasPreviousPage {
			break
		}
		req = PageRequest{Limit: limit, RecordCap: cap, Before: p.PreviousCursor}
	}
	slices.Reverse(backward)
	var flatB []string
	for _, p := range backward {
		flatB = append(flatB, p...)
	}
	if diff := cmp.Diff(seen, flatB); diff != "" {
		t.Fatalf("backward walk visits other records (-forward +backward):\n%s", diff)
	}
}

// ignorePositions leaves out of a comparison of pages the positions that
// only the catalogue's pages have.
var ignorePositions = cmpopts.IgnoreUnexported(Page{})

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) })

// listSame lists through the index and through the model and fails on any
// difference.
func listSame(t *testing.T, c *Catalogue, f *File, flt Filter, req PageRequest) Page {
	t.Helper()
	got, err := c.List(flt, req)
	want, werr := model(f, flt, req)
	if (err == nil) != (werr == nil) {
		t.Fatalf("List(%+v, %+v) err = %v, model err = %v", flt, req, err, werr)
	}
	if diff := cmp.Diff(want, got, ignorePositions); diff != "" {
		t.Fatalf("List(%+v, %+v) (-model +index):\n%s", flt, req, diff)
	}
	return got
}

// TestPageJSONOfAnotherCatalogue checks that PageJSON answers a page of
// another catalogue (as after a reload) by id, not by its positions.
func TestPageJSONOfAnotherCatalogue(t *testing.T) {
	f := randomFile(40, 3)
	older, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	g := randomFile(40, 3)
	g.Exercises = g.Exercises[5:] // the same ids, at other positions
	newer, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	p, err := older.List(Filter{}, PageRequest{Limit: 10, After: f.Exercises[20].ID})
	if err != nil || len(p.Exercises) == 0 {
		t.Fatalf("List: %d records, %v", len(p.Exercises), err)
	}
	for i, x := range p.Exercises {
		if got, want := newer.PageJSON(&p, i), newer.JSON(x.ID); got != want {
			t.Errorf("record %d (%s): PageJSON gave the JSON of another record", i, x.ID)
		}
		if got, want := older.PageJSON(&p, i), older.JSON(x.ID); got != want {
			t.Errorf("record %d (%s): PageJSON of its own catalogue differs from JSON", i, x.ID)
		}
	}
}
