package exercise

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFetchMatchesModel asks for random lists of ids, known and unknown,
// repeated and not, under random caps: the records come in the order
// given, each once, unknown ids are reported in order, and the cap keeps
// the first records found.
func TestFetchMatchesModel(t *testing.T) {
	f := randomFile(300, 3)
	c := mustNew(t, f)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range 500 {
		n := 1 + rng.IntN(MaxIDs)
		var sent []string
		for range n {
			switch rng.IntN(10) {
			case 0:
				sent = append(sent, fmt.Sprintf("zz%03d", rng.IntN(20))) // unknown, maybe repeated
			case 1:
				sent = append(sent, "not an id!")
			default:
				sent = append(sent, f.Exercises[rng.IntN(len(f.Exercises))].ID)
			}
		}
		recordCap := []int{0, 0, 1, 5, 50, 1000}[rng.IntN(6)]
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			page, missing, err := c.Fetch(sent, Filter{}, PageRequest{RecordCap: recordCap})
			if err != nil {
				t.Fatal(err)
			}
			var wantIDs, wantMissing []string
			for _, id := range sent {
				known := slices.ContainsFunc(f.Exercises, func(x Exercise) bool { return x.ID == id })
				switch {
				case !known:
					wantMissing = append(wantMissing, id)
				case slices.Contains(wantIDs, id):
				default:
					wantIDs = append(wantIDs, id)
				}
			}
			if recordCap > 0 && len(wantIDs) > recordCap {
				wantIDs = wantIDs[:recordCap]
			}
			if diff := cmp.Diff(wantIDs, ids(page.Exercises), cmpEmpty); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantMissing, missing, cmpEmpty); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			want := Page{Total: len(wantIDs)}
			got := page
			got.Exercises = nil
			if diff := cmp.Diff(want, got, ignorePositions); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
			for i, x := range page.Exercises {
				if j := slices.IndexFunc(f.Exercises, func(y Exercise) bool { return y.ID == x.ID }); !cmp.Equal(*x, f.Exercises[j]) {
					t.Errorf("record %d is not the catalogue's %s", i, x.ID)
				}
			}
		})
	}
}

func TestFetchErrors(t *testing.T) {
	c, _ := fixture(t)
	tooMany := make([]string, MaxIDs+1)
	for i := range tooMany {
		tooMany[i] = "a01"
	}
	tests := []struct {
		name string
		ids  []string
		f    Filter
		p    PageRequest
		want []FieldError
	}{
		{name: "none", want: []FieldError{{FieldIDs, "", "must name at least one exercise", ""}}},
		{name: "too many", ids: tooMany, want: []FieldError{{FieldIDs, "101 ids", "must name at most 100 exercises", ""}}},
		{name: "with a filter and a cursor", ids: []string{"a01"}, f: Filter{BodyParts: []string{"chest"}, Query: "press"}, p: PageRequest{After: "a01"}, want: []FieldError{
			{FieldBodyParts, "chest", "cannot be combined with ids, which names the records itself, all on one page", ""},
			{FieldQuery, "press", "cannot be combined with ids, which names the records itself, all on one page", ""},
			{FieldAfter, "a01", "cannot be combined with ids, which names the records itself, all on one page", ""},
		}},
		{name: "with a limit", ids: []string{"a01"}, p: PageRequest{Limit: 5, Before: "a02"}, want: []FieldError{
			{FieldLimit, "5", "cannot be combined with ids, which names the records itself, all on one page", ""},
			{FieldBefore, "a02", "cannot be combined with ids, which names the records itself, all on one page", ""},
		}},
		{name: "negative cap", ids: []string{"a01"}, p: PageRequest{RecordCap: -1}, want: []FieldError{{FieldRecordCap, "-1", "must not be negative", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := c.Fetch(tt.ids, tt.f, tt.p)
			var ae *ArgumentError
			if !errors.As(err, &ae) || !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("err = %v, want an ArgumentError", err)
			}
			if diff := cmp.Diff(tt.want, ae.Violations); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFetchPageJSON checks that a fetched page's records encode as the
// listing's do.
func TestFetchPageJSON(t *testing.T) {
	c, _ := fixture(t)
	page, _, err := c.Fetch([]string{"a03", "a01"}, Filter{}, PageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range page.Exercises {
		if got, want := string(c.PageJSON(&page, i).Head()), string(c.JSON(x.ID).Head()); got != want {
			t.Errorf("record %d: %s, want %s", i, got, want)
		}
	}
}
