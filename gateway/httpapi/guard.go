package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/queryparam"
	"github.com/exercisedb/exercisedb/pkg/english"
)

// Request headers of the marketplace.
const (
	headerKey  = "X-Gateway-Key"
	headerHost = "X-Gateway-Host"
)

// guard applies the contract's order of checks (docs/errors.md) before an operation: product
// (404), key (401, and 429 for addresses that fail too often), plan access
// (403), rate limit and quota (429; for a free operation, the key's free
// budget instead), then the key's share of requests in flight (429 after
// waiting for a slot too long). The route itself (404/405) was checked by
// the router.
func (a *api) guard(op plan.Operation) gin.HandlerFunc {
	return func(c *gin.Context) {
		st := stateOf(c)
		st.op = op
		err := a.resolveProduct(c, st)
		if err == nil {
			err = a.authenticate(c, st)
		}
		if err == nil {
			if err = a.authorize(st, op); err != nil && st.plan != nil {
				a.showLimits(c, st)
			}
		}
		if err == nil && op.Free() {
			err = a.throttleFree(st)
		}
		if err == nil && !op.Free() {
			err = a.takeLimits(c, st)
		}
		var release func()
		if err == nil {
			release, err = a.holdShare(c, st)
		}
		if err != nil {
			a.fail(c, err)
			return
		}
		defer release()
		c.Next()
	}
}

// resolveProduct finds the product from X-Gateway-Host, else Host. Two
// X-Gateway-Host headers name no one product.
func (a *api) resolveProduct(c *gin.Context, st *state) error {
	hosts := c.Request.Header.Values(headerHost)
	if len(hosts) > 1 {
		return apierror.New(http.StatusNotFound, "%s is sent %d times; send the product's host once.", headerHost, len(hosts))
	}
	host := ""
	if len(hosts) == 1 {
		host = hosts[0]
	}
	if host == "" {
		host = c.Request.Host
	}
	product, ok := a.Products.ByHost(host)
	if !ok {
		return apierror.New(http.StatusNotFound, "No product is served at host %s; check the %s header.", queryparam.Show(host), headerHost)
	}
	st.product = product
	return nil
}

// authenticate checks the key. A valid key passes whatever others sent from
// its address (an office NAT, a carrier's): only failures are charged to the
// address's budget, and a failure over it is 429 instead of 401 (see
// docs/keys.md on why this still serves against guessing). Two keys
// are no key: which one pays is not the gateway's guess to make.
func (a *api) authenticate(c *gin.Context, st *state) error {
	sent := c.Request.Header.Values(headerKey)
	presented := ""
	if len(sent) > 0 {
		presented = sent[0]
	}
	var msg, reason string
	key, found := a.Keys().Lookup(presented)
	switch {
	case len(sent) > 1:
		msg, reason = fmt.Sprintf("%s is sent %d times; send one key.", headerKey, len(sent)), "invalid"
	case presented == "":
		msg, reason = "Missing API key: send it in the "+headerKey+" header.", "missing"
	case !found:
		msg, reason = "Invalid API key.", "invalid"
	case key.Disabled:
		msg, reason = "This API key is disabled.", "disabled"
	case key.Expired(a.Now()):
		msg, reason = "This API key expired at "+key.ExpiresAt.UTC().Format(time.RFC3339)+".", "expired"
	default:
		st.key = key
		return nil
	}
	// An expired key was issued to someone: nobody guesses one, and its
	// owner's old script should keep reading why it stopped working.
	if reason == "expired" {
		a.metrics.authFailures.WithLabelValues(reason).Inc()
		return apierror.New(http.StatusUnauthorized, "%s", msg)
	}
	if wait, blocked := a.Failures.Fail(c, st.clientIP(c)); blocked {
		a.metrics.authFailures.WithLabelValues("blocked").Inc()
		e := apierror.New(http.StatusTooManyRequests, "Too many failed authentications from your address; retry in %s.", seconds(wait))
		e.RetryAfter = wait
		return e
	}
	a.metrics.authFailures.WithLabelValues(reason).Inc()
	return apierror.New(http.StatusUnauthorized, "%s", msg)
}

// authorize finds the key's plan for the product and checks the operation.
func (a *api) authorize(st *state, op plan.Operation) error {
	product, key := st.product, st.key
	planName, subscribed := key.Products[product.Name]
	if !subscribed {
		return apierror.New(http.StatusForbidden, "Your API key has no subscription to the product %s.", product.Name)
	}
	p, ok := product.Plan(planName)
	if !ok {
		return &apierror.Error{Status: http.StatusForbidden, Code: apierror.CodeForbidden,
			Message: fmt.Sprintf("Your plan %s is not offered by the product %s.", planName, product.Name),
			Err:     fmt.Errorf("key %s names plan %q, which product %s does not configure", key.ID, planName, product.Name)}
	}
	st.plan = p
	if !p.Allows(op) {
		return apierror.New(http.StatusForbidden, "Your %s plan does not include the %s operation.", p.Name, op)
	}
	return nil
}

