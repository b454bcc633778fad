package respcache

import (
	"strconv"
	"strings"
	"testing"
)

func TestCacheFollowsTheVersion(t *testing.T) {
	c, err := New(2, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{ETag: `"v1-a"`, Body: []byte("{}")}
	keep(c, "k", "v1", e)
	if _, ok := c.Get("k"); ok {
		t.Fatal("an entry was kept while the version was unknown")
	}
	c.SetVersion("v1")
	keep(c, "k", "v1", e)
	keep(c, "old", "v0", e) // rendered by a replica on another version
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
	keep(c, "a", "v2", e)
	keep(c, "b", "v2", e)
	keep(c, "c", "v2", e)
	if _, ok := c.Get("a"); ok || c.Len() != 2 {
		t.Errorf("the cache is not bounded: %d entries", c.Len())
	}
	c.SetVersion("")
	if _, ok := c.Get("c"); ok {
		t.Error("served an entry while the version is unknown")
	}
}

func TestCacheIsBoundedInBytes(t *testing.T) {
	const budget = 64 << 10
	c, err := New(1000, budget)
	if err != nil {
		t.Fatal(err)
	}
	c.SetVersion("v1")
	body := []byte(strings.Repeat("x", 4000))
	for i := range 100 {
		keep(c, "k"+strconv.Itoa(i), "v1", Entry{ETag: `"v1-a"`, Body: body})
		if c.Bytes() > budget {
			t.Fatalf("after %d entries the cache holds %d bytes, over its budget of %d", i+1, c.Bytes(), budget)
		}
	}
	if n := c.Len(); n < 10 || n >= 16 {
		t.Errorf("%d entries of about 4 KB in a 64 KiB budget", n)
	}
	if _, ok := c.Get("k99"); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := c.Get("k0"); ok {
		t.Error("the oldest entry was kept")
	}

	// Compressed bodies count too, and may evict other entries.
	before := c.Bytes()
	c.AddEncoding("k99", `"v1-a"`, Encoded{Coding: "gzip", ETag: `"v1-a-gz"`, Body: make([]byte, 1000)})
	e, _ := c.Get("k99")
	if enc, ok := e.Encoding("gzip"); !ok || enc.ETag != `"v1-a-gz"` {
		t.Fatalf("the gzip body was not kept: %+v", e.Encoded)
	}
	if c.Bytes() <= before-4000 || c.Bytes() > budget {
		t.Errorf("after adding a gzip body: %d bytes (before %d, budget %d)", c.Bytes(), before, budget)
	}
	// Another rendering under the same key is not given this one's encoding.
	c.AddEncoding("k99", `"v1-other"`, Encoded{Coding: "br", Body: []byte("y")})
	if e, _ := c.Get("k99"); len(e.Encoded) != 1 {
		t.Errorf("an encoding of another rendering was added: %+v", e.Encoded)
	}

	// An entry larger than the budget is not kept, and a replaced entry is
	// counted once.
	keep(c, "huge", "v1", Entry{Body: make([]byte, budget)})
	if _, ok := c.Get("huge"); ok {
		t.Error("an entry larger than the budget was kept")
	}
	c.SetVersion("v2")
	keep(c, "k", "v2", Entry{Body: body})
	one := c.Bytes()
	keep(c, "k", "v2", Entry{Body: body})
	if c.Bytes() != one {
		t.Errorf("replacing an entry counted it twice: %d bytes, want %d", c.Bytes(), one)
	}
	c.SetVersion("v3")
	if c.Bytes() != 0 || c.Len() != 0 {
		t.Errorf("a new version left %d entries, %d bytes", c.Len(), c.Bytes())
	}
}

// An alias finds its entry while both are kept, counts against the byte
// budget, and goes with the version.
func TestAlias(t *testing.T) {
	c, err := New(4, 4096)
	if err != nil {
		t.Fatal(err)
	}
	c.Alias("sent", "k") // version unknown: not kept
	c.SetVersion("v1")
	empty := c.Bytes()
	keep(c, "k", "v1", NewEntry(`"v1-a"`, []byte("{}")))
	withEntry := c.Bytes()
	c.Alias("sent", "k")
	c.Alias("sent", "k") // again: counted once
	if c.Bytes() != withEntry+aliasSize("sent", "k") {
		t.Errorf("Bytes = %d, want %d", c.Bytes(), withEntry+aliasSize("sent", "k"))
	}
	if key, e, ok := c.GetAlias("sent"); !ok || key != "k" || e.ETag != `"v1-a"` || e.Header.ContentLength[0] != "2" {
		t.Errorf("GetAlias(sent) = %q, %+v, %v", key, e, ok)
	}
	if _, _, ok := c.GetAlias("k"); ok {
		t.Error("a key found as an alias")
	}
	for i := range 100 { // more aliases than it holds: the oldest go
		c.Alias(strings.Repeat("a", 200)+strconv.Itoa(i), "k")
		if c.Bytes() > 4096 {
			t.Fatalf("after %d aliases: %d bytes, over the budget", i+1, c.Bytes())
		}
	}
	if _, _, ok := c.GetAlias("sent"); ok {
		t.Error("the oldest alias outlived newer ones over the budget")
	}
	c.SetVersion("v2")
	if c.Bytes() != empty || c.Len() != 0 {
		t.Errorf("after a new version: %d bytes, %d entries", c.Bytes(), c.Len())
	}
}

// keep offers e twice, as the second request for a key does: the first
// offer only leaves the doorkeeper's mark.
func keep(c *Cache, key, version string, e Entry) bool {
	c.Put(key, version, e)
	return c.Put(key, version, e)
}

// A response is kept the second time it is offered, so that a stream of
// keys offered once each (a crawl, distinct queries) evicts nothing.
func TestDoorkeeper(t *testing.T) {
	c, err := New(8, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	c.SetVersion("v1")
	e := NewEntry(`"v1-a"`, []byte("{}"))
	if c.Put("k", "v1", e) {
		t.Fatal("kept on its first offer")
	}
	if !c.Put("k", "v1", e) {
		t.Fatal("not kept on its second offer")
	}
	for i := range 1000 {
		if c.Put("once"+strconv.Itoa(i), "v1", e) {
			t.Fatalf("key %d kept on its first offer", i)
		}
	}
	if _, ok := c.Get("k"); !ok || c.Len() != 1 {
		t.Errorf("keys offered once evicted the kept one: %d entries", c.Len())
	}
	c.Put("again", "v1", e)
	c.SetVersion("v2") // a new version forgets the marks with the entries
	if c.Put("again", "v2", e) {
		t.Error("a mark outlived the version it was made under")
	}
}
