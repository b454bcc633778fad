// Package limit owns the gateway's request accounting: a plan's rate limit
// (GCRA) and calendar quota counted per key, the stores that decide and
// record requests atomically per key, and the limiter of failed
// authentication per client address ([Failures]).
//
// The stores: [Memory] counts in one process. [Redis] counts in a Redis (or
// Redis Cluster) that several gateway replicas share, so that together
// they admit no more than the plan. [Resilient] wraps the Redis store with
// a circuit breaker, the on_store_error policy (a local share of each plan,
// or refusal) and a deny-only cache of keys known to be over their limit.
//
// It decides and reports; it neither reads plans nor writes HTTP headers. The
// HTTP middleware turns a [Decision] into headers (rounding durations with
// [Seconds]) and refuses when Decision.Allowed is false.
//
// Every limiter takes its clock as a func() time.Time, so tests step through
// instants without sleeping. Two clocks are not injected: the Redis store's
// rate runs on Redis's clock (TIME), so that replicas' clocks do not matter,
// and Resilient's breaker times its open state on the real clock.
//
// # Rate: the generic cell rate algorithm
//
// A [Rate] of Requests per Per with burst B has the emission interval
// T = Per/Requests (integer nanoseconds, truncated) and the tolerance
// tau = B*T. Each key keeps one theoretical arrival time TAT (zero for a
// new key: a full bucket). A request at now:
//
//	next    = max(TAT, now) + T
//	allowed = next - now <= tau                       (then TAT = next)
//	Remaining  = floor((tau - (TAT' - now)) / T) >= 0 (TAT' = the TAT after the decision)
//	Reset      = max(TAT' - now, 0)                   (until Remaining is back to B)
//	RetryAfter = next - now - tau                     (when refused; always > 0)
//
// So B requests fit in one instant, one more every T after that, and an idle
// key is back to a full bucket (Remaining = B) after B*T.
//
// # Quota: calendar windows in UTC
//
// A [Quota] counts the allowed requests of a key in the current window, a
// UTC calendar day starting 00:00 or a UTC calendar month starting on the
// 1st at 00:00. The window rolls over exactly at the boundary; Reset is the
// time until the next boundary, and a request refused by the quota may retry
// after Reset.
package limit

import (
	"context"
	"fmt"
	"math"
	"time"

	"go.yaml.in/yaml/v3"
)

// Rate is a plan's rate limit: Requests per Per, with bursts of up to Burst.
// Burst 0 means Requests.
type Rate struct {
	Requests int
	Per      time.Duration
	Burst    int
}

// Validate reports why r cannot be enforced, or nil: Requests and Per must be
// positive, Burst must not be negative, Per/Requests must be at least 1ns, and
// Burst*Per/Requests must fit in a time.Duration.
func (r Rate) Validate() error {
	switch {
	case r.Requests <= 0:
		return fmt.Errorf("limit: rate requests %d: must be positive", r.Requests)
	case r.Per <= 0:
		return fmt.Errorf("limit: rate per %v: must be positive", r.Per)
	case r.Burst < 0:
		return fmt.Errorf("limit: rate burst %d: must not be negative", r.Burst)
	}
	t := r.interval()
	if t <= 0 {
		return fmt.Errorf("limit: rate %d per %v: more than one request per nanosecond", r.Requests, r.Per)
	}
	if int64(r.burst()) > math.MaxInt64/int64(t) {
		return fmt.Errorf("limit: rate %d per %v with burst %d: burst window overflows", r.Requests, r.Per, r.burst())
	}
	return nil
}

// burst is the effective burst: Burst, or Requests when Burst is 0.
func (r Rate) burst() int {
	if r.Burst == 0 {
		return r.Requests
	}
	return r.Burst
}

// interval is the emission interval T = Per/Requests.
func (r Rate) interval() time.Duration {
	return r.Per / time.Duration(r.Requests)
}

// gcra is the generic cell rate algorithm for one valid Rate.
type gcra struct {
	t     time.Duration // emission interval: Per/Requests
	tau   time.Duration // tolerance: Burst*T
	limit int           // Rate.Requests, for the headers
}

func newGCRA(r Rate) gcra {
	t := r.interval()
	return gcra{t: t, tau: time.Duration(r.burst()) * t, limit: r.Requests}
}

// take decides one request at now against the theoretical arrival time tat.
// When allowed it returns the new TAT; when refused it returns tat unchanged
// and how long until one request is admissible.
func (g gcra) take(tat, now time.Time) (next time.Time, ok bool, retryAfter time.Duration) {
	base := tat
	if base.Before(now) {
		base = now
	}
	next = base.Add(g.t)
	if over := next.Sub(now) - g.tau; over > 0 {
		return tat, false, over
	}
	return next, true, 0
}

