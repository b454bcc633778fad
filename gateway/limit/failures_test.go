package limit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// blockedState is what Fail returns for a blocked group.
type blockedState struct {
	RetryAfter time.Duration
	Blocked    bool
}

// blocked reports, counting nothing, what Fail would return for addr's
// group in f's own table.
func blocked(t *testing.T, f *Failures, addr string) blockedState {
	t.Helper()
	group := AddrGroup(addr)
	s := f.local.t.shard(group)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[group]
	if e == nil {
		return blockedState{}
	}
	_, ok, retryAfter := f.local.g.take(e.tat, f.local.now())
	return blockedState{retryAfter, !ok}
}

// failN records n failures of addr, returning the last result.
func failN(f *Failures, addr string, n int) (st blockedState) {
	for range n {
		st.RetryAfter, st.Blocked = f.Fail(context.Background(), addr)
	}
	return st
}

// failStep moves the clock by advance, records fails failures, then checks
// Blocked.
type failStep struct {
	advance time.Duration
	fails   int
	want    blockedState
}

func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rate  Rate
		steps []failStep
	}{
		{"3 a minute", Rate{3, time.Minute, 0}, []failStep{
			{0, 0, blockedState{}},                       // a new address
			{0, 2, blockedState{}},                       // under the limit
			{0, 1, blockedState{20 * time.Second, true}}, // at the limit: T to wait
			{10 * time.Second, 0, blockedState{10 * time.Second, true}},
			{0, 5, blockedState{10 * time.Second, true}}, // failures while blocked are not counted
			{10 * time.Second, 0, blockedState{}},        // after T: one more allowed
			{0, 1, blockedState{20 * time.Second, true}}, // and blocked again
			{time.Minute, 0, blockedState{}},             // refilled
			{0, 2, blockedState{}},                       // a full bucket again
			{0, 1, blockedState{20 * time.Second, true}},
		}},
		{"10 an hour, burst 2", Rate{10, time.Hour, 2}, []failStep{
			{0, 1, blockedState{}},
			{0, 1, blockedState{6 * time.Minute, true}},
			{6*time.Minute - 1, 0, blockedState{1, true}},
			{1, 0, blockedState{}},
			{12 * time.Minute, 2, blockedState{6 * time.Minute, true}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock(t0)
			f := NewFailures(tc.rate, c.Now)
			for i, st := range tc.steps {
				c.Advance(st.advance)
				failN(f, "192.0.2.1", st.fails)
				if diff := cmp.Diff(st.want, blocked(t, f, "192.0.2.1")); diff != "" {
					t.Fatalf("step %d (+%v, %d failures): Blocked mismatch (-want +got):\n%s", i, st.advance, st.fails, diff)
				}
				if diff := cmp.Diff(blockedState{}, blocked(t, f, "192.0.2.2")); diff != "" {
					t.Fatalf("step %d: another address: Blocked mismatch (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// TestFailuresRefusedAddsNothing: a failure over the limit is refused and
// not counted, so the group's wait does not grow.
func TestFailuresRefusedAddsNothing(t *testing.T) {
	c := newClock(t0)
	f := NewFailures(Rate{5, time.Minute, 0}, c.Now) // T = 12s
	if st := failN(f, "198.51.100.1", 5); st.Blocked {
		t.Fatalf("the burst of 5: %+v, want not blocked", st)
	}
	want := blockedState{12 * time.Second, true}
	for i := range 100 {
		if st := failN(f, "198.51.100.1", 1); st != want {
			t.Fatalf("failure %d over the limit: %+v, want %+v", i, st, want)
		}
	}
}

func TestNewFailuresInvalidRate(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewFailures with an invalid rate did not panic")
		}
	}()
	NewFailures(Rate{}, nil)
}

// TestFailuresConcurrent fails one address from many goroutines at one
// frozen instant: exactly the burst is counted.
func TestFailuresConcurrent(t *testing.T) {
	c := newClock(t0)
	rate := Rate{10, time.Minute, 25} // T = 6s
	f := NewFailures(rate, c.Now)
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 8 {
				failN(f, "203.0.113.9", 1)
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(blockedState{6 * time.Second, true}, blocked(t, f, "203.0.113.9")); diff != "" {
		t.Fatalf("Blocked mismatch (-want +got):\n%s", diff)
	}
	// Exactly 25 were counted: TAT is 25*T ahead.
	const addr = "203.0.113.9"
	if got, want := f.local.t.shard(addr).m[addr].tat, t0.Add(25*6*time.Second); !got.Equal(want) {
		t.Fatalf("TAT = %v, want %v", got, want)
	}
	c.Advance(6*time.Second - 1)
	if !blocked(t, f, addr).Blocked {
		t.Fatal("unblocked before T")
	}
	c.Advance(1)
	if blocked(t, f, addr).Blocked {
		t.Fatal("blocked after T")
	}
}

// sameShard returns n addresses that fall into one shard of f.
func sameShard(t *testing.T, f *Failures, n int) []string {
	t.Helper()
	var addrs []string
	want := f.local.t.shard("addr0")
	for i := 0; len(addrs) < n; i++ {
		if a := fmt.Sprint("addr", i); f.local.t.shard(a) == want {
			addrs = append(addrs, a)
		}
	}
	return addrs
}

// TestFailuresEviction fills one shard (capacity 8) and checks the order of
// eviction: idle addresses, then addresses that are not blocked, then any;
// never more than the capacity.
func TestFailuresEviction(t *testing.T) {
	c := newClock(t0)
	rate := Rate{2, time.Hour, 0} // T = 30m: two failures block
	f := newFailures(rate, c.Now, 8*shardCount)
	if f.local.maxPerShard != 8 {
		t.Fatalf("maxPerShard = %d, want 8", f.local.maxPerShard)
	}
	addrs := sameShard(t, f, 40)
	s := f.local.t.shard(addrs[0])
	held := func(addr string) bool { _, ok := s.m[addr]; return ok }
	fail := func(addr string, n int) {
		t.Helper()
		for range n {
			failN(f, addr, 1)
			if len(s.m) > 8 {
				t.Fatalf("shard holds %d addresses, over its capacity 8", len(s.m))
			}
		}
	}

	idle, blockedAddrs, half := addrs[0:3], addrs[3:6], addrs[6:8]
	for _, a := range idle {
		fail(a, 1)
	}
	c.Advance(time.Hour) // idle: buckets full again
	for _, a := range blockedAddrs {
		fail(a, 2)
	}
	for _, a := range half {
		fail(a, 1)
	}
	if len(s.m) != 8 {
		t.Fatalf("shard holds %d addresses, want 8", len(s.m))
	}

	// Full: a new address drops the idle ones first, and only them.
	fail(addrs[8], 1)
	for _, a := range idle {
		if held(a) {
			t.Errorf("idle %s kept", a)
		}
	}
	for _, a := range append(append([]string{addrs[8]}, blockedAddrs...), half...) {
		if !held(a) {
			t.Errorf("%s dropped with idle addresses to drop", a)
		}
	}

	// Full again, nothing idle: addresses that are not blocked go before
	// blocked ones.
	fail(addrs[9], 1)
	fail(addrs[10], 1)
	fail(addrs[11], 1)
	for _, a := range blockedAddrs {
		if !held(a) {
			t.Errorf("blocked %s dropped while unblocked ones were held", a)
		}
		if !blocked(t, f, a).Blocked {
			t.Errorf("%s not blocked", a)
		}
	}

	// All blocked: any may go, and the shard stays within its capacity.
	for _, a := range addrs[12:] {
		fail(a, 2)
	}
	if got := len(s.m); got > 8 || got < 7 {
		t.Errorf("shard holds %d addresses, want 7 or 8", got)
	}
	if !blocked(t, f, addrs[len(addrs)-1]).Blocked {
		t.Errorf("the last address is not blocked")
	}
}

// TestFailuresCap fails from many more addresses than MaxFailureAddrs.
func TestFailuresCap(t *testing.T) {
	if testing.Short() {
		t.Skip("300k addresses")
	}
	c := newClock(t0)
	f := NewFailures(Rate{5, time.Minute, 0}, c.Now)
	for i := range 3 * MaxFailureAddrs {
		failN(f, fmt.Sprintf("2001:db8:%x:%x::1", i>>16, i&0xffff), 1) // a /64 each
		if i%1000 == 0 {
			c.Advance(time.Millisecond)
		}
	}
	if n := f.Len(); n > MaxFailureAddrs || n < MaxFailureAddrs*3/4 {
		t.Errorf("Len() = %d, want at most %d and not far below", n, MaxFailureAddrs)
	}
	// A minute later every address is idle: the next sweep of each shard
	// (when it is full again) drops them all.
	c.Advance(time.Minute)
	const n = 30000 // about 940 a shard, more than the 1/8 of room left
	for i := range n {
		failN(f, fmt.Sprintf("2001:db9:%x::1", i), 1)
	}
	if got := f.Len(); got != n {
		t.Errorf("Len() = %d after the old addresses went idle, want %d", got, n)
	}
}

func TestAddrGroup(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.1":               "192.0.2.1",
		"::ffff:192.0.2.1":        "192.0.2.1",
		"2001:db8:1:2:3:4:5:6":    "2001:db8:1:2::/64",
		"2001:db8:1:2::1%eth0":    "2001:db8:1:2::/64",
		"2001:db8:1:3::1":         "2001:db8:1:3::/64",
		"::1":                     "::/64",
		"not an address":          "not an address",
		"2001:db8:1:2:ffff::abcd": "2001:db8:1:2::/64",
	} {
		if got := AddrGroup(addr); got != want {
			t.Errorf("AddrGroup(%q) = %q, want %q", addr, got, want)
		}
	}
}

// TestFailuresGroups: the addresses of one IPv6 /64 share a budget; other
// /64s, and neighbouring IPv4 addresses, have their own.
func TestFailuresGroups(t *testing.T) {
	c := newClock(t0)
	f := NewFailures(Rate{10, time.Hour, 0}, c.Now)
	for i := range 10 {
		if st := failN(f, fmt.Sprintf("2001:db8:1:2::%x", i+1), 1); st.Blocked {
			t.Fatalf("failure %d of the /64: blocked, want counted", i)
		}
	}
	for addr, want := range map[string]bool{
		"2001:db8:1:2:ffff:ffff:ffff:ffff": true, // the same /64
		"2001:db8:1:3::1":                  false,
		"192.0.2.1":                        false,
	} {
		if got := failN(f, addr, 1).Blocked; got != want {
			t.Errorf("%s after 10 failures in 2001:db8:1:2::/64: blocked %v, want %v", addr, got, want)
		}
	}
	failN(f, "192.0.2.1", 9)
	if !failN(f, "192.0.2.1", 1).Blocked || failN(f, "192.0.2.2", 1).Blocked {
		t.Error("IPv4: want 192.0.2.1 blocked after its 10 failures, 192.0.2.2 not")
	}
}

// TestSharedFailuresStoreError: when the shared store fails, failures are
// counted in the Failures' own table.
func TestSharedFailuresStoreError(t *testing.T) {
	c := newClock(t0)
	store := newFlaky(c.Now)
	store.down.Store(true)
	f := NewSharedFailures(Rate{2, time.Hour, 0}, store, c.Now)
	got := []bool{failN(f, "192.0.2.1", 1).Blocked, failN(f, "192.0.2.1", 1).Blocked, failN(f, "192.0.2.1", 1).Blocked}
	if fmt.Sprint(got) != "[false false true]" || store.calls.Load() != 3 {
		t.Errorf("blocked %v with %d calls to the failing store, want [false false true] and 3", got, store.calls.Load())
	}
}
