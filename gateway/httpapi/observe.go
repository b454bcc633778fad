package httpapi

import (
	"crypto/rand"
	"encoding/base32"
	"log/slog"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

// Context keys of what the guard learns about a request.
const (
	keyRequestID = "exercisedb.request_id"
	keyProduct   = "exercisedb.product"
	keyKeyID     = "exercisedb.key_id"
	keyPlan      = "exercisedb.plan"
)

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// requestID gives every request an id of the form req_<id>, generated here
// (an id sent by the client is not trusted), and returns it in X-Request-Id.
func (a *api) requestID(c *gin.Context) {
	var b [10]byte
	_, _ = rand.Read(b[:])
	id := "req_" + idEncoding.EncodeToString(b[:])
	c.Set(keyRequestID, id)
	c.Header("X-Request-Id", id)
	c.Next()
}

func requestIDOf(c *gin.Context) string { return c.GetString(keyRequestID) }

// metrics are the request metrics of the public API.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
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
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency)
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
	product, plan := c.GetString(keyProduct), c.GetString(keyPlan)
	a.metrics.requests.WithLabelValues(route, product, plan, strconv.Itoa(status)).Inc()
	a.metrics.latency.WithLabelValues(route).Observe(elapsed.Seconds())
	a.Log.LogAttrs(c, slog.LevelInfo, "request",
		slog.String("request_id", requestIDOf(c)),
		slog.String("method", c.Request.Method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Duration("duration", elapsed),
		slog.Int("bytes", max(0, c.Writer.Size())),
		slog.String("product", product),
		slog.String("key_id", c.GetString(keyKeyID)),
		slog.String("plan", plan),
		slog.String("client", c.ClientIP()),
	)
}
