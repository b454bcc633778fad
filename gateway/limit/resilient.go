package limit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/sony/gobreaker/v2"
	"go.yaml.in/yaml/v3"
)

// Policy is what a Resilient does while its store is unavailable.
type Policy int

// The policies, spelt "allow" and "deny" in the configuration
// (rate_limit.on_store_error). The zero Policy is Allow.
const (
	// Allow decides with a local limiter that holds a share of each plan
	// (see Resilient), so the API keeps answering.
	Allow Policy = iota
	// Deny refuses: Take returns an error wrapping ErrUnavailable, which
	// the gateway answers with 503 and Retry-After.
	Deny
)

// ParsePolicy parses "allow" or "deny".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("limit: store error policy %q: want allow or deny", s)
}

// UnmarshalYAML decodes rate_limit.on_store_error of the gateway's
// configuration; a bad value is reported with its line, as the decoder
// reports its own errors.
func (p *Policy) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParsePolicy(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: rate_limit.on_store_error %q: want allow or deny", n.Line, n.Value)}}
	}
	*p = v
	return nil
}

// MarshalText encodes p as String does, as the configuration spells it.
func (p Policy) MarshalText() ([]byte, error) {
	if p != Allow && p != Deny {
		return nil, fmt.Errorf("limit: invalid store error policy %d", int(p))
	}
	return []byte(p.String()), nil
}

