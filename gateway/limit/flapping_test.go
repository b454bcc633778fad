package limit

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
)

// admission is one Take of a flapping test: when it was asked (before) and
// answered (after), and whether it was admitted.
type admission struct {
	before, after time.Time
	allowed       bool
}

// checkWindows checks every window between two admitted Takes against
// bound(w), the most the documented tolerance lets through in a window of
// length w (the window from the first one's before to the latest after, so
// as long as the decisions can have been), and returns the total admitted
// and the largest ratio of admitted to bound.
func checkWindows(t *testing.T, takes []admission, bound func(w time.Duration) float64) (admitted int, worst float64) {
	t.Helper()
	var ok []admission
	for _, a := range takes {
		if a.allowed {
			ok = append(ok, a)
		}
	}
	slices.SortFunc(ok, func(a, b admission) int { return a.before.Compare(b.before) })
	reported := false
	for i := range ok {
		end := ok[i].after
		for j := i; j < len(ok); j++ {
			if ok[j].after.After(end) {
				end = ok[j].after
			}
			w := end.Sub(ok[i].before)
			n, b := float64(j-i+1), bound(w)
			worst = max(worst, n/b)
			if n > b+1e-9 && !reported {
				t.Errorf("%v admitted in a window of %v, want at most %.1f (and maybe more windows over)", n, w, b)
				reported = true
			}
		}
	}
	return len(ok), worst
}

// flapRate is the plan of the flapping tests: 20 per 10s, burst 20
// (T = 500ms).
var flapRate = Rate{20, 10 * time.Second, 20}

// tolerance is the documented bound of n replicas (each configured with
// Replicas n) over a window of length w: the plan through the store, and
// each replica's share of it locally: 2*(burst + w/T) for n dividing the
// burst.
func tolerance(rate Rate, n int) func(time.Duration) float64 {
	plan := func(r Rate, w time.Duration) float64 {
		return float64(r.burst()) + float64(w)/float64(r.interval())
	}
	share := shareRate(rate, n)
	return func(w time.Duration) float64 { return plan(rate, w) + float64(n)*plan(share, w) }
}

// TestResilientFlapping steps an injected clock through 20s with four 2s
// outages of the store, two replicas taking one key every 100ms: the local share carries its
// state from one outage to the next, so every window stays within the
// documented tolerance. No real time is involved: the breaker probes the
// store at every Take (OpenFor 1ns).
func TestResilientFlapping(t *testing.T) {
	c := newClock(t0)
	store := newFlaky(c.Now)
	const replicas = 2
	var rs []*Resilient
	for range replicas {
		rs = append(rs, NewResilient(store, ResilientOptions{Replicas: replicas, Now: c.Now, OpenFor: time.Nanosecond}))
	}
	var takes []admission
	for i := range 200 {
		at := time.Duration(i) * 100 * time.Millisecond
		s := at % (4 * time.Second)
		store.down.Store(at < 16*time.Second && s >= 2*time.Second)
		c.Set(t0.Add(at))
		for _, r := range rs {
			d := take(t, r, "k", &flapRate, nil)
			takes = append(takes, admission{c.Now(), c.Now(), d.Allowed})
		}
	}
	n, worst := checkWindows(t, takes, tolerance(flapRate, replicas))
	t.Logf("%d replicas admitted %d of %d in 20s (the plan alone: %d); worst window at %.2f of the tolerance", replicas, n, len(takes), flapRate.burst()+40, worst)
}

// TestResilientRedisFlapping is TestResilientFlapping against a Redis of
// the test's own, stopped (SIGSTOP) for 2s four times in 16s, with two
// replicas taking one key every 10ms for 20s.
func TestResilientRedisFlapping(t *testing.T) {
	srv := redistest.Start(t)
	const replicas = 2
	var (
		mu    sync.Mutex
		takes []admission
		wg    sync.WaitGroup
	)
	start := time.Now()
	end := start.Add(20 * time.Second)
	for range replicas {
		r := NewResilient(NewRedis(redisClient(t, srv.URL()), "gw:", nil), ResilientOptions{Replicas: replicas})
		wg.Go(func() {
			for time.Now().Before(end) {
				before := time.Now()
				d, err := r.Take(context.Background(), "k", &flapRate, nil)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				takes = append(takes, admission{before, time.Now(), d.Allowed})
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	for k := range 4 {
		time.Sleep(time.Until(start.Add(time.Duration(4*k+2) * time.Second)))
		srv.Pause()
		time.Sleep(2 * time.Second)
		srv.Resume()
	}
	wg.Wait()
	n, worst := checkWindows(t, takes, tolerance(flapRate, replicas))
	t.Logf("%d replicas admitted %d of %d in 20s (the plan alone: %d); worst window at %.2f of the tolerance", replicas, n, len(takes), flapRate.burst()+40, worst)
}
