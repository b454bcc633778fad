package respcache

import "testing"

func TestCacheFollowsTheVersion(t *testing.T) {
	c, err := New(2)
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{ETag: `"v1-a"`, Body: []byte("{}")}
	c.Put("k", "v1", e)
	if _, ok := c.Get("k"); ok {
		t.Fatal("an entry was kept while the version was unknown")
	}
	c.SetVersion("v1")
	c.Put("k", "v1", e)
	c.Put("old", "v0", e) // rendered by a replica on another version
	if got, ok := c.Get("k"); !ok || got.ETag != e.ETag {
		t.Errorf("Get(k) = %v, %v", got, ok)
	}
	if _, ok := c.Get("old"); ok {
		t.Error("an entry of another version was kept")
	}
	c.SetVersion("v1") // the same version again keeps the entries
	if _, ok := c.Get("k"); !ok {
		t.Error("re-announcing the version dropped the entries")
	}
	c.SetVersion("v2")
	if _, ok := c.Get("k"); ok || c.Len() != 0 {
		t.Error("a new version kept old entries")
	}
	c.SetVersion("v2")
	c.Put("a", "v2", e)
	c.Put("b", "v2", e)
	c.Put("c", "v2", e)
	if _, ok := c.Get("a"); ok || c.Len() != 2 {
		t.Errorf("the cache is not bounded: %d entries", c.Len())
	}
	c.SetVersion("")
	if _, ok := c.Get("c"); ok {
		t.Error("served an entry while the version is unknown")
	}
}