// state is what the headers show for tat at now: the requests admissible
// right now and the time until the bucket is full again.
func (g gcra) state(tat, now time.Time) (remaining int, reset time.Duration) {
	reset = tat.Sub(now)
	if reset < 0 {
		reset = 0
	}
	remaining = int((g.tau - reset) / g.t)
	if remaining < 0 {
		remaining = 0
	}
	return remaining, reset
}

// Period is a quota window: a calendar day or month in UTC. The zero Period
// is invalid.
type Period int

// The quota periods.
const (
	Day Period = iota + 1
	Month
)

// String returns "day" or "month", the spelling of the configuration.
func (p Period) String() string {
	switch p {
	case Day:
		return "day"
	case Month:
		return "month"
	}
	return fmt.Sprintf("Period(%d)", int(p))
}

// ParsePeriod parses "day" or "month" (exactly, as String spells them).
func ParsePeriod(s string) (Period, error) {
	switch s {
	case "day":
		return Day, nil
	case "month":
		return Month, nil
	}
	return 0, fmt.Errorf("limit: quota period %q: want day or month", s)
}

// MarshalText encodes p as String does.
func (p Period) MarshalText() ([]byte, error) {
	if p != Day && p != Month {
		return nil, fmt.Errorf("limit: invalid quota period %d", int(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText decodes "day" or "month", so a Period can be a field of a
// YAML or JSON configuration.
func (p *Period) UnmarshalText(b []byte) error {
	v, err := ParsePeriod(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalYAML decodes quota.per of the gateway's configuration; a bad
// value is reported with its line, as the decoder reports its own errors.
func (p *Period) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParsePeriod(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: quota.per %q: want day or month", n.Line, n.Value)}}
	}
	*p = v
	return nil
}

// window returns the end of the window that holds now: the next UTC midnight
// for Day, the next 1st of a month at UTC midnight for Month.
func (p Period) window(now time.Time) (end time.Time) {
	y, m, d := now.UTC().Date()
	if p == Month {
		return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// Quota is a plan's quota: Requests per calendar Period.
type Quota struct {
	Requests int
	Period   Period
}

// Validate reports why q cannot be enforced, or nil: Requests must be
// positive and Period must be Day or Month.
func (q Quota) Validate() error {
	if q.Requests <= 0 {
		return fmt.Errorf("limit: quota requests %d: must be positive", q.Requests)
	}
	if q.Period != Day && q.Period != Month {
		return fmt.Errorf("limit: invalid quota period %d", int(q.Period))
	}
	return nil
}

// Decision is the outcome of one Take, with what the response headers need.
type Decision struct {
	// Allowed reports whether the request may proceed; it was counted if so.
	Allowed bool
	// Rate is the rate limit's state, nil when no rate applies.
	Rate *RateState
	// Quota is the quota's state, nil when no quota applies.
	Quota *QuotaState
	// RetryAfter is, when !Allowed, the time until the request would be
	// admitted by both the rate and the quota (the larger of their
	// RetryAfter); always positive then, so Seconds(RetryAfter) >= 1.
	RetryAfter time.Duration
}

// RateState is the rate limit part of a Decision.
type RateState struct {
	// Limit is the plan's Rate.Requests (per Rate.Per).
	Limit int
	// Remaining is the number of requests admissible right now, after this
	// one if it was allowed; at most the burst (which may differ from Limit).
	Remaining int
	// Reset is the time until Remaining is back to its maximum (the burst).
	Reset time.Duration
	// RetryAfter is, when the rate refused the request, the time until one
	// request is admissible; zero otherwise.
	RetryAfter time.Duration
}

// QuotaState is the quota part of a Decision.
type QuotaState struct {
	// Limit is the plan's Quota.Requests per window.
	Limit int
	// Remaining is the number of requests left in the window, after this one
	// if it was allowed.
	Remaining int
	// Reset is the time until the window rolls over.
	Reset time.Duration
	// RetryAfter is Reset when the quota refused the request; zero otherwise.
	RetryAfter time.Duration
}

// Store decides and records requests. key identifies the counted subject (the
// caller passes e.g. "product/keyID"). Either rate or quota may be nil; with
// both nil every request is allowed and nothing is recorded.
//
// Refused requests are not counted: a request refused by the quota consumes
// no rate token and vice versa. A Store checks both, then commits both,
// atomically per key.
type Store interface {
	Take(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error)
}

// Seconds is d in whole seconds for a header, rounded up, and 0 for d <= 0.
// Every header (Reset, Retry-After) rounds through it, so a client that waits
// that long is never early; a refused Decision's RetryAfter is positive, so
// its Retry-After is at least 1.
func Seconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	s := d / time.Second
	if d%time.Second != 0 {
		s++
	}
	return int(s)
}

// validate checks the limits a Store is asked to apply; nil means none.
func validate(rate *Rate, quota *Quota) error {
	if rate != nil {
		if err := rate.Validate(); err != nil {
			return err
		}
	}
	if quota != nil {
		return quota.Validate()
	}
	return nil
}
