package limit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
)

// Peeker reads a key's limits without counting a request, for a caller
// that shows them (the gateway's /api/v1/usage). Memory, Redis and
// Resilient are Peekers.
//
// Peek returns the Decision a request of key would get now, taking
// nothing: Allowed reports whether it would be admitted, Remaining counts
// the requests admissible now (this one not taken), and RetryAfter is set
// as a Take would set it when refusing. Either rate or quota may be nil.
type Peeker interface {
	Peek(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error)
}

var (
	_ Peeker = (*Memory)(nil)
	_ Peeker = (*Redis)(nil)
	_ Peeker = (*Resilient)(nil)
)

// Peek reads key's state in m; ctx is not used.
func (m *Memory) Peek(_ context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	if rate == nil && quota == nil {
		return Decision{Allowed: true}, nil
	}
	if err := validate(rate, quota); err != nil {
		return Decision{}, err
	}
	now := m.now()
	s := m.t.shard(key)
	s.mu.Lock()
	var cur entry
	if e := s.m[key]; e != nil {
		cur = *e
	}
	s.mu.Unlock()
	d := Decision{Allowed: true}
	st := new(states)
	if rate != nil {
		g := newGCRA(*rate)
		r := &st.rate
		r.Limit = g.limit
		r.Remaining, r.Reset = g.state(cur.tat, now)
		if _, ok, retry := g.take(cur.tat, now); !ok {
			r.RetryAfter = retry
		}
		d.addRate(r)
	}
	if quota != nil {
		used := 0
		if cur.qEnd.Equal(quota.Period.window(now)) {
			used = cur.used
		}
		d.addQuota(&st.quota, *quota, used, now)
	}
	return d, nil
}

// Peek reads key's state in Redis: the quota window's counter, and the
// rate's state as redis_rate reports it for a request of no cost.
func (r *Redis) Peek(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	if rate == nil && quota == nil {
		return Decision{Allowed: true}, nil
	}
	if err := validate(rate, quota); err != nil {
		return Decision{}, err
	}
	now := r.now()
	d := Decision{Allowed: true}
	st := new(states)
	if quota != nil {
		used, err := r.client.Get(ctx, r.QuotaKey(key, quota.Period, now)).Int()
		if errors.Is(err, redis.Nil) {
			used, err = 0, nil
		}
		if err != nil {
			return Decision{}, fmt.Errorf("limit: redis quota: %w", err)
		}
		d.addQuota(&st.quota, *quota, used, now)
	}
	if rate != nil {
		res, err := r.limiter.AllowN(ctx, r.RateKey(key), redis_rate.Limit{Rate: rate.Requests, Burst: rate.burst(), Period: rate.Per}, 0)
		if err != nil {
			return Decision{}, fmt.Errorf("limit: redis rate: %w", err)
		}
		s := &st.rate
		s.Limit = rate.Requests
		s.Remaining = max(res.Remaining, 0)
		s.Reset = max(res.ResetAfter.Round(time.Microsecond), 0)
		s.RetryAfter = newGCRA(*rate).wait(s.Reset)
		d.addRate(s)
	}
	return d, nil
}

// Peek reads key's state from the store, or from the cache of refusals
// when it holds one. It takes no part in the breaker: while the breaker is
// not closed, or when the store fails, it returns an error wrapping
// ErrUnavailable whatever the policy (the local shares are a replica's
// stopgap, not figures to show).
func (r *Resilient) Peek(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	if rate == nil && quota == nil {
		return Decision{Allowed: true}, nil
	}
	if err := validate(rate, quota); err != nil {
		return Decision{}, err
	}
	if d, ok := r.refusal(key, rate, quota, r.now()); ok {
		return d, nil
	}
	p, ok := r.store.(Peeker)
	if !ok {
		return Decision{}, fmt.Errorf("limit: %T cannot peek", r.store)
	}
	if r.breaker.State() != gobreaker.StateClosed {
		return Decision{}, ErrUnavailable
	}
	d, err := p.Peek(ctx, key, rate, quota)
	if err != nil {
		return Decision{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return d, nil
}

// wait is how long a request must wait when the bucket is full again in
// reset: zero if it would be admitted now.
func (g gcra) wait(reset time.Duration) time.Duration {
	return max(reset+g.t-g.tau, 0)
}

// addRate puts a peeked rate state into d.
func (d *Decision) addRate(s *RateState) {
	d.Rate = s
	if s.RetryAfter > 0 {
		d.Allowed = false
		d.RetryAfter = max(d.RetryAfter, s.RetryAfter)
	}
}

// addQuota fills q for a window of quota in which used requests were
// counted, as seen at now, and puts it into d.
func (d *Decision) addQuota(q *QuotaState, quota Quota, used int, now time.Time) {
	q.Limit = quota.Requests
	q.Remaining = max(quota.Requests-used, 0)
	q.Reset = quota.Period.window(now).Sub(now)
	if used >= quota.Requests {
		q.RetryAfter = q.Reset
		d.Allowed = false
		d.RetryAfter = max(d.RetryAfter, q.RetryAfter)
	}
	d.Quota = q
}
