package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/limit"
)

// The JSON shape of /api/v1/usage (docs/api.md, "Your usage").
type (
	usageBody struct {
		Success bool      `json:"success"`
		Data    usageJSON `json:"data"`
	}
	usageJSON struct {
		Product string     `json:"product"`
		Plan    string     `json:"plan"`
		Rate    *rateJSON  `json:"rate"`  // null when the plan has no rate
		Quota   *quotaJSON `json:"quota"` // null when the plan has no quota
		Today   countJSON  `json:"today"`
		Month   countJSON  `json:"month"`
	}
	rateJSON struct {
		Limit        int `json:"limit"`
		Remaining    int `json:"remaining"`
		ResetSeconds int `json:"resetSeconds"`
	}
	quotaJSON struct {
		Limit        int `json:"limit"`
		Used         int `json:"used"`
		Remaining    int `json:"remaining"`
		ResetSeconds int `json:"resetSeconds"`
	}
	countJSON struct {
		Requests int64 `json:"requests"`
	}
)

// subject is what the limits of the request's key and product are counted
// under.
func (st *state) subject() string { return st.product.Name + "/" + st.key.ID }

// usage answers the caller's own figures: its limits as they stand, read
// without taking from them (the guard counted nothing either) and sent in
// the rate limit headers as well as the body, and its requests today and
// this month (UTC) from the meter. Never cached: the figures change with
// every request.
func (a *api) usage(c *gin.Context) {
	st := stateOf(c)
	p := st.plan
	data := usageJSON{Product: st.product.Name, Plan: p.Name}
	if p.Limited() {
		peeker, ok := a.Limits.(limit.Peeker)
		if !ok {
			a.fail(c, apierror.Internal(fmt.Errorf("limit store %T cannot peek", a.Limits)))
			return
		}
		d, err := peeker.Peek(c, st.subject(), p.Rate, p.Quota)
		if err != nil {
			// As in takeLimits: an outage of the store is logged by it, once.
			if errors.Is(err, limit.ErrUnavailable) {
				err = nil
			}
			a.fail(c, apierror.Unavailable(time.Second, err, "Your limits cannot be read right now; retry in a second."))
			return
		}
		a.limitHeaders(c.Writer.Header(), p, d)
		if r := d.Rate; r != nil {
			data.Rate = &rateJSON{Limit: r.Limit, Remaining: r.Remaining, ResetSeconds: limit.Seconds(r.Reset)}
		}
		if q := d.Quota; q != nil {
			data.Quota = &quotaJSON{Limit: q.Limit, Used: max(q.Limit-q.Remaining, 0), Remaining: q.Remaining, ResetSeconds: limit.Seconds(q.Reset)}
		}
	}
	// After the limits are read, as the order of checks puts the query
	// last, so that a 400 carries their headers too.
	if err := noQuery(c.Request.URL.RawQuery); err != nil {
		a.fail(c, err)
		return
	}
	if a.Usage != nil {
		today, month, err := a.Usage.Totals(c, st.key.ID, st.product.Name, st.key.CreatedAt)
		if err != nil {
			a.fail(c, apierror.Unavailable(time.Second, err, "Your usage cannot be read right now; retry in a second."))
			return
		}
		data.Today.Requests, data.Month.Requests = today, month
	}
	body, err := encode(usageBody{Success: true, Data: data})
	if err != nil {
		a.fail(c, apierror.Internal(err))
		return
	}
	c.Header("Cache-Control", "no-store")
	writeJSON(c, http.StatusOK, body)
}
