// Package respcache keeps rendered responses of the public API for the
// catalogue version they were rendered from. The catalogue is read-only
// and versioned, so an entry is right for as long as that version is
// served; the moment the version changes (the gateway watches it), every
// entry is dropped. While the version is unknown nothing is served from
// the cache or added to it.
//
// The cache is bounded twice: in entries, and in bytes (keys, entity tags
// and bodies, compressed ones included), so that many large responses,
// or many keys, cannot grow it past its budget. And it keeps a response
// only the second time it is offered (a doorkeeper, as in TinyLFU), so
// that queries that never repeat, a crawl or a flood of distinct ones,
// neither evict the responses that are asked for again nor cost a copy
// kept in memory.
package respcache

import (
	"math/bits"
	"slices"
	"strconv"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Entry is a rendered response body and its entity tag, with the same
// body in the content codings asked for so far. An Entry is shared by
// concurrent readers: it is never modified, AddEncoding replaces it.
type Entry struct {
	ETag    string
	Body    []byte
	Header  Header
	Encoded []Encoded
}

// Encoded is a body in one content coding, with the entity tag of that
// representation.
type Encoded struct {
	Coding string // as in Content-Encoding, e.g. gzip
	ETag   string
	Body   []byte
	Header Header
}

// Header holds the values of a representation's ETag and Content-Length
// headers as http.Header holds them, made once with it so that a response
// from the cache formats neither. Every response shares them: never
// modified (a slice of capacity 1, so an append copies it).
type Header struct {
	ETag, ContentLength []string
}

// NewEntry returns the entry of body, tagged etag.
func NewEntry(etag string, body []byte) Entry {
	return Entry{ETag: etag, Body: body, Header: header(etag, body)}
}

// NewEncoded returns body in coding, tagged etag.
func NewEncoded(coding, etag string, body []byte) Encoded {
	return Encoded{Coding: coding, ETag: etag, Body: body, Header: header(etag, body)}
}

func header(etag string, body []byte) Header {
	return Header{ETag: []string{etag}, ContentLength: []string{strconv.Itoa(len(body))}}
}

// Encoding returns the body in coding, if the entry holds it.
func (e *Entry) Encoding(coding string) (Encoded, bool) {
	for _, enc := range e.Encoded {
		if enc.Coding == coding {
			return enc, true
		}
	}
	return Encoded{}, false
}

// entryOverhead approximates what an entry costs besides its strings and
// bodies: the list element, the map slot, the slice and string headers,
// the header values.
const entryOverhead = 320

// size is what the entry for key counts against the byte budget: the
// capacity of its bodies (the memory they hold), not just their length.
func (e *Entry) size(key string) int64 {
	n := entryOverhead + len(key) + len(e.ETag) + cap(e.Body)
	for _, enc := range e.Encoded {
		n += 128 + len(enc.Coding) + len(enc.ETag) + cap(enc.Body)
	}
	return int64(n)
}

// Cache is an LRU of entries of one catalogue version, bounded in entries
// and in bytes. It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	version string // "" while unknown
	entries *simplelru.LRU[string, Entry]
	// aliases map other keys to the keys of entries (see Alias).
	aliases  *simplelru.LRU[string, string]
	bytes    int64
	maxBytes int64
	// seen is the doorkeeper: the hashes of keys offered once, each in
	// the slot its low bits name, so that a newer key overwrites an older
	// mark and marks age without a sweep.
	seen []uint64
}

// seenPerEntry sizes the doorkeeper: its slots per entry of the cache,
// so that a key offered again after about that many entries' worth of
// other first offers is still recognised (8 bytes a slot).
const seenPerEntry = 4

// aliasOverhead approximates what an alias costs besides its two keys.
const aliasOverhead = 128

