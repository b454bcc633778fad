package limit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
	"github.com/exercisedb/exercisedb/gateway/redisconn"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// Tests of the Redis store. They need Redis: redistest.URL skips them
// without REDIS_URL and fails them if it is set but Redis does not answer.

// pollTimeout bounds the polls of these tests; it is never a threshold
// that an assertion measures.
const pollTimeout = 30 * time.Second

// newRedis returns a Redis store on REDIS_URL under a prefix of the test's
// own, the client it uses, and the prefix.
func newRedis(t *testing.T, now func() time.Time) (*Redis, redis.UniversalClient, string) {
	t.Helper()
	client := redisClient(t, redistest.Patient(redistest.URL(t)))
	prefix := redistest.Prefix(t, client)
	return NewRedis(client, prefix, now), client, prefix
}

// redisClient is redisconn.Open(url), closed when the test ends.
func redisClient(t testing.TB, url string) redis.UniversalClient {
	t.Helper()
	c, err := redisconn.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// approx compares durations to within tol: the rate in Redis runs on
// Redis's clock, which moves on while a test's injected clock stands still.
func approx(tol time.Duration) cmp.Option {
	return cmp.Comparer(func(a, b time.Duration) bool { return (a - b).Abs() <= tol })
}

// TestRedisSameAsMemory runs sequences of Takes at one instant on Redis and
// on Memory: the same decisions and remaining counts, and durations that
// differ only by the real time that passed (rates are slow: T is at least
// 20 minutes, so that time never changes a count).
func TestRedisSameAsMemory(t *testing.T) {
	type call struct {
		rate  *Rate
		quota *Quota
		n     int
	}
	slow := &Rate{5, time.Hour, 5} // T = 12m
	for _, tc := range []struct {
		name  string
		calls []call
	}{
		{"rate", []call{{slow, nil, 7}}},
		{"rate with a burst above the limit", []call{{&Rate{2, time.Hour, 8}, nil, 10}}},
		{"quota", []call{{nil, &Quota{3, Day}, 5}}},
		{"quota refusals take no rate tokens", []call{{slow, &Quota{2, Day}, 6}, {slow, nil, 4}}},
		{"rate refusals take no quota", []call{{&Rate{1, time.Hour, 1}, &Quota{5, Day}, 3}, {nil, &Quota{5, Day}, 5}}},
		{"refused by both", []call{{&Rate{1, time.Hour, 1}, &Quota{1, Day}, 3}}},
		{"rate's wait longer than the quota's", []call{{&Rate{1, 24 * time.Hour, 1}, &Quota{1, Day}, 3}}},
		{"month", []call{{&Rate{3, time.Hour, 0}, &Quota{4, Month}, 6}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock(date(2026, 11, 30, 12, 0, 0, 0))
			r, _, _ := newRedis(t, c.Now)
			m := NewMemory(c.Now)
			start := time.Now()
			i := 0
			for _, cl := range tc.calls {
				for range cl.n {
					want := take(t, m, "exercisedb/key_a", cl.rate, cl.quota)
					got := take(t, r, "exercisedb/key_a", cl.rate, cl.quota)
					tol := time.Since(start) + time.Millisecond
					if diff := cmp.Diff(want, got, approx(tol)); diff != "" {
						t.Fatalf("take %d: Redis differs from Memory by more than %v (-Memory +Redis):\n%s", i, tol, diff)
					}
					i++
				}
			}
		})
	}
}

// TestRedisRateRefills checks the rate on Redis's own clock: after the
// burst, one more request once RetryAfter has passed (a bounded poll).
func TestRedisRateRefills(t *testing.T) {
	r, _, _ := newRedis(t, nil)
	rate := &Rate{20, time.Second, 2} // T = 50ms
	for range 2 {
		if d := take(t, r, "k", rate, nil); !d.Allowed {
			t.Fatalf("burst refused: %+v", d.Rate)
		}
	}
	d := take(t, r, "k", rate, nil)
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 50*time.Millisecond || d.Rate.Remaining != 0 {
		t.Fatalf("after the burst: %+v %+v, want refused, 0 < RetryAfter <= 50ms", d, d.Rate)
	}
	testnet.Eventually(t, "a refill", func() error {
		return testnet.Unless(take(t, r, "k", rate, nil).Allowed, "refused")
	})
}

// TestRedisQuotaRollover checks the quota windows with an injected clock:
// each case uses up a quota of 2 one millisecond before from, then takes at
// from. The counters are the windows' keys, named from the injected clock,
// expiring QuotaKeyMargin after their window; the decisions are Memory's.
func TestRedisQuotaRollover(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name           string
		period         Period
		from           time.Time
		before, after  string // the windows' names in the keys
		rolled         bool
		endBefore, end time.Duration // from from-1ms and from to the ends of their windows
	}{
		{"day", Day, date(2026, 12, 1, 0, 0, 0, 0), "2026-11-30", "2026-12-01", true, ms, 24 * time.Hour},
		{"day into Feb 29", Day, date(2028, 2, 29, 0, 0, 0, 0), "2028-02-28", "2028-02-29", true, ms, 24 * time.Hour},
		{"day into Jan 1", Day, date(2027, 1, 1, 0, 0, 0, 0), "2026-12-31", "2027-01-01", true, ms, 24 * time.Hour},
		{"day, same day", Day, date(2026, 11, 30, 12, 0, 0, 0), "2026-11-30", "2026-11-30", false, 12*time.Hour + ms, 12 * time.Hour},
		{"month Nov 30 to Dec 1", Month, date(2026, 12, 1, 0, 0, 0, 0), "2026-11", "2026-12", true, ms, 31 * 24 * time.Hour},
		{"month Dec 31 to Jan 1", Month, date(2027, 1, 1, 0, 0, 0, 0), "2026-12", "2027-01", true, ms, 31 * 24 * time.Hour},
		{"month Jan 31 to Feb 1", Month, date(2027, 2, 1, 0, 0, 0, 0), "2027-01", "2027-02", true, ms, 28 * 24 * time.Hour},
		{"month Feb 29 to Mar 1, leap year", Month, date(2028, 3, 1, 0, 0, 0, 0), "2028-02", "2028-03", true, ms, 31 * 24 * time.Hour},
		{"month mid-month", Month, date(2026, 11, 16, 0, 0, 0, 0), "2026-11", "2026-11", false, 15*24*time.Hour + ms, 15 * 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &Quota{2, tc.period}
			c := newClock(tc.from.Add(-ms))
			r, client, prefix := newRedis(t, c.Now)
			m := NewMemory(c.Now)
			same := func() {
				t.Helper()
				want, got := take(t, m, "k", nil, q), take(t, r, "k", nil, q)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("at %v: Redis differs from Memory (-Memory +Redis):\n%s", c.Now(), diff)
				}
			}
			for range 3 {
				same()
			}
			keyBefore := prefix + "quota:{k}:" + tc.before
			if got := r.QuotaKey("k", tc.period, c.Now()); got != keyBefore {
				t.Fatalf("QuotaKey = %q, want %q", got, keyBefore)
			}
			checkCounter(t, client, keyBefore, 2, tc.endBefore+QuotaKeyMargin)

			c.Set(tc.from)
			same()
			keyAfter := prefix + "quota:{k}:" + tc.after
			if tc.rolled {
				checkCounter(t, client, keyAfter, 1, tc.end+QuotaKeyMargin)
				checkCounter(t, client, keyBefore, 2, tc.endBefore+QuotaKeyMargin) // left to expire
			} else {
				checkCounter(t, client, keyAfter, 2, tc.endBefore+QuotaKeyMargin) // the same counter
			}
		})
	}
}

