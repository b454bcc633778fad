package limit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// QuotaKeyMargin is how long a quota counter outlives the end of its window
// in Redis. A replica whose clock is behind by less than this still finds
// the counter of the window it believes current, instead of starting a new
// one at zero.
const QuotaKeyMargin = time.Hour

// Redis is the Store that gateway replicas share: every replica that
// points at one Redis (or one Redis Cluster) with one prefix enforces one
// limit per key.
//
// The rate is redis_rate's GCRA, one Lua script that reads the time from
// Redis (TIME), so the replicas' clocks do not matter to it. The quota is a
// counter per key and window, named after the window as the injected clock
// sees it ("<prefix>quota:{<key>}:2026-11-30" for a day,
// "<prefix>quota:{<key>}:2026-11" for a month) and expiring QuotaKeyMargin
// after the window's end. The rate's key is "<prefix>rate:{<key>}"; the hash
// tag {<key>} puts both keys of a subject in one Cluster slot.
//
// A Take runs at most three scripts, each atomic:
//
//  1. reserve (with a quota): increment the window's counter only if it is
//     below the quota; a refusal ends here, with the rate's state read
//     without taking a token (redis_rate's AllowN with n = 0);
//  2. the rate (redis_rate AllowN with n = 1);
//  3. release (only if the rate refused a request whose quota was
//     reserved): decrement the counter again.
//
// So refused requests are not counted, as Store requires, and neither limit
// is ever exceeded: the quota counter and the rate's TAT each change only by
// their own atomic script. The race window is between 1 and 3: a
// reservation that the rate will refuse is counted for one round trip, so a
// concurrent request of the same key may be refused by a quota it would
// have fitted (under-admission, only when the quota's remainder is smaller
// than the key's requests in flight; never over-admission). If Redis fails
// between 1 and 3, the reservation stays: the key loses one request of its
// quota.
//
// Rate arithmetic is redis_rate's: float seconds at Redis's microsecond
// resolution, where Memory uses integer nanoseconds; the decisions agree,
// and the durations agree to within a microsecond.
type Redis struct {
	client  redis.UniversalClient
	limiter *redis_rate.Limiter
	prefix  string
	now     func() time.Time
}

var _ Store = (*Redis)(nil)

// NewRedis returns a Redis Store that writes its keys under prefix (e.g.
// "gw:") through client, and reads the time of the quota windows from now
// (time.Now if nil; tests inject a clock). The caller closes client.
func NewRedis(client redis.UniversalClient, prefix string, now func() time.Time) *Redis {
	if now == nil {
		now = time.Now
	}
	return &Redis{client: client, limiter: redis_rate.NewLimiter(ownKeys{client}), prefix: prefix, now: now}
}

// RateKey is the Redis key of key's rate.
func (r *Redis) RateKey(key string) string { return r.prefix + "rate:{" + key + "}" }

// QuotaKey is the Redis key of key's quota counter for the window of period
// that holds t.
func (r *Redis) QuotaKey(key string, period Period, t time.Time) string {
	layout := "2006-01-02"
	if period == Month {
		layout = "2006-01"
	}
	return r.prefix + "quota:{" + key + "}:" + t.UTC().Format(layout)
}

// reserve counts one request in a quota window if the window is below the
// quota. KEYS[1] is the window's counter, ARGV[1] the quota, ARGV[2] the
// TTL in milliseconds of a new counter. It returns {1, count} when counted,
// {0, count} when refused.
var reserve = redis.NewScript(`
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then
  return {0, used}
end
used = redis.call('INCR', KEYS[1])
if used == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return {1, used}
`)

// release takes back one reserve. KEYS[1] is the window's counter. It
// returns the count after.
var release = redis.NewScript(`
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used > 0 then
  used = redis.call('DECR', KEYS[1])
end
return used
`)

