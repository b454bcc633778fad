// Package postings builds posting lists: for each value, the bitmap of
// the records (by position) that have it. The catalogue's filters and
// the search index both keep them.
package postings

import "github.com/RoaringBitmap/roaring/v2"

// Add adds pos to the bitmap of name in m, unless name is empty.
func Add(m map[string]*roaring.Bitmap, name string, pos uint32) {
	if name == "" {
		return
	}
	b := m[name]
	if b == nil {
		b = roaring.New()
		m[name] = b
	}
	b.Add(pos)
}
