package limit

import (
	"fmt"
	"testing"
	"time"
)

// TestThrottle steps a clock through a Throttle of 2 per second: a burst
// of two, then a refusal that counts nothing and names the wait, keys
// counted apart, and one more admitted after the emission interval.
func TestThrottle(t *testing.T) {
	c := newClock(t0)
	th := NewThrottle(Rate{Requests: 2, Per: time.Second}, 1000, c.Now)
	for i := range 2 {
		if _, ok := th.Allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	for range 3 {
		if wait, ok := th.Allow("a"); ok || wait != 500*time.Millisecond {
			t.Fatalf("over the burst: allowed %v, retry after %v; want refused, 500ms", ok, wait)
		}
	}
	if _, ok := th.Allow("b"); !ok {
		t.Fatal("another key refused for a's requests")
	}
	c.Advance(500 * time.Millisecond)
	if _, ok := th.Allow("a"); !ok {
		t.Fatal("refused after the emission interval")
	}
	if _, ok := th.Allow("a"); ok {
		t.Fatal("two admitted after one emission interval")
	}
}

// TestThrottleBounded floods a small Throttle with distinct keys, each
// refusing: it never holds more than its capacity.
func TestThrottleBounded(t *testing.T) {
	c := newClock(t0)
	th := NewThrottle(Rate{Requests: 1, Per: time.Hour}, 8*shardCount, c.Now)
	for i := range 10_000 {
		th.Allow(fmt.Sprint("addr", i))
		th.Allow(fmt.Sprint("addr", i))
	}
	if n := th.Len(); n > 8*shardCount {
		t.Fatalf("holds %d keys, capacity %d", n, 8*shardCount)
	}
}
