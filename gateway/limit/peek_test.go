package limit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// peekable is a flaky store that also peeks, failing alike while down.
type peekable struct{ *flaky }

func (p peekable) Peek(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	if p.down.Load() {
		return Decision{}, errDown
	}
	return p.m.Peek(ctx, key, rate, quota)
}

// TestPeekTakesNothing holds every Peeker to one behaviour: a Peek counts
// nothing however often it is called; it shows what is admissible before
// a request (one more than a Take shows after it); and where a Take would
// refuse, it returns that refusal.
func TestPeekTakesNothing(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	type store interface {
		Store
		Peeker
	}
	stores := map[string]func(t *testing.T) store{
		"memory": func(*testing.T) store { return NewMemory(clock) },
		"redis": func(t *testing.T) store {
			r, _, _ := newRedis(t, clock)
			return r
		},
		"resilient": func(*testing.T) store {
			return NewResilient(peekable{newFlaky(clock)}, ResilientOptions{Now: clock, Policy: Deny})
		},
	}
	// Slow rates (T = 20 minutes), so that Redis's own clock changes no count.
	rate := &Rate{Requests: 3, Per: time.Hour}
	quota := &Quota{Requests: 4, Period: Day}
	tol := approx(10 * time.Second)
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			for _, limits := range []struct {
				name  string
				rate  *Rate
				quota *Quota
			}{{"rate", rate, nil}, {"quota", nil, quota}, {"both", rate, quota}} {
				key := "peek/" + limits.name
				take := func() Decision {
					t.Helper()
					d, err := s.Take(ctx, key, limits.rate, limits.quota)
					if err != nil {
						t.Fatal(err)
					}
					return d
				}
				peek := func() Decision {
					t.Helper()
					d, err := s.Peek(ctx, key, limits.rate, limits.quota)
					if err != nil {
						t.Fatal(err)
					}
					return d
				}
				for range 3 {
					before := peek()
					for range 5 {
						if diff := cmp.Diff(before, peek(), tol); diff != "" {
							t.Fatalf("%s: a second Peek differs (-first +second):\n%s", limits.name, diff)
						}
					}
					after := take()
					if !before.Allowed || !after.Allowed {
						t.Fatalf("%s: Peek %+v, Take %+v; want both allowed", limits.name, before, after)
					}
					if before.Rate != nil && before.Rate.Remaining != after.Rate.Remaining+1 {
						t.Errorf("%s: Peek's rate remaining %d, Take's after %d", limits.name, before.Rate.Remaining, after.Rate.Remaining)
					}
					if before.Quota != nil && before.Quota.Remaining != after.Quota.Remaining+1 {
						t.Errorf("%s: Peek's quota remaining %d, Take's after %d", limits.name, before.Quota.Remaining, after.Quota.Remaining)
					}
				}
				if limits.quota != nil && limits.rate == nil {
					take() // the quota is 4, the rate's burst 3
				}
				peeked := peek()
				refused := take()
				if refused.Allowed {
					t.Fatalf("%s: Take after the limit: allowed", limits.name)
				}
				if diff := cmp.Diff(refused, peeked, tol); diff != "" {
					t.Errorf("%s: Peek differs from the refused Take (-take +peek):\n%s", limits.name, diff)
				}
			}
			if d, err := s.Peek(ctx, "peek/none", nil, nil); err != nil || !d.Allowed || d.Rate != nil || d.Quota != nil {
				t.Errorf("Peek without limits = %+v, %v; want allowed, nothing else", d, err)
			}
		})
	}
}

// TestResilientPeekUnavailable: while the store fails or the breaker is
// open, a Peek says so instead of showing a replica's local share.
func TestResilientPeekUnavailable(t *testing.T) {
	f := newFlaky(nil)
	r := NewResilient(peekable{f}, ResilientOptions{OpenFor: time.Hour})
	rate := &Rate{Requests: 10, Per: time.Second}
	ctx := context.Background()
	f.down.Store(true)
	if _, err := r.Peek(ctx, "k", rate, nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Peek while the store fails: %v, want ErrUnavailable", err)
	}
	for range DefaultTrip {
		r.Take(ctx, "k", rate, nil)
	}
	f.down.Store(false)
	if _, err := r.Peek(ctx, "k", rate, nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Peek with the breaker open: %v, want ErrUnavailable", err)
	}
}
