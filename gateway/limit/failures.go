package limit

import (
	"context"
	"fmt"
	"net/netip"
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

// Failures rate-limits failed authentication per client address group: an
// IPv4 address, or the /64 prefix of an IPv6 address (one subscriber's
// network, which one client can fill with addresses). Fail records one
// failure and reports whether the group was already over the limit. It is
// safe for concurrent use.
//
// It is the same GCRA as a Store's rate: Burst failures at one instant, then
// one more every Per/Requests. The middleware checks the key first and calls
// Fail only for a key that failed, so a valid key is never refused for what
// others did at its address; a failure over the limit is refused (429) and
// not counted, as refused requests never are, so a group is never blocked
// for longer than Burst*Per/Requests after its last counted failure.
//
// A Failures made by NewSharedFailures counts in a Store (the Redis store
// behind a Resilient), so that replicas share the count; it falls back to
// its own table only when that store returns an error.
//
// Memory is bounded, since it faces attackers who may own many addresses:
// only a counted failure adds a group to its shard, and when the shard is
// full (MaxFailureAddrs/32) it first drops idle groups (bucket full again),
// then groups that are not blocked, then arbitrary ones (map order), until
// it is 7/8 full. Blocked groups go last. Idle groups are also swept, as in
// Memory, when a shard grows to twice the groups kept by its last sweep (at
// least 64).
type Failures struct {
	rate        Rate
	g           gcra
	now         func() time.Time
	maxPerShard int
	t           table
	shared      Store // nil: count in t alone
}

// NewFailures returns a Failures that allows rate of failures per address
// group in this process and reads the time from now (time.Now if nil). It
// panics if rate is invalid (see Rate.Validate): validate configuration
// before.
func NewFailures(rate Rate, now func() time.Time) *Failures {
	return newFailures(rate, now, MaxFailureAddrs)
}

// NewSharedFailures is NewFailures counting in store, under the address
// group as the store's key (store should be one of its own: e.g. a Redis
// store under a prefix of its own, behind a Resilient with the Allow policy,
// whose local share then decides while Redis is down).
func NewSharedFailures(rate Rate, store Store, now func() time.Time) *Failures {
	f := NewFailures(rate, now)
	f.shared = store
	return f
}

func newFailures(rate Rate, now func() time.Time, maxAddrs int) *Failures {
	if err := rate.Validate(); err != nil {
		panic(fmt.Sprintf("limit.NewFailures: %v", err))
	}
	if now == nil {
		now = time.Now
	}
	f := &Failures{rate: rate, g: newGCRA(rate), now: now, maxPerShard: max(maxAddrs/shardCount, 1)}
	f.t.init(min(failuresMinSweep, f.maxPerShard))
	return f
}

// Len returns the number of address groups f tracks in its own table, idle
// ones not yet swept included.
func (f *Failures) Len() int { return f.t.len() }

// AddrGroup is the group whose failures are counted together for addr: the
// /64 prefix of an IPv6 address ("2001:db8:1:2::/64"), the address itself
// for IPv4 (also when IPv4-mapped), and addr unchanged if it does not parse.
func AddrGroup(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	return netip.PrefixFrom(ip, 64).Masked().String()
}

// Fail records one failed authentication from addr's group, unless the
// group is already over the limit: then it counts nothing and returns
// blocked, with how long until one more failure would be admitted (always
// positive).
func (f *Failures) Fail(ctx context.Context, addr string) (retryAfter time.Duration, blocked bool) {
	group := AddrGroup(addr)
	if f.shared != nil {
		d, err := f.shared.Take(ctx, group, &f.rate, nil)
		if err == nil {
			return d.RetryAfter, !d.Allowed
		}
	}
	now := f.now()
	s := f.t.shard(group)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[group]
	var tat time.Time
	if e != nil {
		tat = e.tat
	}
	next, ok, retryAfter := f.g.take(tat, now)
	if !ok {
		return retryAfter, true
	}
	if e == nil {
		e = new(entry)
		f.insert(s, group, e, now)
	}
	e.tat = next
	return 0, false
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
