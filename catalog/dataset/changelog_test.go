package dataset_test

import (
	"bytes"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// TestChangelogIsCurrent holds the embedded changelog to the embedded
// catalogue: well formed, its newest version the catalogue's.
func TestChangelogIsCurrent(t *testing.T) {
	c, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	f, err := changelog.Decode(bytes.NewReader(dataset.Changelog()))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(c.Version()); err != nil {
		t.Errorf("changelog.json: %v; regenerate it with go generate ./catalog/dataset", err)
	}
	v := f.Versions[0]
	t.Logf("version %s (after %s): %d added, %d changed, %d removed", v.Version, v.Previous, len(v.Added), len(v.Changed), len(v.Removed))
}
