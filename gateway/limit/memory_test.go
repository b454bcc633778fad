package limit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clock is a settable time source; tests step it, nothing sleeps.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *clock { return &clock{t: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var t0 = date(2025, 6, 15, 12, 0, 0, 0)

func take(t *testing.T, s Store, key string, rate *Rate, quota *Quota) Decision {
	t.Helper()
	d, err := s.Take(context.Background(), key, rate, quota)
	if err != nil {
		t.Fatalf("Take(%q, %+v, %+v): %v", key, rate, quota, err)
	}
	return d
}

// allowed is a Decision that admitted the request; refused one that did not.
func allowed(r *RateState, q *QuotaState) Decision {
	return Decision{Allowed: true, Rate: r, Quota: q}
}

func refused(retryAfter time.Duration, r *RateState, q *QuotaState) Decision {
	return Decision{Rate: r, Quota: q, RetryAfter: retryAfter}
}

func rs(limit, remaining int, reset, retryAfter time.Duration) *RateState {
	return &RateState{Limit: limit, Remaining: remaining, Reset: reset, RetryAfter: retryAfter}
}

func qs(limit, remaining int, reset, retryAfter time.Duration) *QuotaState {
	return &QuotaState{Limit: limit, Remaining: remaining, Reset: reset, RetryAfter: retryAfter}
}

// step is one Take after moving the clock by advance.
type step struct {
	advance time.Duration
	want    Decision
}

func runSteps(t *testing.T, c *clock, s Store, key string, rate *Rate, quota *Quota, steps []step) {
	t.Helper()
	for i, st := range steps {
		c.Advance(st.advance)
		got := take(t, s, key, rate, quota)
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Fatalf("step %d (+%v): Take mismatch (-want +got):\n%s", i, st.advance, diff)
		}
	}
}

func TestTakeBurst(t *testing.T) {
	for _, tc := range []struct {
		rate  Rate
		burst int
		t     time.Duration
	}{
		{Rate{5, time.Second, 5}, 5, 200 * time.Millisecond},
		{Rate{5, time.Second, 0}, 5, 200 * time.Millisecond},
		{Rate{10, time.Minute, 3}, 3, 6 * time.Second},
		{Rate{1, time.Hour, 0}, 1, time.Hour},
		{Rate{2, time.Second, 8}, 8, 500 * time.Millisecond},
		{Rate{3, time.Second, 0}, 3, 333333333},
	} {
		t.Run(fmt.Sprintf("%d per %v burst %d", tc.rate.Requests, tc.rate.Per, tc.rate.Burst), func(t *testing.T) {
			c := newClock(t0)
			m := NewMemory(c.Now)
			for i := range tc.burst {
				got := take(t, m, "k", &tc.rate, nil)
				want := allowed(rs(tc.rate.Requests, tc.burst-1-i, time.Duration(i+1)*tc.t, 0), nil)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("take %d mismatch (-want +got):\n%s", i+1, diff)
				}
			}
			got := take(t, m, "k", &tc.rate, nil)
			want := refused(tc.t, rs(tc.rate.Requests, 0, time.Duration(tc.burst)*tc.t, tc.t), nil)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("take %d mismatch (-want +got):\n%s", tc.burst+1, diff)
			}
			if Seconds(got.RetryAfter) < 1 {
				t.Errorf("Seconds(RetryAfter %v) = %d, want >= 1", got.RetryAfter, Seconds(got.RetryAfter))
			}
		})
	}
}

