// Package respcache keeps rendered responses of the public API for the
// catalogue version they were rendered from. The catalogue is read-only
// and versioned, so an entry is right for as long as that version is
// served; the moment the version changes (the gateway watches it), every
// entry is dropped. While the version is unknown nothing is served from
// the cache or added to it.
package respcache

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Entry is a rendered response body and its entity tag.
type Entry struct {
	ETag string
	Body []byte
}

// Cache is a bounded LRU of entries of one catalogue version. It is safe
// for concurrent use.
type Cache struct {
	mu      sync.RWMutex
	version string // "" while unknown
	entries *lru.Cache[string, Entry]
}

// New returns a cache of at most maxEntries responses.
func New(maxEntries int) (*Cache, error) {
	entries, err := lru.New[string, Entry](maxEntries)
	if err != nil {
		return nil, err
	}
	return &Cache{entries: entries}, nil
}

// SetVersion records the catalogue version now served; "" means unknown.
// A change drops every entry.
func (c *Cache) SetVersion(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version {
		c.version = v
		c.entries.Purge()
	}
}

// Get returns the entry for key, if the current version has one.
func (c *Cache) Get(key string) (Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.version == "" {
		return Entry{}, false
	}
	return c.entries.Get(key)
}

// Put keeps e for key if version is the one now served: a response from a
// replica still on another version is not kept.
func (c *Cache) Put(key, version string, e Entry) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if version != "" && version == c.version {
		c.entries.Add(key, e)
	}
}

// Len returns the number of entries.
func (c *Cache) Len() int { return c.entries.Len() }
