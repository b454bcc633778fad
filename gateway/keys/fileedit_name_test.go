package keys

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// t0 is the tests' "now", as keystest.T0.
var t0 = time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)

// TestFileNameCarriedOver: a name written by hand that the API would
// refuse does not block disabling or rotating its key.
func TestFileNameCarriedOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	writeFile(t, path, "keys:\n  - id: key_a\n    name: \"\\e[31mred\"\n    hash: "+Hash("exdb_a")+"\n    products: {exercisedb: Pro}\n")
	s := FileAt(path)
	s.Now = func() time.Time { return t0 }
	disabled := false
	if _, err := s.Update(context.Background(), "key_a", Change{Disabled: &disabled}); err != nil {
		t.Errorf("Update of another field: %v", err)
	}
	next, _, err := s.Rotate(context.Background(), "key_a", time.Hour)
	if err != nil || next.Name != "\x1b[31mred" {
		t.Errorf("Rotate: %+v, %v; want the name carried over", next.Key, err)
	}
}