// takeLimits counts the request against the plan's rate limit and quota,
// per key and product, and sets the headers that describe them.
func (a *api) takeLimits(c *gin.Context, st *state) error {
	p := st.plan
	if !p.Limited() {
		return nil
	}
	d, err := a.Limits.Take(c, st.subject(), p.Rate, p.Quota)
	if err != nil {
		// A store that is known to be down logged that once already; any
		// other failure goes to the log with the request.
		if errors.Is(err, limit.ErrUnavailable) {
			err = nil
		}
		return apierror.Unavailable(time.Second, err, "Rate limits cannot be checked right now; retry in a second.")
	}
	a.limitHeaders(c.Writer.Header(), p, d)
	a.metrics.limits.WithLabelValues(st.product.Name, p.Name, decisionResult(d)).Inc()
	if !d.Allowed {
		e := apierror.New(http.StatusTooManyRequests, "%s", refusal(p, d, a.Now()))
		e.RetryAfter = d.RetryAfter
		return e
	}
	return nil
}

// showLimits sets the limit headers of a request its plan refuses before
// the limits are consulted (an operation the plan lacks): the contract wants them
// on every authenticated response of a limited plan, and refused requests
// are not counted, so they are read, not taken. A store that cannot be
// read leaves them out rather than turn the 403 into a 503; its outage is
// logged by the store.
func (a *api) showLimits(c *gin.Context, st *state) {
	p := st.plan
	peeker, ok := a.Limits.(limit.Peeker)
	if !p.Limited() || !ok {
		return
	}
	if d, err := peeker.Peek(c, st.subject(), p.Rate, p.Quota); err == nil {
		a.limitHeaders(c.Writer.Header(), p, d)
	}
}

// refusal explains a 429 decided at now in terms of the plan. A quota
// renews at a window boundary, which is named exactly (UTC, to the
// second), after a rough count of days and hours a person can read;
// Retry-After and the X-RateLimit headers carry the seconds.
func refusal(p *plan.Plan, d limit.Decision, now time.Time) string {
	if d.Quota != nil && d.Quota.RetryAfter > 0 {
		// Rounded, so that a store whose clock read a moment before now
		// still names the boundary.
		at := now.Add(d.Quota.Reset).Round(time.Second)
		return fmt.Sprintf("Your %s plan's quota of %s per %s is used up; it renews in %s (at %s).",
			p.Name, english.Count(p.Quota.Requests, "request"), p.Quota.Period, roughly(at.Sub(now)), at.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("Your %s plan allows %s per %s; retry in %s.",
		p.Name, english.Count(p.Rate.Requests, "request"), p.Rate.Per, seconds(d.RetryAfter))
}

// limitHeaders sets the rate limit headers the contract names: the
// marketplace's X-RateLimit-* and the IETF draft's RateLimit-Policy and
// RateLimit (draft-ietf-httpapi-ratelimit-headers, structured fields).
func (a *api) limitHeaders(h http.Header, p *plan.Plan, d limit.Decision) {
	var policies, states []string
	if r := d.Rate; r != nil {
		h.Set("X-RateLimit-Limit", strconv.Itoa(r.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(r.Remaining))
		h.Set("X-RateLimit-Reset", strconv.Itoa(limit.Seconds(r.Reset)))
		policies = append(policies, fmt.Sprintf(`"rate";q=%d;w=%d`, r.Limit, max(1, limit.Seconds(p.Rate.Per))))
		states = append(states, fmt.Sprintf(`"rate";r=%d;t=%d`, r.Remaining, limit.Seconds(r.Reset)))
	}
	if q := d.Quota; q != nil {
		h.Set("X-RateLimit-Requests-Limit", strconv.Itoa(q.Limit))
		h.Set("X-RateLimit-Requests-Remaining", strconv.Itoa(q.Remaining))
		h.Set("X-RateLimit-Requests-Reset", strconv.Itoa(limit.Seconds(q.Reset)))
		policies = append(policies, fmt.Sprintf(`"quota";q=%d;w=%d`, q.Limit, a.quotaWindow(p.Quota.Period)))
		states = append(states, fmt.Sprintf(`"quota";r=%d;t=%d`, q.Remaining, limit.Seconds(q.Reset)))
	}
	h.Set("RateLimit-Policy", strings.Join(policies, ", "))
	h.Set("RateLimit", strings.Join(states, ", "))
}

// quotaWindow is the length in seconds of the current quota window: a UTC
// day, or the current UTC month.
func (a *api) quotaWindow(period limit.Period) int {
	if period == limit.Day {
		return 24 * 60 * 60
	}
	now := a.Now().UTC()
	days := time.Date(now.Year(), now.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return days * 24 * 60 * 60
}

// decisionResult names a decision for the metrics.
func decisionResult(d limit.Decision) string {
	switch {
	case d.Allowed:
		return "allowed"
	case d.Quota != nil && d.Quota.RetryAfter > 0:
		return "quota_exhausted"
	default:
		return "rate_limited"
	}
}
