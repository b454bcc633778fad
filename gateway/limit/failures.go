package limit

import (
	"context"
	"fmt"
	"net/netip"
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
// Its own table is a Throttle of MaxFailureAddrs groups, bounded in memory
// since it faces attackers who may own many addresses; blocked groups are
// evicted last.
type Failures struct {
	rate   Rate
	local  *Throttle
	shared Store // nil: count in local alone
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
	return &Failures{rate: rate, local: newThrottle(rate, now, maxAddrs)}
}

// Len returns the number of address groups f tracks in its own table, idle
// ones not yet swept included.
func (f *Failures) Len() int { return f.local.Len() }

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
	retryAfter, ok := f.local.Allow(group)
	return retryAfter, !ok
}