// New returns a cache of at most maxEntries responses (and as many
// aliases) and maxBytes bytes.
func New(maxEntries int, maxBytes int64) (*Cache, error) {
	c := &Cache{maxBytes: maxBytes, seen: make([]uint64, 1<<bits.Len(uint(max(maxEntries, 1)*seenPerEntry-1)))}
	entries, err := simplelru.NewLRU(maxEntries, func(key string, e Entry) { c.bytes -= e.size(key) })
	if err != nil {
		return nil, err
	}
	aliases, err := simplelru.NewLRU(maxEntries, func(alias, key string) { c.bytes -= aliasSize(alias, key) })
	if err != nil {
		return nil, err
	}
	c.entries, c.aliases = entries, aliases
	return c, nil
}

func aliasSize(alias, key string) int64 { return int64(aliasOverhead + len(alias) + len(key)) }

// SetVersion records the catalogue version now served; "" means unknown.
// A change drops every entry.
func (c *Cache) SetVersion(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version {
		c.version = v
		c.entries.Purge()
		c.aliases.Purge()
		clear(c.seen)
	}
}

// Get returns the entry for key, if the current version has one.
func (c *Cache) Get(key string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == "" {
		return Entry{}, false
	}
	return c.entries.Get(key)
}

// GetAlias returns the entry that alias names, and its key, if the
// current version has it.
func (c *Cache) GetAlias(alias string) (key string, e Entry, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == "" {
		return "", Entry{}, false
	}
	if key, ok = c.aliases.Get(alias); ok {
		e, ok = c.entries.Get(key)
	}
	return key, e, ok
}

// Alias makes alias another name of the entry of key: a request as sent,
// say, for the canonical form of it that keys the entry, so that the next
// request sent alike is found without computing that form. Aliases are
// bounded in number like entries, count against the byte budget, and
// dangle harmlessly once their entry is gone.
func (c *Cache) Alias(alias, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == "" || alias == key {
		return
	}
	if old, ok := c.aliases.Peek(alias); ok {
		c.bytes -= aliasSize(alias, old) // Add replaces without calling back
	}
	c.aliases.Add(alias, key)
	c.bytes += aliasSize(alias, key)
	c.shrink()
}

// Put keeps e for key if version is the one now served (a response from
// a replica still on another version is not kept) and key was offered
// before, since the doorkeeper last saw it. It reports whether e was
// kept: if not, the caller may reuse e's body once it is written.
func (c *Cache) Put(key, version string, e Entry) bool {
	h := xxhash.Sum64String(key) | 1 // 0 marks an empty slot
	c.mu.Lock()
	defer c.mu.Unlock()
	if version == "" || version != c.version {
		return false
	}
	slot := &c.seen[h&uint64(len(c.seen)-1)]
	if *slot != h {
		*slot = h
		return false
	}
	*slot = 0
	c.store(key, e)
	return true
}

// AddEncoding keeps enc beside the body of the entry for key, if that
// entry is still the rendering tagged etag and lacks the coding.
func (c *Cache) AddEncoding(key, etag string, enc Encoded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries.Peek(key)
	if !ok || e.ETag != etag {
		return
	}
	if _, has := e.Encoding(enc.Coding); has {
		return
	}
	e.Encoded = append(slices.Clip(e.Encoded), enc) // a new array: readers may hold the old one
	c.store(key, e)
}

// store adds or replaces the entry for key, then shrinks the cache to its
// byte budget. An entry larger than the whole budget is not kept.
func (c *Cache) store(key string, e Entry) {
	size := e.size(key)
	if size > c.maxBytes {
		c.entries.Remove(key) // an older, smaller rendering would be stale
		return
	}
	if old, ok := c.entries.Peek(key); ok {
		c.bytes -= old.size(key) // Add replaces without calling back
	}
	c.entries.Add(key, e)
	c.bytes += size
	c.shrink()
}

// shrink evicts the least recently used entries, then aliases, until the
// cache is within its byte budget.
func (c *Cache) shrink() {
	for c.bytes > c.maxBytes {
		if _, _, ok := c.entries.RemoveOldest(); ok {
			continue
		}
		if _, _, ok := c.aliases.RemoveOldest(); !ok {
			return
		}
	}
}

// Len returns the number of entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.Len()
}

// Bytes returns what the entries count against the byte budget.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
