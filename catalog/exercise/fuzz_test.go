package exercise

import (
	"errors"
	"strings"
	"testing"
)

// FuzzList feeds arbitrary cursors, filter values, names, limits and caps to
// List: it must never panic, must fail only with an ArgumentError or a
// CapError, and must agree with the model whenever it succeeds.
func FuzzList(f *testing.F) {
	f.Add("", "", "chest", "", "", 10, 0)
	f.Add("r00010", "", "CHEST, back", "barbell", "pull up", 5, 20)
	f.Add("", "r00040", " upper legs ", "", "PRESS", 25, 3)
	f.Add("r00010", "r00020", "", "", "", 0, 0)
	f.Add("r\x00", "", "chest,,", "sled", "ow", 1, 1)
	f.Add("", "zzz", "legs", "hammer", strings.Repeat("x", 200), -1, -1)
	file := randomFile(120, 7)
	c := mustNew(f, file)
	f.Fuzz(func(t *testing.T, after, before, bodyParts, equipments, name string, limit, cap int) {
		flt := Filter{BodyParts: strings.Split(bodyParts, ","), Equipments: strings.Split(equipments, ","), Name: name}
		req := PageRequest{Limit: limit, After: after, Before: before, RecordCap: cap}
		got, err := c.List(flt, req)
		if err != nil {
			var ae *ArgumentError
			var ce *CapError
			switch {
			case errors.As(err, &ae):
				if len(ae.Violations) == 0 {
					t.Fatal("ArgumentError without violations")
				}
			case errors.As(err, &ce):
			default:
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		want, werr := model(file, flt, req)
		if werr != nil {
			t.Fatalf("List succeeded where the model fails: %v", werr)
		}
		if strings.Join(ids(got.Exercises), ",") != strings.Join(ids(want.Exercises), ",") ||
			got.Total != want.Total || got.HasNextPage != want.HasNextPage || got.HasPreviousPage != want.HasPreviousPage ||
			got.NextCursor != want.NextCursor || got.PreviousCursor != want.PreviousCursor {
			t.Fatalf("List(%+v, %+v) = %+v, model %+v", flt, req, got, want)
		}
	})
}

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, and a
// file it accepts must index.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"format":"exercisedb-catalogue/v1","vocabularies":{},"exercises":[]}`))
	f.Add([]byte(`{"format":"exercisedb-catalogue/v1","vocabularies":{"bodyParts":[{"name":"chest"}]},"exercises":[{"id":"a"}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if _, err := New(file); err != nil {
			t.Fatalf("Decode accepted a file New refuses: %v", err)
		}
	})
}
