package httpapi

import (
	"crypto/rand"
	"encoding/base32"
	"log/slog"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/respcache"
)

// state is what the chain learns about a request, kept under one context
// key (one map entry per request rather than one per fact).
type state struct {
	requestID string
	product   *plan.Product  // nil until the guard resolves it
	key       keys.Key       // zero until the key is checked
	plan      *plan.Plan     // nil until the guard resolves it
	cacheKey  string         // set when the response may be cached
	op        plan.Operation // set by the guard
}

const keyState = "exercisedb.state"

func stateOf(c *gin.Context) *state {
	if st, ok := c.Get(keyState); ok {
		return st.(*state)
	}
	return &state{} // not reached: requestID runs first
}

func (st *state) productName() string {
	if st.product == nil {
		return ""
	}
	return st.product.Name
}

func (st *state) planName() string {
	if st.plan == nil {
		return ""
	}
	return st.plan.Name
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// requestID gives every request an id of the form req_<id>, generated here
// (an id sent by the client is not trusted), and returns it in X-Request-Id.
func (a *api) requestID(c *gin.Context) {
	var b [10]byte
	_, _ = rand.Read(b[:])
	id := "req_" + idEncoding.EncodeToString(b[:])
	c.Set(keyState, &state{requestID: id})
	c.Header("X-Request-Id", id)
	c.Next()
}

func requestIDOf(c *gin.Context) string { return stateOf(c).requestID }

// metrics are the request metrics of the public API.
type metrics struct {
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	limits       *prometheus.CounterVec
	authFailures *prometheus.CounterVec
	cache        *prometheus.CounterVec
}

// newMetrics registers the request metrics in reg, if not nil, with the
// response cache's size when there is a cache.
func newMetrics(reg prometheus.Registerer, cache *respcache.Cache) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_requests_total",
			Help: "Requests answered, by route, product, plan and status.",
		}, []string{"route", "product", "plan", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "exercisedb_gateway_request_duration_seconds",
			Help:    "Time to answer a request, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"}),
		limits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_limit_decisions_total",
			Help: "Rate limit and quota decisions of limited plans, by product, plan and result (allowed, rate_limited, quota_exhausted).",
		}, []string{"product", "plan", "result"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_auth_failures_total",
			Help: "Requests refused before authentication, by reason (missing, invalid, disabled, blocked).",
		}, []string{"reason"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_response_cache_total",
			Help: "Response cache lookups, by result (hit, miss).",
		}, []string{"result"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.limits, m.authFailures, m.cache)
	}
	if reg != nil && cache != nil {
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "exercisedb_gateway_response_cache_bytes",
				Help: "Bytes the response cache holds (keys, entity tags, bodies in every coding), bounded by response_cache.max_bytes.",
			}, func() float64 { return float64(cache.Bytes()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "exercisedb_gateway_response_cache_entries",
				Help: "Responses the response cache holds, bounded by response_cache.max_entries.",
			}, func() float64 { return float64(cache.Len()) }),
		)
	}
	return m
}

// observe writes one access log line per request and counts it. The key
// is never logged: only its id.
func (a *api) observe(c *gin.Context) {
	start := time.Now()
	c.Next()
	elapsed := time.Since(start)
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	status := c.Writer.Status()
	st := stateOf(c)
	product, planName := st.productName(), st.planName()
	a.metrics.requests.WithLabelValues(route, product, planName, strconv.Itoa(status)).Inc()
	a.metrics.latency.WithLabelValues(route).Observe(elapsed.Seconds())
	// Reading one's usage is free and must not move it.
	if a.Usage != nil && st.key.ID != "" && st.product != nil && !st.op.Free() {
		a.Usage.Record(a.Now(), st.key.ID, product, status)
	}
	if !a.Log.Enabled(c, slog.LevelInfo) {
		return
	}
	a.Log.LogAttrs(c, slog.LevelInfo, "request",
		slog.String("request_id", st.requestID),
		slog.String("method", c.Request.Method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Duration("duration", elapsed),
		slog.Int("bytes", max(0, c.Writer.Size())),
		slog.String("product", product),
		slog.String("key_id", st.key.ID),
		slog.String("plan", planName),
		slog.String("client", c.ClientIP()),
	)
}
