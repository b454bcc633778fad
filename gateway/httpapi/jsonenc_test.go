package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
)

// reference is what encoding/json writes, HTML escaping off.
func reference(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// exercise is an exercise as the catalog sends it, with an image URL.
func exercise(id, name, part, image string) exerciseJSON {
	f := exercisejson.Encode(&exercisejson.Record{
		ID: id, Name: name, Equipments: []string{part, name}, BodyParts: []string{part}, Difficulty: name,
		TargetMuscles: []string{image}, Description: name, Instructions: []string{name, part}, Aliases: []string{image},
	})
	return exerciseJSON{ExerciseJSON: catalogclient.ExerciseJSON{Head: f.Head(), MediaKey: image, Content: f.Content(5)}, Image: exercisejson.Image{Key: image}}
}

// FuzzEncode holds the hand-written envelopes equal to encoding/json for
// arbitrary strings in every position of a listing and of one exercise
// (pkg/exercisejson holds the exercises themselves equal to it).
func FuzzEncode(f *testing.F) {
	f.Add("abc123", "barbell bench press", "chest", "https://m/x.gif?a=1&b=<2>", "", 3, true)
	f.Add("q\"\\", "tab\there\nnew\rline\b\f\x00\x1f", "\u2028\u2029", "é ü ✓ 𝄞", "next", 0, false)
	f.Add("\xff\xfe", "half \xe2\x82", "ok", "", "\x7f", -1, true)
	f.Fuzz(func(t *testing.T, id, name, part, image, next string, total int, more bool) {
		x := exercise(id, name, part, image)
		var cursor *string
		if next != "" {
			cursor = &next
		}
		for _, v := range []any{
			listBody{Success: more, Meta: meta{Total: total, HasNextPage: more, NextCursor: cursor, PreviousCursor: &id}, Data: []exerciseJSON{x, exercise(next, "", "", "")}},
			exerciseBody{Success: true, Data: x},
			listBody{Success: true, Data: []exerciseJSON{}},
			listBody{Success: true, Meta: meta{MissingIDs: &[]string{id, name, next}}, Data: []exerciseJSON{x}},
			listBody{Meta: meta{MissingIDs: &[]string{}}},
			listBody{Meta: meta{MissingIDs: new([]string)}},
			listBody{Meta: meta{Search: &searchMeta{IgnoredWords: []string{name, part}}, Facets: facetsJSON{
				{Facet: catalogclient.FacetBodyParts, Values: []catalogclient.ValueCount{{Value: part, Count: total}, {Value: name, Count: 1}}},
				{Facet: catalogclient.FacetMovementPatterns},
			}}},
			listBody{Meta: meta{Search: &searchMeta{IgnoredWords: []string{}}}},
			listBody{Meta: meta{Alternatives: &alternativesMeta{Fallback: more, MovementPatterns: []string{name, part}}}},
			listBody{Meta: meta{Alternatives: &alternativesMeta{MovementPatterns: []string{}}}},
			listBody{},
		} {
			got, err := encode(v)
			if err != nil {
				t.Fatal(err)
			}
			if want := reference(t, v); !bytes.Equal(got, want) {
				t.Fatalf("encode(%#v)\n got %s\nwant %s", v, got, want)
			}
		}
	})
}

func BenchmarkEncodeList(b *testing.B) {
	f := exercisejson.Encode(&exercisejson.Record{
		ID: "humnn3ws", Name: "barbell bench press", Equipments: []string{"barbell", "bench"}, BodyParts: []string{"chest"},
		ExerciseTypes: []string{"strength"}, Difficulty: "intermediate", TargetMuscles: []string{"pectoralis major"},
		SecondaryMuscles: []string{"anterior deltoid", "triceps brachii"},
	})
	x := exerciseJSON{ExerciseJSON: catalogclient.ExerciseJSON{Head: f.Head(), MediaKey: "exercises/humnn3ws"},
		Image: exercisejson.Image{Prefix: "https://media.example.com/gif/360p/", Key: "exercises/humnn3ws", Suffix: ".gif"}}
	next := "humnn3ws"
	page := listBody{Success: true, Meta: meta{Total: 92, HasNextPage: true, NextCursor: &next}}
	for range 10 {
		page.Data = append(page.Data, x)
	}
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := encode(page); err != nil {
				b.Fatal(err)
			}
		}
	})
}