// checkCounter checks a quota counter's value and that its TTL is what was
// set, ttl (less the real time that passed since: at most pollTimeout).
func checkCounter(t *testing.T, c redis.UniversalClient, key string, want int, ttl time.Duration) {
	t.Helper()
	ctx := context.Background()
	got, err := c.Get(ctx, key).Int()
	if err != nil || got != want {
		t.Fatalf("GET %s = %d, %v; want %d", key, got, err, want)
	}
	pttl, err := c.PTTL(ctx, key).Result()
	if err != nil || pttl > ttl || pttl < ttl-pollTimeout {
		t.Fatalf("PTTL %s = %v, %v; want %v (less the time since it was set)", key, pttl, err, ttl)
	}
}

// TestRedisKeys checks the names of the keys a Take writes: under the
// prefix, with the subject's hash tag, both with a TTL.
func TestRedisKeys(t *testing.T) {
	c := newClock(date(2026, 11, 30, 12, 0, 0, 0))
	r, client, prefix := newRedis(t, c.Now)
	take(t, r, "exercisedb/key_a", &Rate{5, time.Second, 0}, &Quota{10, Day})
	got := redistest.Keys(t, client, prefix)
	slices.Sort(got)
	want := []string{prefix + "quota:{exercisedb/key_a}:2026-11-30", prefix + "rate:{exercisedb/key_a}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("keys (-want +got):\n%s", diff)
	}
	for _, k := range got {
		if ttl, err := client.PTTL(context.Background(), k).Result(); err != nil || ttl <= 0 {
			t.Errorf("PTTL %s = %v, %v; want a TTL", k, ttl, err)
		}
	}
}