// String returns "allow" or "deny".
func (p Policy) String() string {
	switch p {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ErrUnavailable is wrapped by the error of a Take that a Resilient with
// the Deny policy could not decide because its store is unavailable.
var ErrUnavailable = errors.New("limit: store unavailable")

// BreakerState is the state of a Resilient's circuit breaker. Its values
// are those of the exercisedb_gateway_limit_store_state gauge.
type BreakerState int

// The breaker states.
const (
	// Closed: every Take goes to the store.
	Closed BreakerState = iota
	// HalfOpen: one Take probes the store; the others are decided by the
	// policy until the probe succeeds (Closed) or fails (Open).
	HalfOpen
	// Open: the store is not called; the policy decides.
	Open
)

// String returns "closed", "half-open" or "open".
func (s BreakerState) String() string {
	switch s {
	case Closed:
		return "closed"
	case HalfOpen:
		return "half-open"
	case Open:
		return "open"
	}
	return fmt.Sprintf("BreakerState(%d)", int(s))
}

// Defaults of ResilientOptions.
const (
	DefaultReplicas = 2
	DefaultTrip     = 3
	DefaultOpenFor  = time.Second
	DefaultMaxDeny  = time.Minute
	DefaultKnown    = 1 << 16
)

// ResilientOptions configure a Resilient. Zero fields take the defaults.
type ResilientOptions struct {
	// Policy applies while the store is unavailable.
	Policy Policy
	// Replicas is the number of gateway replicas assumed to share the
	// store; the Allow policy gives each replica 1/Replicas of a plan.
	// Default DefaultReplicas.
	Replicas int
	// Trip is the number of consecutive failures of the store that open
	// the breaker. Default DefaultTrip.
	Trip int
	// OpenFor is how long the breaker stays open before one Take probes
	// the store again. Default DefaultOpenFor.
	OpenFor time.Duration
	// MaxDeny is the longest a refusal of the store is reused without
	// asking it again (a quota refusal would otherwise last to the end of
	// the window). Default DefaultMaxDeny.
	MaxDeny time.Duration
	// Known is the number of keys whose last decision is kept (for the
	// refusal cache and the quota share). Default DefaultKnown.
	Known int
	// Now is the clock; nil means time.Now. The breaker's own timer
	// (OpenFor) runs on the real clock.
	Now func() time.Time
	// Log receives one error line when the store becomes unavailable and
	// one info line when it is back; nil discards them.
	Log *slog.Logger
}

// Stats are the counts of a Resilient since it was made, and its
// breaker's state.
type Stats struct {
	// Calls is the number of Takes sent to the store.
	Calls uint64
	// Errors is the number of those that failed (not counting those whose
	// caller's context ended first).
	Errors uint64
	// Fallbacks is the number of Takes decided by the policy because the
	// store was unavailable (it failed, or the breaker was not closed).
	Fallbacks uint64
	// Cached is the number of Takes refused from the cache of refusals,
	// without calling the store.
	Cached uint64
	// State is the breaker's state.
	State BreakerState
}

// Resilient is a Store that puts a circuit breaker, a failure policy and a
// deny-only cache in front of a shared store (Redis), so that an outage of
// the store neither takes the API down nor, silently, lifts every limit.
//
// Breaker: after Trip consecutive failures the store is not called for
// OpenFor; then one Take probes it, and a success closes the breaker. So a
// dead store adds its timeout to about Trip requests per outage and one
// request per OpenFor, not to every request. The breaker's transitions
// are logged: one error line when it opens (the outage), one info line
// when it closes again (with the outage's length and the Takes the policy
// decided); probes in between log at debug level only.
//
// Policy, while the store is unavailable:
//   - Allow decides with a local Memory that gives this replica a share of
//     each plan: the rate with Per multiplied by Replicas (so exactly
//     1/Replicas of the rate) and a burst of max(1, Burst/Replicas); the
//     quota as Requests/Replicas (rounded down) of what the store last
//     said remained of the key's current window, or of the plan's quota
//     if this replica has not seen the key in this window. A share of zero
//     refuses. The local counts are never reset: they carry over from one
//     outage to the next, and every decision of the store raises the
//     key's local TAT to the store's, so an outage starts from what the
//     store last said (with Per times Replicas and the same TAT, the share
//     holds 1/Replicas of the tokens the store had left). So in any window
//     of length w, Replicas replicas admit locally at most what the plan
//     allows in w (with a burst of at most max(Burst, Replicas)), however
//     many outages it holds, besides what the store admits (at most the
//     plan): at most twice the plan in all. Per key, the quota's local
//     admissions in a window stay within the largest of the replicas'
//     bases (the remainder each last saw, or the plan's quota). Each
//     replica remembers the last Known keys.
//   - Deny returns an error wrapping ErrUnavailable.
//
// Refusal cache (deny-only): a refusal of the store is reused, without
// asking the store, until it would expire (the rate's retry time, or the
// quota window's end), at most MaxDeny after it was learnt and only for the
// same rate and quota. Nothing can be admitted anywhere in that time (no
// replica admits a request whose rate has no token, or whose quota is used
// up), so the reused refusal is still true, and its headers are computed
// for the current instant: the rate's remaining and reset from the TAT the
// store reported, the quota's reset from the window. The cache can only
// refuse, so it never admits more than the store would; it may refuse for
// a little longer than the store would (the store's reply latency), and a
// reset done by hand in Redis takes effect within MaxDeny. It is consulted
// in every state of the breaker, so keys known to be over their limit stay
// refused during an outage.
//
// Headers stay truthful: a Decision from the store is the store's; a
// cached refusal is recomputed for now; a fallback Decision reports what
// this replica will admit (Remaining, Reset, RetryAfter of its share) with
// the plan's Limit.
type Resilient struct {
	store    Store
	policy   Policy
	replicas int
	openFor  time.Duration
	maxDeny  time.Duration
	now      func() time.Time
	log      *slog.Logger
	breaker  *gobreaker.CircuitBreaker[Decision]
	known    *lru.Cache[string, known]
	fallback *Memory // the local shares, kept from one outage to the next

	calls, errs, fallbacks, cached atomic.Uint64
	lastErr                        atomic.Value // string: the last failure of the store

	// Written by the breaker's OnStateChange, which it calls under its
	// own lock.
	outageStart     time.Time
	outageFallbacks uint64
}

var _ Store = (*Resilient)(nil)

// errCallerGone marks a failure of the store that happened because the
// caller's context ended: it says nothing about the store.
var errCallerGone = errors.New("caller's context ended")

// NewResilient returns a Resilient in front of store.
func NewResilient(store Store, o ResilientOptions) *Resilient {
	if o.Replicas <= 0 {
		o.Replicas = DefaultReplicas
	}
	if o.Trip <= 0 {
		o.Trip = DefaultTrip
	}
	if o.OpenFor <= 0 {
		o.OpenFor = DefaultOpenFor
	}
	if o.MaxDeny <= 0 {
		o.MaxDeny = DefaultMaxDeny
	}
	if o.Known <= 0 {
		o.Known = DefaultKnown
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	known, err := lru.New[string, known](o.Known)
	if err != nil {
		panic(err) // only for a size <= 0
	}
	r := &Resilient{
		store:    store,
		policy:   o.Policy,
		replicas: o.Replicas,
		openFor:  o.OpenFor,
		maxDeny:  o.MaxDeny,
		now:      o.Now,
		log:      o.Log,
		known:    known,
		fallback: NewMemory(o.Now),
	}
	trip := uint32(min(o.Trip, 1<<16))
	r.breaker = gobreaker.NewCircuitBreaker[Decision](gobreaker.Settings{
		Name:          "rate limit store",
		MaxRequests:   1,
		Timeout:       o.OpenFor,
		ReadyToTrip:   func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= trip },
		IsExcluded:    func(err error) bool { return errors.Is(err, errCallerGone) },
		OnStateChange: func(_ string, from, to gobreaker.State) { r.changed(from, to) },
	})
	return r
}

// Stats returns the counts so far and the breaker's state.
func (r *Resilient) Stats() Stats {
	return Stats{
		Calls:     r.calls.Load(),
		Errors:    r.errs.Load(),
		Fallbacks: r.fallbacks.Load(),
		Cached:    r.cached.Load(),
		State:     breakerState(r.breaker.State()),
	}
}

func breakerState(s gobreaker.State) BreakerState {
	switch s {
	case gobreaker.StateHalfOpen:
		return HalfOpen
	case gobreaker.StateOpen:
		return Open
	}
	return Closed
}

// changed logs a transition of the breaker: once when an outage starts,
// once when it ends.
func (r *Resilient) changed(from, to gobreaker.State) {
	now := r.now()
	lastErr, _ := r.lastErr.Load().(string)
	switch {
	case from == gobreaker.StateClosed && to == gobreaker.StateOpen:
		r.outageStart, r.outageFallbacks = now, r.fallbacks.Load()
		r.log.Error("rate limit store unavailable", slog.String("on_store_error", r.policy.String()),
			slog.String("error", lastErr), slog.Duration("retry_every", r.openFor))
	case to == gobreaker.StateClosed:
		r.log.Info("rate limit store available again", slog.Duration("outage", now.Sub(r.outageStart)),
			slog.Uint64("fallbacks", r.fallbacks.Load()-r.outageFallbacks))
	case to == gobreaker.StateOpen:
		r.log.Debug("rate limit store still unavailable", slog.String("error", lastErr))
	default:
		r.log.Debug("rate limit store probed", slog.String("state", to.String()))
	}
}

// Take decides one request as the store does, or, while the store is
// unavailable, as the policy says. It returns an error for an invalid rate
// or quota, and with the Deny policy one wrapping ErrUnavailable.
func (r *Resilient) Take(ctx context.Context, key string, rate *Rate, quota *Quota) (Decision, error) {
	if rate == nil && quota == nil {
		return Decision{Allowed: true}, nil
	}
	if err := validate(rate, quota); err != nil {
		return Decision{}, err
	}
	before := r.now()
	if d, ok := r.refusal(key, rate, quota, before); ok {
		r.cached.Add(1)
		return d, nil
	}
	d, err := r.breaker.Execute(func() (Decision, error) {
		r.calls.Add(1)
		d, err := r.store.Take(ctx, key, rate, quota)
		if err != nil {
			if ctx.Err() != nil {
				return d, fmt.Errorf("%w: %w", errCallerGone, err)
			}
			r.errs.Add(1)
			r.lastErr.Store(err.Error())
		}
		return d, err
	})
	if err == nil {
		r.learn(key, rate, quota, before, r.now(), d)
		return d, nil
	}
	if errors.Is(err, errCallerGone) {
		return Decision{}, err
	}
	r.fallbacks.Add(1)
	if r.policy == Deny {
		return Decision{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return r.local(ctx, key, rate, quota, before)
}

// known is what the store last said about a key.
type known struct {
	rate     Rate
	hasRate  bool
	quota    Quota
	hasQuota bool

	tat       time.Time // the rate's TAT, on this replica's clock
	rateUntil time.Time // when the rate refused: when it admits again; zero otherwise

	qEnd       time.Time // end of the quota window the figures belong to
	qRemaining int
	qRefused   bool

	until time.Time // when refused: the end of the cached refusal; zero otherwise
}

// matches reports whether k was learnt for rate and quota.
func (k *known) matches(rate *Rate, quota *Quota) bool {
	return k.hasRate == (rate != nil) && (rate == nil || k.rate == *rate) &&
		k.hasQuota == (quota != nil) && (quota == nil || k.quota == *quota)
}

// learn keeps what the store decided for key. before and after are the
// times before and after the store's Take; the store's durations count
// from an instant between them.
func (r *Resilient) learn(key string, rate *Rate, quota *Quota, before, after time.Time, d Decision) {
	if rate != nil && d.Rate != nil {
		// The local share continues from the store's TAT (late, if
		// anything: see below), or from its own if that is later.
		r.fallback.raise(key, after.Add(d.Rate.Reset))
	}
	if quota != nil && !quota.Period.window(before).Equal(quota.Period.window(after)) {
		r.known.Remove(key) // which window it counted in is not known
		return
	}
	if d.Allowed && quota == nil {
		// Nothing to keep: no refusal, and no quota to share in an outage.
		// An older refusal of the key has expired, or it would have been
		// used instead of asking the store.
		return
	}
	var k known
	if rate != nil && d.Rate != nil {
		k.rate, k.hasRate = *rate, true
		// From after, the latest instant the store's durations can count
		// from: the TAT estimate is late, if anything, which reports fewer
		// remaining requests, never more.
		k.tat = after.Add(d.Rate.Reset)
		if d.Rate.RetryAfter > 0 {
			k.rateUntil = after.Add(d.Rate.RetryAfter)
		}
	}
	if quota != nil && d.Quota != nil {
		k.quota, k.hasQuota = *quota, true
		k.qEnd = quota.Period.window(before)
		k.qRemaining = d.Quota.Remaining
		k.qRefused = d.Quota.RetryAfter > 0
	}
	if !d.Allowed {
		until := k.rateUntil
		if k.qRefused && k.qEnd.After(until) {
			until = k.qEnd
		}
		k.until = minTime(until, after.Add(r.maxDeny))
	}
	r.known.Add(key, k)
}

// refusal returns the cached refusal of key at now, if there is one for
// rate and quota.
func (r *Resilient) refusal(key string, rate *Rate, quota *Quota, now time.Time) (Decision, bool) {
	k, ok := r.known.Get(key)
	if !ok || !now.Before(k.until) || (k.hasQuota && !now.Before(k.qEnd)) {
		return Decision{}, false
	}
	if !k.matches(rate, quota) {
		r.known.Remove(key) // the key's plan changed
		return Decision{}, false
	}
	d := Decision{}
	st := new(states)
	if k.hasRate {
		g := newGCRA(k.rate)
		s := &st.rate
		s.Limit = g.limit
		s.Remaining, s.Reset = g.state(k.tat, now)
		if now.Before(k.rateUntil) {
			s.RetryAfter = k.rateUntil.Sub(now)
		}
		d.Rate = s
		d.RetryAfter = s.RetryAfter
	}
	if k.hasQuota {
		q := &st.quota
		q.Limit = k.quota.Requests
		q.Remaining = k.qRemaining
		q.Reset = k.qEnd.Sub(now)
		if k.qRefused {
			q.RetryAfter = q.Reset
			d.RetryAfter = max(d.RetryAfter, q.RetryAfter)
		}
		d.Quota = q
	}
	// now < until, and until is the later of the refusals' ends (or
	// earlier, by MaxDeny): so one of them is still running.
	return d, d.RetryAfter > 0
}

// local decides with this replica's share of the plan (the Allow policy).
func (r *Resilient) local(ctx context.Context, key string, rate *Rate, quota *Quota, now time.Time) (Decision, error) {
	m := r.fallback
	var lr *Rate
	if rate != nil {
		s := shareRate(*rate, r.replicas)
		lr = &s
	}
	if quota == nil {
		return m.Take(ctx, key, lr, nil)
	}
	left := quota.Requests
	if k, ok := r.known.Peek(key); ok && k.hasQuota && k.quota == *quota && k.qEnd.Equal(quota.Period.window(now)) {
		left = k.qRemaining
	}
	share := left / r.replicas
	if share == 0 {
		return m.refuseQuota(key, lr, *quota, now), nil
	}
	d, err := m.Take(ctx, key, lr, &Quota{Requests: share, Period: quota.Period})
	if err == nil && d.Quota != nil {
		d.Quota.Limit = quota.Requests // the plan's; Remaining is this replica's share
	}
	return d, err
}

// shareRate is 1/n of r: the same Requests per n times Per, with a burst of
// max(1, burst/n). It is r itself for n <= 1.
func shareRate(r Rate, n int) Rate {
	if n <= 1 {
		return r
	}
	if r.Per > math.MaxInt64/time.Duration(n) {
		return Rate{Requests: 1, Per: r.Per, Burst: 1}
	}
	s := Rate{Requests: r.Requests, Per: r.Per * time.Duration(n), Burst: max(1, r.burst()/n)}
	if s.Validate() != nil {
		return Rate{Requests: 1, Per: r.Per, Burst: 1}
	}
	return s
}

// raise moves key's TAT up to tat, never down. A TAT in the past is a full
// bucket, which a key without an entry has already.
func (m *Memory) raise(key string, tat time.Time) {
	now := m.now()
	if !tat.After(now) {
		return
	}
	s := m.t.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[key]
	if e == nil {
		e = new(entry)
		m.insert(s, key, e, now)
	}
	if tat.After(e.tat) {
		e.tat = tat
	}
}

// refuseQuota is the refusal of a request whose quota share is zero: the
// quota's state, and the rate's (if any) as it stands in m, taking nothing.
func (m *Memory) refuseQuota(key string, rate *Rate, quota Quota, now time.Time) Decision {
	end := quota.Period.window(now)
	st := new(states)
	q := &st.quota
	q.Limit = quota.Requests
	q.Reset = end.Sub(now)
	q.RetryAfter = q.Reset
	d := Decision{Quota: q, RetryAfter: q.RetryAfter}
	if rate != nil {
		g := newGCRA(*rate)
		s := m.t.shard(key)
		s.mu.Lock()
		var tat time.Time
		if e := s.m[key]; e != nil {
			tat = e.tat
		}
		s.mu.Unlock()
		rs := &st.rate
		rs.Limit = g.limit
		rs.Remaining, rs.Reset = g.state(tat, now)
		if _, ok, retry := g.take(tat, now); !ok {
			rs.RetryAfter = retry
			d.RetryAfter = max(d.RetryAfter, retry)
		}
		d.Rate = rs
	}
	return d
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
