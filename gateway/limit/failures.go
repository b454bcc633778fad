package limit

import (
	"fmt"
	"strings"
	"time"
)

// MaxFailureAddrs is the number of client addresses a Failures tracks at
// most, split evenly among its 32 shards (so one shard may evict before the
// total is reached). At about 130 bytes an address, that is some 13 MB.
const MaxFailureAddrs = 100_000

// failuresMinSweep is the number of addresses a Failures shard holds before
// its first sweep of idle ones.
const failuresMinSweep = 64

// Failures rate-limits failed authentication per client address: Blocked
// reports whether addr is over the limit right now (and for how long),
// without counting; Fail records one failure. It is safe for concurrent use.
//
// It is the same GCRA as a Store's rate: Burst failures at one instant, then
// one more every Per/Requests. The middleware calls Blocked before checking
// a key (a blocked address is refused whatever key it sends, so keys cannot
// be guessed at line rate) and Fail after a failed check. A Fail while the
// address is blocked (a race of concurrent requests) is not counted, as
// refused requests never are; so an address is never blocked for longer than
// Burst*Per/Requests after its last counted failure.
//
// Memory is bounded, since it faces attackers who may own many addresses:
// Blocked never adds an address; Fail adds one to its shard, and when the
// shard is full (MaxFailureAddrs/32) it first drops idle addresses (bucket
// full again), then addresses that are not blocked, then arbitrary ones
// (map order), until it is 7/8 full. Blocked addresses go last. Idle addresses
// are also swept, as in Memory, when a shard grows to twice the addresses
// kept by its last sweep (at least 64).
type Failures struct {
	g           gcra
	now         func() time.Time
	maxPerShard int
	t           table
}

// NewFailures returns a Failures that allows rate of failures per address and
// reads the time from now (time.Now if nil). It panics if rate is invalid
// (see Rate.Validate): validate configuration before.
func NewFailures(rate Rate, now func() time.Time) *Failures {
	return newFailures(rate, now, MaxFailureAddrs)
}

func newFailures(rate Rate, now func() time.Time, maxAddrs int) *Failures {
	if err := rate.Validate(); err != nil {
		panic(fmt.Sprintf("limit.NewFailures: %v", err))
	}
	if now == nil {
		now = time.Now
	}
	f := &Failures{g: newGCRA(rate), now: now, maxPerShard: max(maxAddrs/shardCount, 1)}
	f.t.init(min(failuresMinSweep, f.maxPerShard))
	return f
}

// Len returns the number of addresses f tracks, idle ones not yet swept
// included.
func (f *Failures) Len() int { return f.t.len() }

// Blocked reports whether addr is over the limit right now, and if so how long
// until one more failure would be admitted (always positive then). It counts
// nothing.
func (f *Failures) Blocked(addr string) (retryAfter time.Duration, blocked bool) {
	now := f.now()
	s := f.t.shard(addr)
	s.mu.Lock()
	e := s.m[addr]
	if e == nil {
		s.mu.Unlock()
		return 0, false
	}
	_, ok, retryAfter := f.g.take(e.tat, now)
	s.mu.Unlock()
	return retryAfter, !ok
}

// Fail records one failed authentication from addr, unless addr is already
// blocked.
func (f *Failures) Fail(addr string) {
	now := f.now()
	s := f.t.shard(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[addr]
	var tat time.Time
	if e != nil {
		tat = e.tat
	}
	next, ok, _ := f.g.take(tat, now)
	if !ok {
		return
	}
	if e == nil {
		e = new(entry)
		f.insert(s, addr, e, now)
	}
	e.tat = next
}

// insert adds a new address to s, whose lock is held, making room first
// when s has reached its threshold.
func (f *Failures) insert(s *shard, addr string, e *entry, now time.Time) {
	if len(s.m) >= s.sweepAt {
		f.evict(s, now)
	}
	s.m[strings.Clone(addr)] = e
}

// evict drops idle addresses from s; if s is still over 7/8 of its capacity,
// it drops addresses that are not blocked, then any.
func (f *Failures) evict(s *shard, now time.Time) {
	before := len(s.m)
	for k, e := range s.m {
		if !e.tat.After(now) {
			delete(s.m, k)
		}
	}
	low := f.maxPerShard - max(f.maxPerShard/8, 1)
	if len(s.m) > low {
		for k, e := range s.m {
			if _, ok, _ := f.g.take(e.tat, now); ok {
				delete(s.m, k)
				if len(s.m) <= low {
					break
				}
			}
		}
	}
	if len(s.m) > low {
		for k := range s.m {
			delete(s.m, k)
			if len(s.m) <= low {
				break
			}
		}
	}
	s.compact(before, f.t.minSweep)
	s.sweepAt = min(max(f.t.minSweep, 2*len(s.m)), f.maxPerShard)
}
