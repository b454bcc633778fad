package limit

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Collector exports the figures of r (Stats), read once per scrape:
//
//   - exercisedb_gateway_limit_store_calls_total: decisions sent to the
//     shared store;
//   - exercisedb_gateway_limit_store_errors_total: those the store failed
//     to make;
//   - exercisedb_gateway_limit_fallback_total: decisions made by the
//     failure policy because the store was unavailable;
//   - exercisedb_gateway_limit_cached_refusals_total: refusals from the
//     cache of keys known to be over their limit, without the store;
//   - exercisedb_gateway_limit_store_state: the breaker's state, 0 closed,
//     1 half-open, 2 open.
func (r *Resilient) Collector() prometheus.Collector {
	return &collector{
		r: r,
		calls: prometheus.NewDesc("exercisedb_gateway_limit_store_calls_total",
			"Rate limit decisions sent to the shared store (Redis).", nil, nil),
		errors: prometheus.NewDesc("exercisedb_gateway_limit_store_errors_total",
			"Rate limit decisions the shared store (Redis) failed to make.", nil, nil),
		fallbacks: prometheus.NewDesc("exercisedb_gateway_limit_fallback_total",
			"Rate limit decisions made by rate_limit.on_store_error because the shared store was unavailable.", nil, nil),
		cached: prometheus.NewDesc("exercisedb_gateway_limit_cached_refusals_total",
			"Requests refused from this replica's cache of keys known to be over their limit, without asking the shared store.", nil, nil),
		state: prometheus.NewDesc("exercisedb_gateway_limit_store_state",
			"State of the circuit breaker in front of the shared store: 0 closed, 1 half-open, 2 open (store unavailable).", nil, nil),
	}
}

// collector is the prometheus.Collector of a Resilient.
type collector struct {
	r                                       *Resilient
	calls, errors, fallbacks, cached, state *prometheus.Desc
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.calls
	ch <- c.errors
	ch <- c.fallbacks
	ch <- c.cached
	ch <- c.state
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.r.Stats()
	ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(s.Calls))
	ch <- prometheus.MustNewConstMetric(c.errors, prometheus.CounterValue, float64(s.Errors))
	ch <- prometheus.MustNewConstMetric(c.fallbacks, prometheus.CounterValue, float64(s.Fallbacks))
	ch <- prometheus.MustNewConstMetric(c.cached, prometheus.CounterValue, float64(s.Cached))
	ch <- prometheus.MustNewConstMetric(c.state, prometheus.GaugeValue, float64(s.State))
}
