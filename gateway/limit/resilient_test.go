package limit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/internal/testlog"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// flaky is a Store that decides with a Memory, or fails while down. It
// counts its calls.
type flaky struct {
	m     *Memory
	down  atomic.Bool
	calls atomic.Int64
}

func newFlaky(now func() time.Time) *flaky { return &flaky{m: NewMemory(now)} }

var errDown = errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")

func (f *flaky) Take(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	f.calls.Add(1)
	if f.down.Load() {
		return Decision{}, errDown
	}
	return f.m.Take(ctx, key, rate, quota)
}

// logBuffer collects JSON log lines; safe for concurrent use.
type logBuffer struct{ testlog.Buffer }

// count returns the number of lines whose msg is msg.
func (b *logBuffer) count(t *testing.T, msg string) int {
	t.Helper()
	n := 0
	for line := range strings.Lines(b.String()) {
		var m struct{ Msg string }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m.Msg == msg {
			n++
		}
	}
	return n
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// The log messages of a Resilient's outages.
const (
	msgDown = "rate limit store unavailable"
	msgUp   = "rate limit store available again"
)

// TestResilientSameDecisions checks that a Resilient in front of a healthy
// store returns exactly the store's decisions, headers included, although
// it answers some refusals from its cache: a sequence of Takes on a few
// keys at stepped instants gives the same Decisions as a Memory alone.
func TestResilientSameDecisions(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name  string
		rate  *Rate
		quota *Quota
		start time.Time
	}{
		{"rate", &Rate{5, time.Second, 5}, nil, t0},
		{"rate with burst", &Rate{10, time.Minute, 3}, nil, t0},
		{"quota", nil, &Quota{7, Day}, date(2025, 6, 15, 23, 59, 0, 0)},
		{"rate and quota", &Rate{5, time.Second, 5}, &Quota{12, Day}, date(2025, 6, 15, 23, 59, 58, 0)},
		{"quota below burst", &Rate{20, time.Second, 0}, &Quota{6, Month}, date(2025, 6, 30, 23, 59, 59, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock(tc.start)
			ref := NewMemory(c.Now)
			store := newFlaky(c.Now)
			r := NewResilient(store, ResilientOptions{Now: c.Now})
			steps := []time.Duration{0, 0, 0, 1 * ms, 0, 50 * ms, 0, 0, 199 * ms, 1 * ms, 0, 0, 0, 0, 0, 0, 0, 700 * ms, 0, 0, 0, 0, 0, 0, 3 * time.Second, 0}
			takes := 0
			for round := range 4 {
				for i, step := range steps {
					c.Advance(step)
					for _, key := range []string{"a", "b", "a"} {
						want := take(t, ref, key, tc.rate, tc.quota)
						got := take(t, r, key, tc.rate, tc.quota)
						takes++
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("round %d step %d (%v) key %s: Resilient mismatch (-Memory +Resilient):\n%s", round, i, c.Now(), key, diff)
						}
					}
				}
				c.Advance(10 * time.Second)
			}
			s := r.Stats()
			if s.Cached == 0 || int64(s.Calls) != store.calls.Load() || s.Calls+s.Cached != uint64(takes) {
				t.Errorf("Stats = %+v after %d takes (store called %d times): want some cached, the rest sent to the store", s, takes, store.calls.Load())
			}
			if s.Errors != 0 || s.Fallbacks != 0 || s.State != Closed {
				t.Errorf("Stats = %+v, want no errors, no fallbacks, closed", s)
			}
		})
	}
}

