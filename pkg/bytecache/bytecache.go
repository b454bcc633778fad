// Package bytecache is a least-recently-used cache bounded twice: in
// entries and in bytes, so that what it holds costs at most what its
// configuration says however large each value is.
package bytecache

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Cache maps keys to immutable values, each of a size in bytes given
// when it is added. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[K, sized[V]]
	bytes    int64
	maxBytes int64
}

// New returns a cache of at most maxEntries values totalling at most
// maxBytes bytes (keys and bookkeeping not counted). Both must be positive.
func New[K comparable, V any](maxEntries int, maxBytes int64) *Cache[K, V] {
	c := &Cache[K, V]{maxBytes: maxBytes}
	// The eviction callback runs under c.mu, from Add and RemoveOldest.
	l, err := simplelru.NewLRU[K, sized[V]](maxEntries, func(_ K, v sized[V]) { c.bytes -= v.size })
	if err != nil {
		panic(err) // maxEntries < 1: a programming error, configuration is validated
	}
	c.lru = l
	return c
}

type sized[V any] struct {
	v    V
	size int64
}

// Get returns the value of k and marks it recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(k)
	return e.v, ok
}

// Add keeps v, of size bytes, under k, evicting the least recently used
// values until both bounds hold. A value larger than the byte bound is not
// kept.
func (c *Cache[K, V]) Add(k K, v V, size int) {
	if int64(size) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(k); ok {
		c.bytes -= old.size // Add replaces it without calling back
	}
	c.lru.Add(k, sized[V]{v, int64(size)})
	c.bytes += int64(size)
	for c.bytes > c.maxBytes {
		c.lru.RemoveOldest()
	}
}

// Len returns the number of values held.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Bytes returns the total size of the values held.
func (c *Cache[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// MaxBytes returns the byte bound.
func (c *Cache[K, V]) MaxBytes() int64 { return c.maxBytes }

// Purge removes every value.
func (c *Cache[K, V]) Purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Purge() // calls back for each: bytes returns to 0
}
