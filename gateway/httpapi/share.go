package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/limit"
)

// What no plan counts is throttled in this process's memory (see
// docs/gateway.md, "Free routes are throttled"): a refused request costs a
// map lookup, and no shared store sees it. The budgets are per replica,
// which is enough to bound what a flood costs the stores and the catalog.

// throttleFree is the guard's step for a free operation (never counted
// against the plan): the key's free budget for the product.
func (a *api) throttleFree(st *state) error {
	if a.FreeKeys == nil {
		return nil
	}
	wait, ok := a.FreeKeys.Allow(st.subject())
	if ok {
		return nil
	}
	a.metrics.freeRefusals.WithLabelValues("key").Inc()
	e := apierror.New(http.StatusTooManyRequests, "Too many %s requests with your key; retry in %s.", st.op, seconds(wait))
	e.RetryAfter = wait
	return e
}

// throttleAddress is the first step of the pages and media that need no
// key: the client address's budget.
func (a *api) throttleAddress(c *gin.Context) {
	if a.FreeAddrs == nil {
		return
	}
	wait, ok := a.FreeAddrs.Allow(limit.AddrGroup(stateOf(c).clientIP(c)))
	if ok {
		return
	}
	a.metrics.freeRefusals.WithLabelValues("address").Inc()
	e := apierror.New(http.StatusTooManyRequests, "Too many requests from your address; retry in %s.", seconds(wait))
	e.RetryAfter = wait
	a.fail(c, e)
}

// holdShare waits for one of the key's slots of requests in flight, at
// most InFlightWait; the release must run when the request is done.
func (a *api) holdShare(c *gin.Context, st *state) (release func(), err error) {
	if a.InFlight == nil {
		return func() {}, nil
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), a.InFlightWait)
	defer cancel()
	release, err = a.InFlight.Acquire(ctx, st.key.ID)
	if err == nil {
		return release, nil
	}
	a.metrics.freeRefusals.WithLabelValues("in_flight").Inc()
	e := apierror.New(http.StatusTooManyRequests, "Too many of your requests are under way at once; retry in %s.", seconds(time.Second))
	e.RetryAfter = time.Second
	return nil, e
}
