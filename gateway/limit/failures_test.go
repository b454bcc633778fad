package limit

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// blockedState is what Blocked returns.
type blockedState struct {
	RetryAfter time.Duration
	Blocked    bool
}

func blocked(t *testing.T, f *Failures, addr string) blockedState {
	t.Helper()
	d, b := f.Blocked(addr)
	return blockedState{d, b}
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
				for range st.fails {
					f.Fail("192.0.2.1")
				}
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

func TestFailuresBlockedAddsNothing(t *testing.T) {
	c := newClock(t0)
	f := NewFailures(Rate{5, time.Minute, 0}, c.Now)
	for i := range 1000 {
		f.Blocked(fmt.Sprint("198.51.100.", i))
	}
	if n := f.Len(); n != 0 {
		t.Errorf("Len() = %d after Blocked only, want 0", n)
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
				f.Blocked("203.0.113.9")
				f.Fail("203.0.113.9")
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(blockedState{6 * time.Second, true}, blocked(t, f, "203.0.113.9")); diff != "" {
		t.Fatalf("Blocked mismatch (-want +got):\n%s", diff)
	}
	// Exactly 25 were counted: TAT is 25*T ahead.
	const addr = "203.0.113.9"
	if got, want := f.t.shard(addr).m[addr].tat, t0.Add(25*6*time.Second); !got.Equal(want) {
		t.Fatalf("TAT = %v, want %v", got, want)
	}
	c.Advance(6*time.Second - 1)
	if _, b := f.Blocked(addr); !b {
		t.Fatal("unblocked before T")
	}
	c.Advance(1)
	if _, b := f.Blocked(addr); b {
		t.Fatal("blocked after T")
	}
}

// sameShard returns n addresses that fall into one shard of f.
func sameShard(t *testing.T, f *Failures, n int) []string {
	t.Helper()
	var addrs []string
	want := f.t.shard("addr0")
	for i := 0; len(addrs) < n; i++ {
		if a := fmt.Sprint("addr", i); f.t.shard(a) == want {
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
	if f.maxPerShard != 8 {
		t.Fatalf("maxPerShard = %d, want 8", f.maxPerShard)
	}
	addrs := sameShard(t, f, 40)
	s := f.t.shard(addrs[0])
	held := func(addr string) bool { _, ok := s.m[addr]; return ok }
	fail := func(addr string, n int) {
		t.Helper()
		for range n {
			f.Fail(addr)
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
		if _, b := f.Blocked(a); !b {
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
	if _, b := f.Blocked(addrs[len(addrs)-1]); !b {
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
		f.Fail(fmt.Sprintf("2001:db8::%x", i))
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
		f.Fail(fmt.Sprintf("2001:db8:1::%x", i))
	}
	if got := f.Len(); got != n {
		t.Errorf("Len() = %d after the old addresses went idle, want %d", got, n)
	}
}
