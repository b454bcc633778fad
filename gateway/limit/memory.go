package limit

import (
	"context"
	"hash/maphash"
	"strings"
	"sync"
	"time"
)

// shardCount is the number of independently locked parts of a table, so
// Takes on different keys rarely wait for each other.
const shardCount = 32

// memoryMinSweep is the number of keys a Memory shard holds before its first
// sweep (so at most shardCount*memoryMinSweep = 8192 keys are held before any
// sweep runs).
const memoryMinSweep = 256

// entry is the state of one key.
type entry struct {
	tat  time.Time // the rate's theoretical arrival time; zero or past: a full bucket
	qEnd time.Time // end of the quota window that used counts; zero: no quota seen
	used int       // requests allowed in the window ending at qEnd
}

// shard is one locked part of a table.
type shard struct {
	mu      sync.Mutex
	m       map[string]*entry
	sweepAt int // inserting into a map of this length sweeps it first

	_ [40]byte // keep each shard on its own cache line
}

// table is a map from key to entry split into shards by a hash of the key.
type table struct {
	seed     maphash.Seed
	minSweep int
	shards   [shardCount]shard
}

func (t *table) init(minSweep int) {
	t.seed = maphash.MakeSeed()
	t.minSweep = minSweep
	for i := range t.shards {
		t.shards[i].m = make(map[string]*entry)
		t.shards[i].sweepAt = minSweep
	}
}

func (t *table) shard(key string) *shard {
	return &t.shards[maphash.String(t.seed, key)%shardCount]
}

func (t *table) len() int {
	n := 0
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

// compact replaces s.m by a fresh map when a sweep left fewer than a quarter
// of the before entries, since a Go map never gives back the space it grew to.
func (s *shard) compact(before, minSweep int) {
	if before <= minSweep || len(s.m)*4 >= before {
		return
	}
	m := make(map[string]*entry, len(s.m))
	for k, e := range s.m {
		m[k] = e
	}
	s.m = m
}

// Memory is the in-memory Store of one process. It is safe for concurrent
// use.
//
// Memory stays bounded without a background goroutine: a key whose bucket is
// full again (TAT <= now) and whose quota window has ended holds nothing a
// new key would not, so it can be dropped without changing any decision.
// Each of the 32 shards sweeps such idle keys when a new key would grow it
// to a threshold, then sets the threshold to twice the keys that stayed
// (at least 256): the amortized cost per Take is constant, and a shard holds
// at most about twice the keys active in its last sweep. A key with a quota
// stays until its window ends (the end of the UTC day or month).
type Memory struct {
	now func() time.Time
	t   table
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory that reads the time from now (time.Now
// if nil; tests inject a clock).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now}
	m.t.init(memoryMinSweep)
	return m
}

// Len returns the number of keys m holds, idle ones not yet swept included.
func (m *Memory) Len() int { return m.t.len() }

// states holds both parts of a Decision, so a Take allocates once.
type states struct {
	rate  RateState
	quota QuotaState
}

// Take decides one request of key against rate and quota (either may be
// nil) and records it if allowed. It returns an error only for an invalid
// rate or quota (see Rate.Validate, Quota.Validate); ctx is not used.
//
// A key keeps one quota counter: if a key's quota period changes, the count
// starts again at the new window.
func (m *Memory) Take(_ context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	if rate == nil && quota == nil {
		return Decision{Allowed: true}, nil
	}
	if err := validate(rate, quota); err != nil {
		return Decision{}, err
	}
	var g gcra
	if rate != nil {
		g = newGCRA(*rate)
	}
	var qEnd time.Time
	now := m.now()
	if quota != nil {
		qEnd = quota.Period.window(now)
	}

	s := m.t.shard(key)
	s.mu.Lock()
	e := s.m[key]
	var cur entry
	if e != nil {
		cur = *e
	}
	if quota != nil && !cur.qEnd.Equal(qEnd) {
		cur.used = 0 // a new window
	}
	rateOK, quotaOK := true, true
	var next time.Time
	var rateRetry time.Duration
	if rate != nil {
		next, rateOK, rateRetry = g.take(cur.tat, now)
	}
	if quota != nil {
		quotaOK = cur.used < quota.Requests
	}
	allowed := rateOK && quotaOK
	if allowed {
		if e == nil {
			e = new(entry)
			m.insert(s, key, e, now)
		}
		if rate != nil {
			cur.tat = next
			e.tat = next
		}
		if quota != nil {
			cur.used++
			e.qEnd = qEnd
			e.used = cur.used
		}
	}
	s.mu.Unlock()

	d := Decision{Allowed: allowed}
	st := new(states)
	if rate != nil {
		r := &st.rate
		r.Limit = g.limit
		r.Remaining, r.Reset = g.state(cur.tat, now)
		r.RetryAfter = rateRetry
		d.Rate = r
		d.RetryAfter = rateRetry
	}
	if quota != nil {
		q := &st.quota
		q.Limit = quota.Requests
		q.Remaining = max(quota.Requests-cur.used, 0)
		q.Reset = qEnd.Sub(now)
		if !quotaOK {
			q.RetryAfter = q.Reset
			d.RetryAfter = max(d.RetryAfter, q.RetryAfter)
		}
		d.Quota = q
	}
	return d, nil
}

// insert adds a new key to s, whose lock is held, sweeping idle keys first
// when s has reached its threshold.
func (m *Memory) insert(s *shard, key string, e *entry, now time.Time) {
	if len(s.m) >= s.sweepAt {
		before := len(s.m)
		for k, e := range s.m {
			if !e.tat.After(now) && !now.Before(e.qEnd) {
				delete(s.m, k)
			}
		}
		s.compact(before, m.t.minSweep)
		s.sweepAt = max(m.t.minSweep, 2*len(s.m))
	}
	s.m[strings.Clone(key)] = e // never pin a larger string the key may be cut from
}
