package limit

import (
	"fmt"
	"strings"
	"time"
)

// Throttle is a rate per key counted in this process alone (the GCRA of a
// Store's rate), for requests that must be refused without a round trip
// to a shared store: a refusal costs a map lookup under a shard's lock and
// nothing else. Replicas do not share it, so n replicas together admit up
// to n times its rate. It is safe for concurrent use.
//
// Memory is bounded, since its keys may be chosen by attackers (client
// addresses): only an allowed request adds a key to its shard, and when
// the shard is full (maxKeys/32) it first drops idle keys (bucket full
// again), then keys that are not refusing, then arbitrary ones (map
// order), until it is 7/8 full. Refusing keys go last. Idle keys are also
// swept, as in Memory, when a shard grows to twice the keys kept by its
// last sweep (at least 64).
type Throttle struct {
	g           gcra
	now         func() time.Time
	maxPerShard int
	t           table
}

// NewThrottle returns a Throttle that allows rate per key, holding at most
// maxKeys keys (split evenly among 32 shards), and reads the time from now
// (time.Now if nil). It panics if rate is invalid (see Rate.Validate):
// validate configuration before.
func NewThrottle(rate Rate, maxKeys int, now func() time.Time) *Throttle {
	if err := rate.Validate(); err != nil {
		panic(fmt.Sprintf("limit.NewThrottle: %v", err))
	}
	return newThrottle(rate, now, maxKeys)
}

func newThrottle(rate Rate, now func() time.Time, maxKeys int) *Throttle {
	if now == nil {
		now = time.Now
	}
	th := &Throttle{g: newGCRA(rate), now: now, maxPerShard: max(maxKeys/shardCount, 1)}
	th.t.init(min(failuresMinSweep, th.maxPerShard))
	return th
}

// Len returns the number of keys th holds, idle ones not yet swept
// included.
func (th *Throttle) Len() int { return th.t.len() }

// Allow counts one request of key and reports whether it is allowed; when
// it is not, nothing is counted and retryAfter (always positive) says when
// one more would be.
func (th *Throttle) Allow(key string) (retryAfter time.Duration, ok bool) {
	now := th.now()
	s := th.t.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[key]
	var tat time.Time
	if e != nil {
		tat = e.tat
	}
	next, ok, retryAfter := th.g.take(tat, now)
	if !ok {
		return retryAfter, false
	}
	if e == nil {
		e = new(entry)
		th.insert(s, key, e, now)
	}
	e.tat = next
	return 0, true
}

// insert adds a new key to s, whose lock is held, making room first when s
// has reached its threshold.
func (th *Throttle) insert(s *shard, key string, e *entry, now time.Time) {
	if len(s.m) >= s.sweepAt {
		th.evict(s, now)
	}
	s.m[strings.Clone(key)] = e
}

// evict drops idle keys from s; if s is still over 7/8 of its capacity,
// it drops keys that are not refusing, then any.
func (th *Throttle) evict(s *shard, now time.Time) {
	before := len(s.m)
	for k, e := range s.m {
		if !e.tat.After(now) {
			delete(s.m, k)
		}
	}
	low := th.maxPerShard - max(th.maxPerShard/8, 1)
	if len(s.m) > low {
		for k, e := range s.m {
			if _, ok, _ := th.g.take(e.tat, now); ok {
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
	s.compact(before, th.t.minSweep)
	s.sweepAt = min(max(th.t.minSweep, 2*len(s.m)), th.maxPerShard)
}