// TestResilientCacheRefusesOnly checks the refusal cache's limits: only
// refusals are cached, only for the same rate and quota, and a quota
// refusal at most MaxDeny.
func TestResilientCacheRefusesOnly(t *testing.T) {
	rate := &Rate{2, time.Hour, 0}
	t.Run("allowed requests always go to the store", func(t *testing.T) {
		c := newClock(t0)
		store := newFlaky(c.Now)
		r := NewResilient(store, ResilientOptions{Now: c.Now})
		for range 2 {
			take(t, r, "k", rate, &Quota{100, Day})
		}
		if n := store.calls.Load(); n != 2 {
			t.Fatalf("store calls = %d, want 2", n)
		}
		take(t, r, "k", rate, &Quota{100, Day}) // refused by the rate: cached
		take(t, r, "k", rate, &Quota{100, Day})
		if n := store.calls.Load(); n != 3 {
			t.Fatalf("store calls = %d, want 3", n)
		}
	})
	t.Run("a plan change is not answered from the cache", func(t *testing.T) {
		c := newClock(t0)
		store := newFlaky(c.Now)
		r := NewResilient(store, ResilientOptions{Now: c.Now})
		for range 3 {
			take(t, r, "k", rate, nil)
		}
		bigger := &Rate{10, time.Hour, 20} // the TAT an hour ahead fits its tolerance
		if d := take(t, r, "k", bigger, nil); !d.Allowed {
			t.Fatalf("after the plan grew: %+v, want allowed", d)
		}
		if n := store.calls.Load(); n != 4 {
			t.Fatalf("store calls = %d, want 4 (2 allowed, 1 refused, then the new plan)", n)
		}
	})
	t.Run("a quota refusal is reused for MaxDeny", func(t *testing.T) {
		c := newClock(t0)
		store := newFlaky(c.Now)
		r := NewResilient(store, ResilientOptions{Now: c.Now, MaxDeny: time.Minute})
		q := &Quota{1, Day}
		take(t, r, "k", nil, q)
		for range 10 {
			if d := take(t, r, "k", nil, q); d.Allowed || d.Quota.RetryAfter != 12*time.Hour-c.Now().Sub(t0) {
				t.Fatalf("refusal: %+v, want refused until the end of the day", d.Quota)
			}
			c.Advance(5 * time.Second)
		}
		if n := store.calls.Load(); n != 2 {
			t.Fatalf("store calls = %d within MaxDeny, want 2", n)
		}
		c.Advance(10 * time.Second) // MaxDeny since the refusal
		take(t, r, "k", nil, q)
		if n := store.calls.Load(); n != 3 {
			t.Fatalf("store calls = %d after MaxDeny, want 3", n)
		}
	})
}

// TestResilientOutage runs an outage of the store with each policy: the
// breaker opens after Trip failures and the store is not called again
// while it is open, the policy decides, and the outage is logged once.
func TestResilientOutage(t *testing.T) {
	rate := &Rate{10, time.Minute, 0} // burst 10
	quota := &Quota{10, Day}
	for _, policy := range []Policy{Allow, Deny} {
		t.Run(policy.String(), func(t *testing.T) {
			c := newClock(t0)
			store := newFlaky(c.Now)
			var logs logBuffer
			r := NewResilient(store, ResilientOptions{Policy: policy, Now: c.Now, Trip: 3, OpenFor: time.Hour, Log: logs.logger()})

			// Before the outage: "seen" has used 3 of its quota, "over"
			// all of its rate.
			for range 3 {
				take(t, r, "seen", rate, quota)
			}
			for range 10 {
				take(t, r, "over", rate, nil)
			}
			if d := take(t, r, "over", rate, nil); d.Allowed {
				t.Fatal("over: allowed after its burst")
			}
			before := store.calls.Load()

			store.down.Store(true)
			admitted := map[string]int{}
			for range 100 {
				for _, key := range []string{"new", "seen", "over"} {
					q := quota
					if key == "over" {
						q = nil
					}
					d, err := r.Take(context.Background(), key, rate, q)
					switch {
					case policy == Deny && key != "over":
						if !errors.Is(err, ErrUnavailable) {
							t.Fatalf("%s: Take = %+v, %v; want ErrUnavailable", key, d, err)
						}
					case err != nil:
						t.Fatalf("%s: %v", key, err)
					case d.Allowed:
						admitted[key]++
					}
				}
			}
			if got := store.calls.Load() - before; got != 3 {
				t.Errorf("store calls during the outage = %d, want 3 (Trip): the breaker stops them", got)
			}
			s := r.Stats()
			if s.State != Open || s.Errors != 3 || s.Fallbacks != 200 {
				t.Errorf("Stats = %+v, want open, 3 errors, 200 fallbacks", s)
			}
			want := map[string]int{}
			if policy == Allow {
				// Half of the burst; half of the quota's remaining 7 for
				// "seen", half of the plan's 10 for "new".
				want = map[string]int{"new": 5, "seen": 3}
			}
			if diff := cmp.Diff(want, admitted); diff != "" {
				t.Errorf("admitted during the outage (-want +got):\n%s", diff)
			}
			if n := logs.count(t, msgDown); n != 1 {
				t.Errorf("%q logged %d times, want once", msgDown, n)
			}
		})
	}
}

