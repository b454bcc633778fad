package search

import (
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"squat", "squat", 0}, {"sqaut", "squat", 1}, {"squt", "squat", 1}, {"squatt", "squat", 1},
		{"dumbel", "dumbbel", 1}, {"dumbell", "dumbbel", 2}, {"deadlfit", "deadlift", 1}, {"abc", "xyz", 3},
	} {
		if got := editDistance(tc.a, tc.b, 3); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestSound: spellings by ear meet the word they spell; other words stay
// apart.
func TestSound(t *testing.T) {
	for _, pair := range [][2]string{{"skwat", "squat"}, {"jaks", "jacks"}, {"lunj", "lunge"}, {"brij", "bridge"}, {"brijes", "bridges"}, {"kwad", "quad"}, {"shrugz", "shrugs"}, {"dumbel", "dumbbell"}, {"fraze", "phrase"}, {"jax", "jack"}, {"flexion", "fleksion"}} {
		if a, b := sound(pair[0]), sound(pair[1]); a != b {
			t.Errorf("sound(%q) = %q, sound(%q) = %q: want equal", pair[0], a, pair[1], b)
		}
	}
	for _, pair := range [][2]string{{"pain", "pin"}, {"row", "raw"}, {"curl", "girl"}} {
		if sound(pair[0]) == sound(pair[1]) {
			t.Errorf("%q and %q sound alike", pair[0], pair[1])
		}
	}
}
