package httpapi

import (
	"encoding/base32"
	"encoding/binary"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/respcache"
	"github.com/exercisedb/exercisedb/pkg/bytecache"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// state is what the chain learns about a request, kept in its response
// writer (see stateWriter).
type state struct {
	requestID string
	idHeader  [1]string     // requestID as the X-Request-Id header holds it
	product   *plan.Product // nil until the guard resolves it
	key       keys.Key      // zero until the key is checked
	plan      *plan.Plan    // nil until the guard resolves it
	cacheKey  string        // set when the response may be cached
	// cacheAlias is the cache key of a listing's query as sent, set when
	// no alias has it.
	cacheAlias string
	op         plan.Operation // set by the guard
	// unmatched: the router matched a route that the path does not spell
	// exactly (see exactPath).
	unmatched bool
	client    string // see clientIP
}

// stateWriter is a request's response writer with its state: one
// allocation for both, where a context key would cost gin's map of keys
// (made per request) and a map lookup for every stateOf.
type stateWriter struct {
	gin.ResponseWriter
	state
}

func stateOf(c *gin.Context) *state {
	if w, ok := c.Writer.(*stateWriter); ok {
		return &w.state
	}
	return &state{} // not reached: requestID runs first
}

// clientIP returns the client's address, weighing the trusted proxies
// (gin's ClientIP), worked out once for the throttles and the access log.
func (st *state) clientIP(c *gin.Context) string {
	if st.client == "" {
		st.client = c.ClientIP()
	}
	return st.client
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
// An id must be unique, not secret: its 80 bits come from the runtime's
// per-thread ChaCha8 generator rather than a getrandom system call.
func (a *api) requestID(c *gin.Context) {
	w := &stateWriter{ResponseWriter: c.Writer}
	w.requestID = newRequestID()
	w.idHeader[0] = w.requestID
	c.Writer = w
	w.Header()["X-Request-Id"] = w.idHeader[:] // canonical key; a slice of cap 1, so an Add copies it
	c.Next()
}

// newRequestID returns a fresh id: req_ and 16 base32 characters.
func newRequestID() string {
	var b [10]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	binary.LittleEndian.PutUint16(b[8:], uint16(rand.Uint32()))
	var id [len("req_") + 16]byte
	copy(id[:], "req_")
	idEncoding.Encode(id[len("req_"):], b[:])
	return string(id[:])
}

func requestIDOf(c *gin.Context) string { return stateOf(c).requestID }

// metrics are the request metrics of the public API.
type metrics struct {
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	limits       *prometheus.CounterVec
	authFailures *prometheus.CounterVec
	cache        *prometheus.CounterVec
	freeRefusals *prometheus.CounterVec
	// cacheHit and cacheMiss are cache's children; series those of
	// requests and latency, by route, product, plan and status, resolved
	// once (WithLabelValues hashes its labels on every call).
	cacheHit, cacheMiss prometheus.Counter
	mu                  sync.RWMutex
	series              map[seriesKey]*series
}

type seriesKey struct {
	route, product, plan string
	status               int
}

type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// seriesOf returns the request metrics' children for k.
func (m *metrics) seriesOf(k seriesKey) *series {
	m.mu.RLock()
	s := m.series[k]
	m.mu.RUnlock()
	if s != nil {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s = m.series[k]; s == nil {
		s = &series{
			requests: m.requests.WithLabelValues(k.route, k.product, k.plan, strconv.Itoa(k.status)),
			latency:  m.latency.WithLabelValues(k.route),
		}
		m.series[k] = s
	}
	return s
}

// newMetrics registers the request metrics in reg, if not nil, with the
// response cache's size when there is a cache.
func newMetrics(reg prometheus.Registerer, cache *respcache.Cache, media *bytecache.Cache[string, *MediaFile]) *metrics {
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
			Help: "Requests refused before authentication, by reason (missing, invalid, disabled, expired, blocked).",
		}, []string{"reason"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_response_cache_total",
			Help: "Response cache lookups, by result (hit, miss).",
		}, []string{"result"}),
		freeRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_local_refusals_total",
			Help: "Requests refused from this replica's memory alone, by limit (key: a key's free operations; address: pages and media per client address; in_flight: a key's requests under way at once).",
		}, []string{"limit"}),
		series: map[seriesKey]*series{},
	}
	m.cacheHit, m.cacheMiss = m.cache.WithLabelValues("hit"), m.cache.WithLabelValues("miss")
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.limits, m.authFailures, m.cache, m.freeRefusals)
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
	if reg != nil && media != nil {
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "exercisedb_gateway_media_cache_bytes",
				Help: "Bytes of the media files the gateway holds, bounded by media.cache.max_bytes.",
			}, func() float64 { return float64(media.Bytes()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "exercisedb_gateway_media_cache_max_bytes",
				Help: "The bound of exercisedb_gateway_media_cache_bytes, media.cache.max_bytes.",
			}, func() float64 { return float64(media.MaxBytes()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "exercisedb_gateway_media_cache_entries",
				Help: "Media files the gateway holds, bounded by media.cache.max_entries.",
			}, func() float64 { return float64(media.Len()) }),
		)
	}
	return m
}

// observe writes one access log line per request and counts it. The key
// is never logged: only its id.
func (a *api) observe(c *gin.Context) {
	start := time.Now()
	c.Next()
	end := time.Now()
	elapsed := end.Sub(start)
	st := stateOf(c)
	route := c.FullPath()
	if route == "" || st.unmatched {
		route = "unmatched"
	}
	status := c.Writer.Status()
	product, planName := st.productName(), st.planName()
	m := a.metrics.seriesOf(seriesKey{route, product, planName, status})
	m.requests.Inc()
	m.latency.Observe(elapsed.Seconds())
	// Reading one's usage is free and must not move it.
	if a.Usage != nil && st.key.ID != "" && st.product != nil && !st.op.Free() {
		a.Usage.Record(a.Now(), st.key.ID, product, status)
	}
	if !a.AccessLog.Enabled(c, slog.LevelInfo) {
		return
	}
	a.AccessLog.Request(c, logging.Request{
		ID:       st.requestID,
		Method:   c.Request.Method,
		Route:    route,
		Status:   status,
		Duration: elapsed,
		Bytes:    max(0, c.Writer.Size()),
		Product:  product,
		KeyID:    st.key.ID,
		Plan:     planName,
		Client:   st.clientIP(c),
		End:      end,
	})
}
