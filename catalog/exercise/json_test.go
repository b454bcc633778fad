package exercise

import (
	"bytes"
	"encoding/json"
	"testing"
)

// JSON encodes a record once, in the public shape, and knows no other id.
func TestJSON(t *testing.T) {
	c, err := New(randomFile(50, 1))
	if err != nil {
		t.Fatal(err)
	}
	x := c.exercises[7]
	f := c.JSON(x.ID)
	if f == nil || c.JSON(x.ID) != f {
		t.Fatalf("JSON(%s) = %p, then %p: want the same fragments", x.ID, f, c.JSON(x.ID))
	}
	var got struct {
		ExerciseID string   `json:"exerciseId"`
		Name       string   `json:"name"`
		BodyParts  []string `json:"bodyParts"`
	}
	if err := json.Unmarshal(append(bytes.Clone(f.Head()), '}'), &got); err != nil || got.ExerciseID != x.ID || got.Name != x.Name || len(got.BodyParts) != len(x.BodyParts) {
		t.Errorf("head %s decodes to %+v, %v", f.Head(), got, err)
	}
	if c.JSON("nope") != nil {
		t.Error("JSON of an unknown id")
	}
}
