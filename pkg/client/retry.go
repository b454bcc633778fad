package client

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RetryPolicy says how a GET refused with 429 TOO_MANY_REQUESTS or 503
// SERVICE_UNAVAILABLE is sent again. Every call of the API is a GET, and
// so safe to repeat.
type RetryPolicy struct {
	// Attempts is the number of times a request is sent, the first
	// included: 1 sends it once and never retries.
	Attempts int
	// Backoff is the wait before the first retry when the response names
	// none (no Retry-After); it doubles with each retry, up to MaxBackoff.
	// A random jitter of up to half of it is added to every wait, so that
	// clients refused together do not come back together.
	Backoff, MaxBackoff time.Duration
	// MaxWait is the longest wait the client accepts: a Retry-After longer
	// than this (an exhausted daily quota, say) ends the call with the
	// error at once rather than blocking it for hours.
	MaxWait time.Duration
}

// DefaultRetryPolicy is the policy of a client made without WithRetry.
var DefaultRetryPolicy = RetryPolicy{Attempts: 5, Backoff: 250 * time.Millisecond, MaxBackoff: 8 * time.Second, MaxWait: time.Minute}

// WithRetry sets how refused requests are retried; RetryPolicy{Attempts: 1}
// turns retries off.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}

// Pacing says which calls wait for the plan's rate limit before sending.
type Pacing int

const (
	// PaceIterators, the default, makes the iterators (Exercises and the
	// like) wait between pages for as long as the last response's rate
	// limit headers say no request is admissible, so that a walk over a
	// whole listing keeps to the plan's rate instead of running into 429.
	PaceIterators Pacing = iota
	// PaceAlways makes every call wait so.
	PaceAlways
	// PaceNever sends every request at once; refusals are still retried
	// as the RetryPolicy says.
	PaceNever
)

// WithPacing sets which calls wait for the rate limit.
func WithPacing(p Pacing) Option {
	return func(c *Client) { c.pacing = p }
}

// pacer remembers, from the responses' rate limit headers, when the next
// request will be admitted. It is shared by every call of a Client, since
// the gateway counts them all against one key.
type pacer struct {
	mu   sync.Mutex
	next time.Time // zero: admissible now
}

// observe reads the rate limit state of a response received at now.
func (p *pacer) observe(h http.Header, now time.Time) {
	wait := rateWait(h)
	p.mu.Lock()
	defer p.mu.Unlock()
	if wait > 0 {
		p.next = now.Add(wait)
	} else {
		p.next = time.Time{}
	}
}

// delay is how long a request sent at now should wait.
func (p *pacer) delay(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(0, p.next.Sub(now))
}

// rateWait is the wait before the next request that a response's
// RateLimit and RateLimit-Policy fields (the IETF draft the gateway
// follows) imply: none while the rate policy has requests remaining,
// else the time in which one more is admitted (its window over its
// quota: 50ms for 20 requests a second). Quota policies are left out: an
// exhausted quota is for the refusal's Retry-After to tell.
func rateWait(h http.Header) time.Duration {
	remaining, ok := sfParam(h.Get("RateLimit"), "rate", "r")
	if !ok || remaining > 0 {
		return 0
	}
	q, okQ := sfParam(h.Get("RateLimit-Policy"), "rate", "q")
	w, okW := sfParam(h.Get("RateLimit-Policy"), "rate", "w")
	if !okQ || !okW || q <= 0 || w <= 0 {
		return 0
	}
	return time.Duration(w) * time.Second / time.Duration(q)
}

// sfParam reads the integer parameter param of the item named name in a
// structured field list such as `"rate";r=3;t=1, "quota";r=9;t=60`.
func sfParam(field, name, param string) (int, bool) {
	for _, item := range strings.Split(field, ",") {
		parts := strings.Split(strings.TrimSpace(item), ";")
		if strings.Trim(parts[0], `"`) != name {
			continue
		}
		for _, kv := range parts[1:] {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if ok && k == param {
				n, err := strconv.Atoi(v)
				return n, err == nil
			}
		}
	}
	return 0, false
}

// retryDelay is the wait before retry number n (0 for the first) of a
// request refused with retryAfter (zero when it named none).
func (p RetryPolicy) retryDelay(n int, retryAfter time.Duration, jitter func(time.Duration) time.Duration) time.Duration {
	b := p.Backoff
	for range n {
		if b >= p.MaxBackoff {
			break
		}
		b *= 2
	}
	b = min(b, max(p.MaxBackoff, p.Backoff))
	return max(retryAfter, b) + jitter(b/2)
}

// randomJitter returns a random duration in [0, d).
func randomJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

// sleep waits for d unless ctx ends first. A wait that would outlast
// ctx's deadline is not begun: it fails at once.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return fmt.Errorf("client: waiting %v for the rate limit would pass the context's deadline: %w", d.Round(time.Millisecond), context.DeadlineExceeded)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