func TestTakeRefill(t *testing.T) {
	for _, rate := range []Rate{
		{5, time.Second, 5},
		{10, time.Minute, 3},
		{1, 24 * time.Hour, 4},
	} {
		t.Run(fmt.Sprintf("%d per %v burst %d", rate.Requests, rate.Per, rate.Burst), func(t *testing.T) {
			c := newClock(t0)
			m := NewMemory(c.Now)
			g := newGCRA(rate)
			b := rate.burst()
			for range b {
				take(t, m, "k", &rate, nil)
			}
			if d := take(t, m, "k", &rate, nil); d.Allowed {
				t.Fatal("take after the burst allowed")
			}

			// After T, exactly one more.
			c.Advance(g.t - 1)
			if d := take(t, m, "k", &rate, nil); d.Allowed {
				t.Fatal("take 1ns before T allowed")
			}
			c.Advance(1)
			if d := take(t, m, "k", &rate, nil); !d.Allowed {
				t.Fatalf("take after T refused: %+v", d)
			}
			if d := take(t, m, "k", &rate, nil); d.Allowed {
				t.Fatal("second take after T allowed")
			}

			// After Burst*T, a full bucket.
			c.Advance(g.tau)
			got := take(t, m, "k", &rate, nil)
			want := allowed(rs(rate.Requests, b-1, g.t, 0), nil)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("take after Burst*T mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTakeSteps(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name  string
		rate  Rate
		steps []step
	}{
		{"5 per second", Rate{5, time.Second, 5}, []step{
			{0, allowed(rs(5, 4, 200*ms, 0), nil)},
			{0, allowed(rs(5, 3, 400*ms, 0), nil)},
			{0, allowed(rs(5, 2, 600*ms, 0), nil)},
			{0, allowed(rs(5, 1, 800*ms, 0), nil)},
			{0, allowed(rs(5, 0, 1000*ms, 0), nil)},
			{0, refused(200*ms, rs(5, 0, 1000*ms, 200*ms), nil)},
			{100 * ms, refused(100*ms, rs(5, 0, 900*ms, 100*ms), nil)},
			{100 * ms, allowed(rs(5, 0, 1000*ms, 0), nil)},
			{500 * ms, allowed(rs(5, 1, 700*ms, 0), nil)},
			{100 * ms, allowed(rs(5, 1, 800*ms, 0), nil)},
			{2 * time.Second, allowed(rs(5, 4, 200*ms, 0), nil)},
		}},
		{"10 per minute burst 3", Rate{10, time.Minute, 3}, []step{
			{0, allowed(rs(10, 2, 6*time.Second, 0), nil)},
			{0, allowed(rs(10, 1, 12*time.Second, 0), nil)},
			{0, allowed(rs(10, 0, 18*time.Second, 0), nil)},
			{0, refused(6*time.Second, rs(10, 0, 18*time.Second, 6*time.Second), nil)},
			{6 * time.Second, allowed(rs(10, 0, 18*time.Second, 0), nil)},
			{3 * time.Second, refused(3*time.Second, rs(10, 0, 15*time.Second, 3*time.Second), nil)},
			{3 * time.Second, allowed(rs(10, 0, 18*time.Second, 0), nil)},
			{18 * time.Second, allowed(rs(10, 2, 6*time.Second, 0), nil)},
			{3 * time.Second, allowed(rs(10, 1, 9*time.Second, 0), nil)},
			{time.Minute, allowed(rs(10, 2, 6*time.Second, 0), nil)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock(t0)
			runSteps(t, c, NewMemory(c.Now), "k", &tc.rate, nil, tc.steps)
		})
	}
}

func TestTakeQuota(t *testing.T) {
	const ms = time.Millisecond
	day := Quota{3, Day}

	t.Run("counts and refuses", func(t *testing.T) {
		c := newClock(date(2025, 6, 15, 23, 0, 0, 0))
		runSteps(t, c, NewMemory(c.Now), "k", nil, &day, []step{
			{0, allowed(nil, qs(3, 2, time.Hour, 0))},
			{30 * time.Minute, allowed(nil, qs(3, 1, 30*time.Minute, 0))},
			{0, allowed(nil, qs(3, 0, 30*time.Minute, 0))},
			{0, refused(30*time.Minute, nil, qs(3, 0, 30*time.Minute, 30*time.Minute))},
			{30*time.Minute - ms, refused(ms, nil, qs(3, 0, ms, ms))},
			{ms, allowed(nil, qs(3, 2, 24*time.Hour, 0))},
		})
	})

	// Each case exhausts a quota of 2 one millisecond before from, then takes
	// at from: rolled reports whether the window rolled over there, and reset
	// is then the time until the next boundary.
	for _, tc := range []struct {
		name   string
		period Period
		from   time.Time
		rolled bool
		reset  time.Duration
	}{
		{"day", Day, date(2025, 6, 16, 0, 0, 0, 0), true, 24 * time.Hour},
		{"day into Feb 29", Day, date(2024, 2, 29, 0, 0, 0, 0), true, 24 * time.Hour},
		{"day into Jan 1", Day, date(2026, 1, 1, 0, 0, 0, 0), true, 24 * time.Hour},
		{"month Jan 31 to Feb 1", Month, date(2025, 2, 1, 0, 0, 0, 0), true, 28 * 24 * time.Hour},
		{"month Jan 31 to Feb 1, leap year", Month, date(2024, 2, 1, 0, 0, 0, 0), true, 29 * 24 * time.Hour},
		{"month Feb 28 to 29, leap year", Month, date(2024, 2, 29, 0, 0, 0, 0), false, 24 * time.Hour},
		{"month Feb 29 to Mar 1, leap year", Month, date(2024, 3, 1, 0, 0, 0, 0), true, 31 * 24 * time.Hour},
		{"month Feb 28 to Mar 1", Month, date(2025, 3, 1, 0, 0, 0, 0), true, 31 * 24 * time.Hour},
		{"month Apr 30 to May 1", Month, date(2025, 5, 1, 0, 0, 0, 0), true, 31 * 24 * time.Hour},
		{"month Dec 31 to Jan 1", Month, date(2026, 1, 1, 0, 0, 0, 0), true, 31 * 24 * time.Hour},
		{"month mid-month", Month, date(2025, 6, 16, 0, 0, 0, 0), false, 15 * 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := Quota{2, tc.period}
			c := newClock(tc.from.Add(-ms))
			m := NewMemory(c.Now)
			var before time.Duration // the reset just before from
			if tc.rolled {
				before = ms
			} else {
				before = tc.reset + ms
			}
			runSteps(t, c, m, "k", nil, &q, []step{
				{0, allowed(nil, qs(2, 1, before, 0))},
				{0, allowed(nil, qs(2, 0, before, 0))},
				{0, refused(before, nil, qs(2, 0, before, before))},
			})
			c.Set(tc.from)
			want := refused(tc.reset, nil, qs(2, 0, tc.reset, tc.reset))
			if tc.rolled {
				want = allowed(nil, qs(2, 1, tc.reset, 0))
			}
			if diff := cmp.Diff(want, take(t, m, "k", nil, &q)); diff != "" {
				t.Errorf("Take at %v mismatch (-want +got):\n%s", tc.from, diff)
			}
		})
	}

	t.Run("clock in another zone", func(t *testing.T) {
		// 03:00 at +05:00 is 22:00 UTC the day before: two hours to go.
		c := newClock(time.Date(2026, 1, 1, 3, 0, 0, 0, time.FixedZone("+05", 5*3600)))
		runSteps(t, c, NewMemory(c.Now), "k", nil, &Quota{5, Day}, []step{
			{0, allowed(nil, qs(5, 4, 2*time.Hour, 0))},
		})
	})

	t.Run("period changes", func(t *testing.T) {
		c := newClock(date(2025, 6, 15, 12, 0, 0, 0))
		m := NewMemory(c.Now)
		runSteps(t, c, m, "k", nil, &Quota{2, Month}, []step{
			{0, allowed(nil, qs(2, 1, 15*24*time.Hour+12*time.Hour, 0))},
		})
		runSteps(t, c, m, "k", nil, &Quota{2, Day}, []step{
			{0, allowed(nil, qs(2, 1, 12*time.Hour, 0))},
			{0, allowed(nil, qs(2, 0, 12*time.Hour, 0))},
		})
	})

	t.Run("limit lowered below the count", func(t *testing.T) {
		c := newClock(date(2025, 6, 15, 12, 0, 0, 0))
		m := NewMemory(c.Now)
		for range 3 {
			take(t, m, "k", nil, &Quota{5, Day})
		}
		runSteps(t, c, m, "k", nil, &Quota{2, Day}, []step{
			{0, refused(12*time.Hour, nil, qs(2, 0, 12*time.Hour, 12*time.Hour))},
		})
	})
}

func TestTakeRefusedNotCounted(t *testing.T) {
	const ms = time.Millisecond
	rate := Rate{5, time.Second, 5} // T = 200ms
	slow := Rate{1, time.Hour, 1}   // T = 1h
	day := Quota{2, Day}
	five := Quota{5, Day}
	const left = 12 * time.Hour // from t0 to the day boundary
	t.Run("quota refusals take no rate tokens", func(t *testing.T) {
		c := newClock(t0)
		m := NewMemory(c.Now)
		runSteps(t, c, m, "k", &rate, &day, []step{
			{0, allowed(rs(5, 4, 200*ms, 0), qs(2, 1, left, 0))},
			{0, allowed(rs(5, 3, 400*ms, 0), qs(2, 0, left, 0))},
			{0, refused(left, rs(5, 3, 400*ms, 0), qs(2, 0, left, left))},
			{0, refused(left, rs(5, 3, 400*ms, 0), qs(2, 0, left, left))},
			{0, refused(left, rs(5, 3, 400*ms, 0), qs(2, 0, left, left))},
			{0, refused(left, rs(5, 3, 400*ms, 0), qs(2, 0, left, left))},
		})
		// Three tokens are still there.
		runSteps(t, c, m, "k", &rate, nil, []step{
			{0, allowed(rs(5, 2, 600*ms, 0), nil)},
			{0, allowed(rs(5, 1, 800*ms, 0), nil)},
			{0, allowed(rs(5, 0, time.Second, 0), nil)},
			{0, refused(200*ms, rs(5, 0, time.Second, 200*ms), nil)},
		})
	})
	t.Run("rate refusals take no quota", func(t *testing.T) {
		c := newClock(t0)
		m := NewMemory(c.Now)
		runSteps(t, c, m, "k", &slow, &five, []step{
			{0, allowed(rs(1, 0, time.Hour, 0), qs(5, 4, left, 0))},
			{0, refused(time.Hour, rs(1, 0, time.Hour, time.Hour), qs(5, 4, left, 0))},
			{30 * time.Minute, refused(30*time.Minute, rs(1, 0, 30*time.Minute, 30*time.Minute), qs(5, 4, left-30*time.Minute, 0))},
			{30 * time.Minute, allowed(rs(1, 0, time.Hour, 0), qs(5, 3, left-time.Hour, 0))},
		})
	})
	t.Run("refused by both", func(t *testing.T) {
		c := newClock(t0)
		m := NewMemory(c.Now)
		once := Quota{1, Day}
		runSteps(t, c, m, "k", &slow, &once, []step{
			{0, allowed(rs(1, 0, time.Hour, 0), qs(1, 0, left, 0))},
			{0, refused(left, rs(1, 0, time.Hour, time.Hour), qs(1, 0, left, left))},
		})
		// When the rate's wait is the longer one, it is the RetryAfter.
		c2 := newClock(date(2025, 6, 15, 23, 30, 0, 0))
		m2 := NewMemory(c2.Now)
		runSteps(t, c2, m2, "k", &slow, &once, []step{
			{0, allowed(rs(1, 0, time.Hour, 0), qs(1, 0, 30*time.Minute, 0))},
			{0, refused(time.Hour, rs(1, 0, time.Hour, time.Hour), qs(1, 0, 30*time.Minute, 30*time.Minute))},
		})
	})
}

func TestTakeKeysIndependent(t *testing.T) {
	c := newClock(t0)
	m := NewMemory(c.Now)
	rate := Rate{2, time.Minute, 0}
	quota := Quota{3, Day}
	for range 2 {
		take(t, m, "exercisedb/key_a", &rate, &quota)
	}
	if d := take(t, m, "exercisedb/key_a", &rate, &quota); d.Allowed {
		t.Fatal("key_a: third take allowed")
	}
	for _, key := range []string{"exercisedb/key_b", "other/key_a", "key_a"} {
		got := take(t, m, key, &rate, &quota)
		want := allowed(rs(2, 1, 30*time.Second, 0), qs(3, 2, 12*time.Hour, 0))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Take mismatch (-want +got):\n%s", key, diff)
		}
	}
}

func TestTakeNil(t *testing.T) {
	c := newClock(t0)
	m := NewMemory(c.Now)
	for i := range 100 {
		got := take(t, m, "unlimited", nil, nil)
		if diff := cmp.Diff(Decision{Allowed: true}, got); diff != "" {
			t.Fatalf("take %d with no limits mismatch (-want +got):\n%s", i, diff)
		}
	}
	if n := m.Len(); n != 0 {
		t.Errorf("Len() = %d after unlimited takes, want 0", n)
	}
	if d := take(t, m, "rate only", &Rate{1, time.Hour, 0}, nil); d.Quota != nil || d.Rate == nil {
		t.Errorf("rate only: %+v", d)
	}
	if d := take(t, m, "quota only", nil, &Quota{1, Month}); d.Rate != nil || d.Quota == nil {
		t.Errorf("quota only: %+v", d)
	}
}

func TestTakeInvalid(t *testing.T) {
	m := NewMemory(nil)
	for _, tc := range []struct {
		name  string
		rate  *Rate
		quota *Quota
	}{
		{"rate", &Rate{0, time.Second, 0}, nil},
		{"quota", nil, &Quota{0, Day}},
		{"period", &Rate{1, time.Second, 0}, &Quota{1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := m.Take(context.Background(), "k", tc.rate, tc.quota); err == nil {
				t.Error("Take: no error")
			}
		})
	}
}

// TestTakeConcurrent runs many Takes on one key at one frozen instant: exactly
// the burst (or the quota, if smaller) is admitted. Run it with -race.
func TestTakeConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rate  *Rate
		quota *Quota
		want  int
	}{
		{"rate", &Rate{20, time.Second, 0}, nil, 20},
		{"rate with burst", &Rate{10, time.Minute, 37}, nil, 37},
		{"quota", nil, &Quota{13, Day}, 13},
		{"rate and larger quota", &Rate{20, time.Second, 0}, &Quota{100, Month}, 20},
		{"quota below the burst", &Rate{20, time.Second, 0}, &Quota{7, Month}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock(t0)
			m := NewMemory(c.Now)
			var admitted atomic.Int64
			var wg sync.WaitGroup
			for range 64 {
				wg.Go(func() {
					for range 8 {
						d, err := m.Take(context.Background(), "k", tc.rate, tc.quota)
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
			if got := admitted.Load(); got != int64(tc.want) {
				t.Errorf("admitted %d, want %d", got, tc.want)
			}
		})
	}
}

// TestMemoryEvictsIdleKeys checks that keys whose bucket is full again and
// whose quota window has ended are dropped as new keys arrive, and that the
// others are kept.
func TestMemoryEvictsIdleKeys(t *testing.T) {
	const n = 20000 // about 625 a shard: several sweeps each
	rate := Rate{1, time.Second, 0}
	day := Quota{10, Day}
	takeAll := func(t *testing.T, m *Memory, prefix string, rate *Rate, quota *Quota) {
		t.Helper()
		for i := range n {
			if d := take(t, m, fmt.Sprintf("%s%d", prefix, i), rate, quota); !d.Allowed {
				t.Fatalf("%s%d refused", prefix, i)
			}
		}
	}
	wantLen := func(t *testing.T, m *Memory, want int) {
		t.Helper()
		if got := m.Len(); got != want {
			t.Fatalf("Len() = %d, want %d", got, want)
		}
	}

	t.Run("rate", func(t *testing.T) {
		c := newClock(t0)
		m := NewMemory(c.Now)
		takeAll(t, m, "a", &rate, nil)
		wantLen(t, m, n) // none idle yet: none dropped
		c.Advance(time.Second)
		takeAll(t, m, "b", &rate, nil) // every "a" is idle: each shard's sweep drops them
		wantLen(t, m, n)
		for i := range n {
			if e := m.t.shard(fmt.Sprint("a", i)).m[fmt.Sprint("a", i)]; e != nil {
				t.Fatalf("a%d still held", i)
			}
		}
		for i := range m.t.shards {
			if s := &m.t.shards[i]; len(s.m) > s.sweepAt {
				t.Errorf("shard %d: %d keys, over its sweep threshold %d", i, len(s.m), s.sweepAt)
			}
		}
		// A dropped key starts with a full bucket, as it would have anyway.
		if d := take(t, m, "a1", &rate, nil); !d.Allowed || d.Rate.Remaining != 0 {
			t.Fatalf("a1 after eviction: %+v", d)
		}
	})

	t.Run("quota keeps keys until the window ends", func(t *testing.T) {
		c := newClock(t0)
		m := NewMemory(c.Now)
		takeAll(t, m, "a", &rate, &day)
		c.Advance(time.Hour) // buckets full, window open
		takeAll(t, m, "b", &rate, &day)
		wantLen(t, m, 2*n)
		c.Set(date(2025, 6, 16, 0, 0, 0, 0))
		takeAll(t, m, "c", &rate, &day)
		takeAll(t, m, "d", &rate, &day)
		// Each shard swept during "d", dropping every "a" and "b" (their
		// window has ended) but no "c" (their buckets are not full yet).
		wantLen(t, m, 2*n)
		for _, p := range []string{"a", "b"} {
			for i := range n {
				key := fmt.Sprint(p, i)
				if e := m.t.shard(key).m[key]; e != nil {
					t.Fatalf("%s still held", key)
				}
			}
		}
		// The quota count of a kept key survives the sweeps.
		c.Advance(time.Second)
		if d := take(t, m, "d7", &rate, &day); !d.Allowed || d.Quota.Remaining != 8 {
			t.Fatalf("d7: %+v, want 8 remaining", d.Quota)
		}
	})
}