// Take decides one request of key against rate and quota (either may be
// nil) and records it if allowed. It returns an error for an invalid rate
// or quota, and when Redis fails: then nothing is known about the request,
// and a reservation of its quota may stay counted.
func (r *Redis) Take(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	if rate == nil && quota == nil {
		return Decision{Allowed: true}, nil
	}
	if err := validate(rate, quota); err != nil {
		return Decision{}, err
	}
	now := r.now()
	d := Decision{Allowed: true}
	st := new(states)

	var qKey string
	reserved := false
	if quota != nil {
		end := quota.Period.window(now)
		qKey = r.QuotaKey(key, quota.Period, now)
		ttl := end.Sub(now) + QuotaKeyMargin
		res, err := reserve.Run(ctx, r.client, []string{qKey}, quota.Requests, ttl.Milliseconds()).Int64Slice()
		if err == nil && len(res) != 2 {
			err = fmt.Errorf("reserve returned %d values, want 2", len(res))
		}
		if err != nil {
			return Decision{}, fmt.Errorf("limit: redis quota: %w", err)
		}
		reserved = res[0] == 1
		q := &st.quota
		q.Limit = quota.Requests
		q.Remaining = max(quota.Requests-int(res[1]), 0)
		q.Reset = end.Sub(now)
		if !reserved {
			q.RetryAfter = q.Reset
			d.Allowed = false
			d.RetryAfter = q.RetryAfter
		}
		d.Quota = q
	}

	if rate != nil {
		n := 1
		if !d.Allowed {
			n = 0 // refused by the quota: read the rate's state, take no token
		}
		res, err := r.limiter.AllowN(ctx, r.RateKey(key), redis_rate.Limit{Rate: rate.Requests, Burst: rate.burst(), Period: rate.Per}, n)
		if err != nil {
			if reserved {
				r.release(ctx, qKey) // best effort: Redis is failing
			}
			return Decision{}, fmt.Errorf("limit: redis rate: %w", err)
		}
		s := &st.rate
		s.Limit = rate.Requests
		s.Remaining = max(res.Remaining, 0)
		// Redis counts microseconds: drop the float's noise below them.
		s.Reset = max(res.ResetAfter.Round(time.Microsecond), 0)
		switch {
		case n == 1 && res.Allowed == 0:
			s.RetryAfter = max(res.RetryAfter.Round(time.Microsecond), time.Microsecond)
			d.Allowed = false
			if reserved {
				if used, err := r.release(ctx, qKey); err == nil {
					d.Quota.Remaining = max(quota.Requests-used, 0)
				}
			}
		case n == 0:
			// Would the rate have refused too? As Memory reports it.
			s.RetryAfter = newGCRA(*rate).wait(s.Reset)
		}
		d.RetryAfter = max(d.RetryAfter, s.RetryAfter)
		d.Rate = s
	}
	return d, nil
}

// release takes back a reservation of qKey and returns the count after. It
// runs even if ctx was cancelled (the client went away), so a reservation
// is not left counted.
func (r *Redis) release(ctx context.Context, qKey string) (int, error) {
	used, err := release.Run(context.WithoutCancel(ctx), r.client, []string{qKey}).Int()
	return used, err
}

// ownKeys is the client as redis_rate sees it. redis_rate puts "rate:"
// before every key it is given; ownKeys takes it off again, so the keys
// written are the Store's own, under its prefix.
type ownKeys struct{ redis.UniversalClient }

func (c ownKeys) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return c.UniversalClient.Eval(ctx, script, unprefixed(keys), args...)
}

func (c ownKeys) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return c.UniversalClient.EvalSha(ctx, sha1, unprefixed(keys), args...)
}

func (c ownKeys) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return c.UniversalClient.EvalRO(ctx, script, unprefixed(keys), args...)
}

func (c ownKeys) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return c.UniversalClient.EvalShaRO(ctx, sha1, unprefixed(keys), args...)
}

func (c ownKeys) Del(ctx context.Context, keys ...string) *redis.IntCmd {
	return c.UniversalClient.Del(ctx, unprefixed(keys)...)
}

// redisRatePrefix is the prefix redis_rate puts before its keys.
const redisRatePrefix = "rate:"

func unprefixed(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.TrimPrefix(k, redisRatePrefix)
	}
	return out
}