// TestRedisReplicas hammers one key from N = 2 and 4 stores (each with its
// own client, as separate replicas) sharing one Redis, from 16 goroutines
// each, bare and behind a Resilient. The tolerance is zero: exactly the
// plan's burst or quota is admitted, never more (rates are slow enough
// that no token comes back during the test: T = 2.4h), and the quota
// counter holds exactly the admitted requests (every rate refusal's
// reservation was released).
func TestRedisReplicas(t *testing.T) {
	url := redistest.Patient(redistest.URL(t))
	slow := func(burst int) *Rate { return &Rate{10, 24 * time.Hour, burst} }
	for _, tc := range []struct {
		name  string
		rate  *Rate
		quota *Quota
		want  int
	}{
		{"rate", slow(40), nil, 40},
		{"quota", nil, &Quota{37, Day}, 37},
		{"quota below the burst", slow(40), &Quota{23, Day}, 23},
		{"burst below the quota", slow(25), &Quota{1000, Day}, 25},
	} {
		for _, n := range []int{2, 4} {
			for _, resilient := range []bool{false, true} {
				name := fmt.Sprintf("%s/%d replicas", tc.name, n)
				if resilient {
					name += "/resilient"
				}
				t.Run(name, func(t *testing.T) {
					c := newClock(date(2026, 11, 30, 12, 0, 0, 0))
					prefix := redistest.Prefix(t, redisClient(t, url))
					stores := make([]Store, n)
					var redises []*Redis
					for i := range stores {
						r := NewRedis(redisClient(t, url), prefix, c.Now)
						redises = append(redises, r)
						stores[i] = r
						if resilient {
							stores[i] = NewResilient(r, ResilientOptions{Now: c.Now, OpenFor: time.Hour})
						}
					}
					var admitted atomic.Int64
					var wg sync.WaitGroup
					for _, s := range stores {
						for range 16 {
							wg.Go(func() {
								for range 10 {
									d, err := s.Take(context.Background(), "exercisedb/key_a", tc.rate, tc.quota)
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
					}
					wg.Wait()
					if got := admitted.Load(); got != int64(tc.want) {
						t.Errorf("%d replicas admitted %d of %d requests, want exactly %d", n, got, n*160, tc.want)
					}
					if tc.quota != nil {
						key := redises[0].QuotaKey("exercisedb/key_a", tc.quota.Period, c.Now())
						checkCounter(t, redises[0].client, key, int(admitted.Load()), 12*time.Hour+QuotaKeyMargin)
					}
					for _, s := range stores {
						if r, ok := s.(*Resilient); ok {
							if st := r.Stats(); st.Errors != 0 || st.Fallbacks != 0 {
								t.Errorf("Stats = %+v, want no errors, no fallbacks", st)
							}
						}
					}
				})
			}
		}
	}
}

// TestResilientRedisOutage kills a Redis of the test's own in the middle
// of a run, then starts it again, with each policy. While Redis is down,
// the breaker stops the calls after Trip failures (one probe per OpenFor
// after that, so the bound is counted, not timed), Allow decides with this
// replica's share and Deny returns ErrUnavailable, refusals known before
// stay refused, and the outage is logged once. When Redis is back, the
// breaker closes by itself and Redis decides again.
func TestResilientRedisOutage(t *testing.T) {
	for _, policy := range []Policy{Allow, Deny} {
		t.Run(policy.String(), func(t *testing.T) {
			testRedisOutage(t, policy, func(s *redistest.Server) { s.Kill() }, func(s *redistest.Server) { s.Restart() })
		})
	}
	// A Redis that hangs (SIGSTOP) rather than refusing connections: each
	// call waits for the client's timeout, so the breaker matters more.
	t.Run("hung", func(t *testing.T) {
		testRedisOutage(t, Allow, func(s *redistest.Server) { s.Pause() }, func(s *redistest.Server) { s.Resume() })
	})
}

func testRedisOutage(t *testing.T, policy Policy, down, up func(*redistest.Server)) {
	const (
		trip    = 3
		openFor = 200 * time.Millisecond
	)
	srv := redistest.Start(t)
	store := NewRedis(redisClient(t, srv.URL()), "gw:", nil)
	var logs logBuffer
	r := NewResilient(store, ResilientOptions{Policy: policy, Trip: trip, OpenFor: openFor, Log: logs.logger()})
	rate := &Rate{5, time.Hour, 5} // T = 12m: nothing refills during the test
	admit := func(key string, n int) (admitted, unavailable int) {
		t.Helper()
		for range n {
			d, err := r.Take(context.Background(), key, rate, nil)
			switch {
			case errors.Is(err, ErrUnavailable):
				unavailable++
			case err != nil:
				t.Fatalf("%s: %v", key, err)
			case d.Allowed:
				admitted++
			}
		}
		return admitted, unavailable
	}

	if got, _ := admit("a", 10); got != 5 {
		t.Fatalf("before the outage: %d admitted, want the burst 5", got)
	}

	down(srv)
	callsBefore := r.Stats().Calls
	start := time.Now()
	a, aUnavailable := admit("a", 100)
	b, bUnavailable := admit("b", 100)
	elapsed := time.Since(start)
	calls := r.Stats().Calls - callsBefore
	// Trip failures open the breaker; after that, at most one probe per
	// OpenFor (plus one for rounding) reaches Redis.
	t.Logf("Redis down: %d of 200 Takes reached Redis (%v)", calls, elapsed)
	if bound := uint64(trip + 1 + int(elapsed/openFor)); calls > bound {
		t.Errorf("%d calls to Redis during the outage (200 Takes in %v), want at most %d", calls, elapsed, bound)
	}
	if s := r.Stats(); s.State == Closed {
		t.Errorf("breaker closed during the outage: %+v", s)
	}
	if a != 0 || aUnavailable != 0 {
		t.Errorf("key a, refused before the outage: %d admitted, %d unavailable; want refused from the cache", a, aUnavailable)
	}
	switch policy {
	case Allow:
		if b != 2 || bUnavailable != 0 {
			t.Errorf("key b: %d admitted, %d unavailable; want this replica's share of the burst, 2", b, bUnavailable)
		}
	case Deny:
		if b != 0 || bUnavailable != 100 {
			t.Errorf("key b: %d admitted, %d unavailable; want 100 unavailable", b, bUnavailable)
		}
	}

	up(srv)
	testnet.Eventually(t, "the breaker closed after Redis came back", func() error {
		admit("probe", 1)
		state := r.Stats().State
		return testnet.Unless(state == Closed, fmt.Sprint("breaker ", state))
	})
	if got, _ := admit("c", 10); got != 5 {
		t.Errorf("after the outage: %d admitted, want the burst 5 (Redis decides again)", got)
	}
	if got := [2]int{logs.count(t, msgDown), logs.count(t, msgUp)}; got != [2]int{1, 1} {
		t.Errorf("logged %q and %q %v times, want once each", msgDown, msgUp, got)
	}
}

// TestSharedFailuresRedis: two replicas' Failures on one Redis count one
// budget per address group, under the prefix they are given.
func TestSharedFailuresRedis(t *testing.T) {
	client := redisClient(t, redistest.Patient(redistest.URL(t)))
	prefix := redistest.Prefix(t, client)
	rate := Rate{10, time.Hour, 0} // T = 6m: nothing refills during the test
	var replicas []*Failures
	for range 2 {
		store := NewResilient(NewRedis(redisClient(t, redistest.Patient(redistest.URL(t))), prefix+"auth:", nil), ResilientOptions{})
		replicas = append(replicas, NewSharedFailures(rate, store, nil))
	}
	for i := range 10 {
		if _, b := replicas[i%2].Fail(context.Background(), fmt.Sprintf("2001:db8::%x", i)); b {
			t.Fatalf("failure %d: blocked, want counted", i)
		}
	}
	for i, f := range replicas {
		wait, b := f.Fail(context.Background(), "2001:db8::ffff")
		if !b || wait <= 0 || wait > 6*time.Minute {
			t.Errorf("replica %d after 10 failures of the /64: blocked %v for %v, want blocked for up to 6m", i, b, wait)
		}
		if _, b := f.Fail(context.Background(), "192.0.2.1"); b {
			t.Errorf("replica %d: another address blocked", i)
		}
		if n := f.Len(); n != 0 {
			t.Errorf("replica %d counted %d groups locally, want none (all in Redis)", i, n)
		}
	}
	keys := redistest.Keys(t, client, prefix)
	slices.Sort(keys)
	if want := []string{prefix + "auth:rate:{192.0.2.1}", prefix + "auth:rate:{2001:db8::/64}"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
}
