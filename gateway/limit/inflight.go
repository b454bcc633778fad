package limit

import (
	"context"
	"sync"
)

// InFlight caps the requests of each key under way at once: Acquire waits
// for one of the key's slots, and the release it returns gives it back. A
// rate limit bounds how many requests a key starts, not what they cost
// while they run; this bounds a key's share of what serves them, whatever
// its plan (see docs/gateway.md, "Fair share of the catalog"). It holds an
// entry only for a key with a request under way or waiting, so its memory
// follows the requests, not the keys. It is safe for concurrent use.
type InFlight struct {
	max int
	mu  sync.Mutex
	m   map[string]*slots
}

// slots are one key's: a semaphore and the requests holding or awaiting it.
type slots struct {
	sem   chan struct{}
	users int
}

// NewInFlight returns an InFlight of n requests per key (at least 1).
func NewInFlight(n int) *InFlight {
	return &InFlight{max: max(n, 1), m: make(map[string]*slots)}
}

// Acquire waits until key has a free slot, or ctx ends (its error is
// returned, and nothing is held). The release must be called once the
// request is done.
func (f *InFlight) Acquire(ctx context.Context, key string) (release func(), err error) {
	f.mu.Lock()
	s := f.m[key]
	if s == nil {
		s = &slots{sem: make(chan struct{}, f.max)}
		f.m[key] = s
	}
	s.users++
	f.mu.Unlock()
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; f.leave(key, s) }, nil
	default:
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; f.leave(key, s) }, nil
	case <-ctx.Done():
		f.leave(key, s)
		return nil, ctx.Err()
	}
}

// leave drops one user of key's slots, and the entry with the last.
func (f *InFlight) leave(key string, s *slots) {
	f.mu.Lock()
	s.users--
	if s.users == 0 {
		delete(f.m, key)
	}
	f.mu.Unlock()
}

// Len returns the number of keys with a request under way or waiting.
func (f *InFlight) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.m)
}