// TestResilientFallbackHeaders checks the Decisions of the Allow policy:
// the plan's limits, this replica's remaining share.
func TestResilientFallbackHeaders(t *testing.T) {
	const left = 12 * time.Hour // from t0 to the end of the day
	rate := &Rate{10, time.Minute, 0}
	c := newClock(t0)
	store := newFlaky(c.Now)
	r := NewResilient(store, ResilientOptions{Now: c.Now, Trip: 1, OpenFor: time.Hour, Replicas: 2})
	quota := &Quota{10, Day}
	for range 9 {
		take(t, r, "k", nil, quota) // 1 left
	}
	store.down.Store(true)
	// The share of the one remaining request is zero: refused, and the
	// rate's state is shown without taking a token (a full share: burst 5).
	runSteps(t, c, r, "k", rate, quota, []step{
		{0, refused(left, rs(10, 5, 0, 0), qs(10, 0, left, left))},
		{0, refused(left, rs(10, 5, 0, 0), qs(10, 0, left, left))},
	})
	// A key this replica has not seen: half of the rate (one request every
	// 12s, burst 5) and half of the quota, with the plan's limits.
	runSteps(t, c, r, "other", rate, quota, []step{
		{0, allowed(rs(10, 4, 12*time.Second, 0), qs(10, 4, left, 0))},
		{0, allowed(rs(10, 3, 24*time.Second, 0), qs(10, 3, left, 0))},
		{0, allowed(rs(10, 2, 36*time.Second, 0), qs(10, 2, left, 0))},
		{0, allowed(rs(10, 1, 48*time.Second, 0), qs(10, 1, left, 0))},
		{0, allowed(rs(10, 0, 60*time.Second, 0), qs(10, 0, left, 0))},
		{0, refused(left, rs(10, 0, 60*time.Second, 12*time.Second), qs(10, 0, left, left))},
		{12 * time.Second, refused(left-12*time.Second, rs(10, 1, 48*time.Second, 0), qs(10, 0, left-12*time.Second, left-12*time.Second))},
	})
}

// TestResilientRecovers checks that the breaker closes by itself once the
// store answers again, that each outage is logged once when it starts and
// once when it ends, and that the store decides again afterwards.
func TestResilientRecovers(t *testing.T) {
	rate := &Rate{3, time.Hour, 0}
	c := newClock(t0)
	store := newFlaky(c.Now)
	var logs logBuffer
	// OpenFor is short: the breaker's timer runs on the real clock, and the
	// test polls until it has run out.
	r := NewResilient(store, ResilientOptions{Now: c.Now, Trip: 2, OpenFor: time.Millisecond, Log: logs.logger()})
	for outage := 1; outage <= 2; outage++ {
		store.down.Store(true)
		for range 50 {
			take(t, r, fmt.Sprint("down", outage), rate, nil)
		}
		store.down.Store(false)
		key := fmt.Sprint("up", outage)
		testnet.Eventually(t, fmt.Sprintf("outage %d: the breaker closed after the store came back", outage), func() error {
			take(t, r, "probe", rate, nil)
			state := r.Stats().State
			return testnet.Unless(state == Closed, fmt.Sprint("breaker ", state))
		})
		// The store decides again: exactly its burst for a new key.
		n := 0
		for range 10 {
			if take(t, r, key, rate, nil).Allowed {
				n++
			}
		}
		if n != 3 {
			t.Errorf("outage %d: %d admitted after recovery, want the burst 3", outage, n)
		}
		if got := [2]int{logs.count(t, msgDown), logs.count(t, msgUp)}; got != [2]int{outage, outage} {
			t.Errorf("after outage %d: logged %q and %q %v times, want %d each", outage, msgDown, msgUp, got, outage)
		}
	}
}

// TestResilientCallerGone checks that failures caused by the caller's own
// cancelled context do not open the breaker.
func TestResilientCallerGone(t *testing.T) {
	c := newClock(t0)
	store := newFlaky(c.Now)
	r := NewResilient(store, ResilientOptions{Now: c.Now, Trip: 1, OpenFor: time.Hour})
	store.down.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 10 {
		if _, err := r.Take(ctx, "k", &Rate{1, time.Second, 0}, nil); err == nil {
			t.Fatal("Take with a cancelled context and a failing store: no error")
		}
	}
	if s := r.Stats(); s.State != Closed || s.Errors != 0 || s.Calls != 10 {
		t.Errorf("Stats = %+v, want closed, no errors, 10 calls", s)
	}
}

