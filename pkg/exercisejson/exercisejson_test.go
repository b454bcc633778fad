package exercisejson

import (
	"bytes"
	"encoding/json"
	"testing"
)

// public is the public shape of an exercise, for encoding/json: the oracle.
type public struct {
	ExerciseID       string    `json:"exerciseId"`
	Name             string    `json:"name"`
	Equipments       []string  `json:"equipments"`
	BodyParts        []string  `json:"bodyParts"`
	ExerciseTypes    []string  `json:"exerciseTypes"`
	Difficulty       string    `json:"difficulty"`
	TargetMuscles    []string  `json:"targetMuscles"`
	SecondaryMuscles []string  `json:"secondaryMuscles"`
	ImageURL         string    `json:"imageUrl,omitempty"`
	Description      *string   `json:"description,omitempty"`
	Instructions     *[]string `json:"instructions,omitempty"`
	Tips             *[]string `json:"tips,omitempty"`
	Aliases          *[]string `json:"aliases,omitempty"`
	Training         *Training `json:"training,omitempty"`
}

func nonNil(s []string) *[]string {
	if s == nil {
		s = []string{}
	}
	return &s
}

// oracle is what encoding/json writes for r with the image URL and the
// content fields of set, HTML escaping off.
func oracle(t *testing.T, r *Record, imageURL string, set Set) []byte {
	t.Helper()
	v := public{
		ExerciseID: r.ID, Name: r.Name, Equipments: *nonNil(r.Equipments), BodyParts: *nonNil(r.BodyParts),
		ExerciseTypes: *nonNil(r.ExerciseTypes), Difficulty: r.Difficulty, TargetMuscles: *nonNil(r.TargetMuscles),
		SecondaryMuscles: *nonNil(r.SecondaryMuscles), ImageURL: imageURL,
	}
	if set&1 != 0 {
		v.Description = &r.Description
	}
	if set&2 != 0 {
		v.Instructions = nonNil(r.Instructions)
	}
	if set&4 != 0 {
		v.Tips = nonNil(r.Tips)
	}
	if set&8 != 0 {
		v.Aliases = nonNil(r.Aliases)
	}
	if set&16 != 0 {
		v.Training = r.Training
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// FuzzAppend holds the fragments, spliced, equal to encoding/json for
// arbitrary strings in every position and every set of content fields.
func FuzzAppend(f *testing.F) {
	f.Add("abc123", "barbell bench press", "chest", "https://m/x.gif?a=1&b=<2>", "")
	f.Add("q\"\\", "tab\there\nnew\rline\b\f\x00\x1f", "\u2028\u2029", "é ü ✓ 𝄞", "next")
	f.Add("\xff\xfe", "half \xe2\x82", "ok", "", "\x7f")
	f.Fuzz(func(t *testing.T, id, name, part, image, text string) {
		for _, r := range []*Record{
			{ID: id, Name: name, Equipments: []string{part, name}, BodyParts: []string{part}, ExerciseTypes: []string{},
				Difficulty: text, TargetMuscles: []string{image}, Description: text, Instructions: []string{name, part}, Tips: []string{}, Aliases: []string{image},
				Training: &Training{MovementPattern: part, Mechanics: name, Force: text, Laterality: image, Measure: id,
					Prescription: Prescription{Sets: []int{len(id), len(name)}, Seconds: []int{-1, 1 << 40}}}},
			{ID: id, Name: name, Training: &Training{Prescription: Prescription{Reps: []int{}, Meters: []int{3}}}},
			{ID: id, Name: name}, // every list absent
		} {
			frags := Encode(r)
			for set := range Set(32) {
				content := frags.Content(set)
				// The image's parts are escaped one by one: a product's
				// template (ASCII here) around a key of any bytes.
				got := Append(nil, frags.Head(), Image{Prefix: "https://m/\"", Key: image, Suffix: ".gif"}, content, nil)
				url := ""
				if image != "" {
					url = "https://m/\"" + image + ".gif"
				}
				if want := oracle(t, r, url, set); !bytes.Equal(got, want) {
					t.Fatalf("set %04b\n got %s\nwant %s", set, got, want)
				}
			}
		}
	})
}

// The head and every run of content fields are slices of one buffer;
// other sets are copies, and never write into it.
func TestContentShares(t *testing.T) {
	frags := Encode(&Record{ID: "a", Description: "d", Instructions: []string{"i"}, Tips: []string{"t"}, Aliases: []string{"x"},
		Training: &Training{Prescription: Prescription{Sets: []int{1, 2}}}})
	before := bytes.Clone(frags.buf)
	for set := range Set(32) {
		c := frags.Content(set)
		_ = append(frags.Head(), "!!"...) // capped: must not write into the fragments
		_ = append(c, "!!"...)
	}
	if !bytes.Equal(before, frags.buf) {
		t.Errorf("fragments changed:\n%s\n%s", before, frags.buf)
	}
}

func BenchmarkAppend(b *testing.B) {
	frags := Encode(&Record{
		ID: "humnn3ws", Name: "barbell bench press", Equipments: []string{"barbell", "bench"}, BodyParts: []string{"chest"},
		ExerciseTypes: []string{"strength"}, Difficulty: "intermediate", TargetMuscles: []string{"pectoralis major"},
		SecondaryMuscles: []string{"anterior deltoid", "triceps brachii"},
	})
	img := Image{Prefix: "https://media.example.com/gif/360p/", Key: "exercises/humnn3ws", Suffix: ".gif"}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for range 10 {
			buf = Append(buf, frags.Head(), img, frags.Content(0), nil)
		}
	}
}
