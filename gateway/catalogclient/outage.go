package catalogclient

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// settle is how long calls must go without failing before an outage is
// over: a catalog that fails now and then (one replica of several down,
// or overloaded) is one outage, not a pair of log lines per failure.
const settle = time.Second

// outages follows the catalog's availability as the calls see it, so that
// an outage is logged once when it starts and once when it ends, however
// many calls fail in between, and is counted in metrics.
type outages struct {
	log       *slog.Logger
	errors    *prometheus.CounterVec // failed calls, by code
	started   prometheus.Counter
	available prometheus.Gauge

	down atomic.Bool // read without the lock on every successful call

	mu        sync.Mutex
	start     time.Time // first failure of the outage
	lastFail  time.Time
	recovered time.Time // first success since lastFail; zero if none
	failed    uint64    // calls failed in the outage
}

func newOutages() *outages {
	o := &outages{
		log: slog.New(slog.DiscardHandler),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_catalog_errors_total",
			Help: "Catalog calls that failed because the catalog was unreachable, too slow or overloaded, by gRPC code.",
		}, []string{"code"}),
		started: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "exercisedb_gateway_catalog_outages_total",
			Help: "Catalog outages: runs of failed calls without a second free of failures.",
		}),
		available: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "exercisedb_gateway_catalog_available",
			Help: "1 unless the catalog calls are in an outage, then 0.",
		}),
	}
	o.available.Set(1)
	return o
}

// unavailable reports whether err says the catalog could not answer: the
// errors the gateway answers with 503. Canceled is left out: the caller
// left, which says nothing of the catalog.
func unavailable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted:
		return true
	}
	return false
}

// record notes how a call ended; err is its gRPC error, nil on success.
func (o *outages) record(err error) {
	if unavailable(err) {
		o.errors.WithLabelValues(status.Code(err).String()).Inc()
		o.failure(err)
		return
	}
	if status.Code(err) != codes.Canceled && o.down.Load() {
		o.answered()
	}
}

func (o *outages) failure(err error) {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lastFail, o.recovered = now, time.Time{}
	o.failed++
	if o.down.Load() {
		return
	}
	o.down.Store(true)
	o.start, o.failed = now, 1
	o.started.Inc()
	o.available.Set(0)
	o.log.Error("catalog unavailable", slog.String("error", err.Error()))
}

// answered ends the outage once calls have been answered for settle.
func (o *outages) answered() {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.down.Load() {
		return
	}
	if o.recovered.IsZero() {
		o.recovered = now
	}
	if now.Sub(o.lastFail) < settle {
		return
	}
	o.down.Store(false)
	o.available.Set(1)
	o.log.Info("catalog available again", slog.Duration("outage", o.recovered.Sub(o.start)),
		slog.Uint64("failed", o.failed))
}