// TestResilientInvalid checks that an invalid plan is an error that
// neither reaches the store nor counts as its failure.
func TestResilientInvalid(t *testing.T) {
	c := newClock(t0)
	store := newFlaky(c.Now)
	r := NewResilient(store, ResilientOptions{Now: c.Now, Trip: 1})
	if _, err := r.Take(context.Background(), "k", &Rate{0, time.Second, 0}, nil); err == nil {
		t.Error("invalid rate: no error")
	}
	if _, err := r.Take(context.Background(), "k", nil, &Quota{1, 0}); err == nil {
		t.Error("invalid quota: no error")
	}
	if d := take(t, r, "k", nil, nil); !d.Allowed || store.calls.Load() != 0 {
		t.Errorf("no limits: %+v, %d store calls; want allowed without the store", d, store.calls.Load())
	}
	if s := r.Stats(); s != (Stats{}) {
		t.Errorf("Stats = %+v, want zero", s)
	}
}

// TestResilientConcurrent takes from many goroutines at one frozen instant
// while the store goes down: with the store up, exactly the burst is
// admitted; with it down, refusals still come from the cache, and a new key
// gets exactly this replica's share. Run it with -race.
func TestResilientConcurrent(t *testing.T) {
	rate := &Rate{10, time.Hour, 40}
	c := newClock(t0)
	store := newFlaky(c.Now)
	r := NewResilient(store, ResilientOptions{Now: c.Now, Trip: 3, OpenFor: time.Hour})
	var admitted atomic.Int64
	hammer := func(key string) {
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for range 20 {
					d, err := r.Take(context.Background(), key, rate, nil)
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						admitted.Add(1)
					}
				}
			})
		}
		wg.Wait()
	}
	hammer("k")
	if got := admitted.Load(); got != 40 {
		t.Fatalf("admitted %d with the store up, want the burst 40", got)
	}
	callsUp := r.Stats().Calls
	store.down.Store(true)
	hammer("k") // refused from the cache
	hammer("k2")
	if got := admitted.Load(); got != 40+20 {
		t.Fatalf("admitted %d in all, want 40 + this replica's share of a new key's burst, 20", got)
	}
	// The breaker opens after Trip failures in a row; calls that were
	// already on their way to the store when it opened reach it too, so
	// up to one per other goroutine (31) may follow the third.
	if s, down := r.Stats(), r.Stats().Calls-callsUp; down < 3 || down > 3+31 || s.State != Open {
		t.Errorf("Stats = %+v (%d calls while up): %d calls while down, want 3 (Trip) to 34, and open", s, callsUp, down)
	}
}

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"allow", "deny"} {
		p, err := ParsePolicy(s)
		if err != nil || p.String() != s {
			t.Errorf("ParsePolicy(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := ParsePolicy("open"); err == nil {
		t.Error("ParsePolicy(open): no error")
	}
	if Policy(0) != Allow {
		t.Error("the zero Policy is not Allow")
	}
}

func TestShareRate(t *testing.T) {
	for _, tc := range []struct {
		in   Rate
		n    int
		want Rate
	}{
		{Rate{10, time.Minute, 0}, 2, Rate{10, 2 * time.Minute, 5}},
		{Rate{5, time.Second, 5}, 2, Rate{5, 2 * time.Second, 2}},
		{Rate{1, time.Hour, 1}, 4, Rate{1, 4 * time.Hour, 1}},
		{Rate{50, time.Second, 100}, 1, Rate{50, time.Second, 100}},
	} {
		got := shareRate(tc.in, tc.n)
		if got != tc.want || got.Validate() != nil {
			t.Errorf("shareRate(%+v, %d) = %+v, want %+v", tc.in, tc.n, got, tc.want)
		}
		if tc.n > 1 && newGCRA(got).t != time.Duration(tc.n)*newGCRA(tc.in).t {
			t.Errorf("shareRate(%+v, %d): interval %v, want %d times %v", tc.in, tc.n, newGCRA(got).t, tc.n, newGCRA(tc.in).t)
		}
	}
}
