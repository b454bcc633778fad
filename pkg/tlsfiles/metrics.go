package tlsfiles

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Collector exports the reloads of s and the expiry of the certificate in
// use, labelled files=name (the gateway's "public" certificate and its
// "catalog" client certificate, the catalog's "grpc" listener; one
// registry may hold several):
//
//   - exercisedb_tls_reloads_total{result}: ok when a reload put new
//     material in use, error when the files were refused; a reload that
//     changes nothing is not counted;
//   - exercisedb_tls_last_reload_successful: 0 while the files on disk are
//     refused and the previous material stays in use, so that a rotation
//     that keeps failing (a key that does not match its certificate, a
//     file left half written) shows on a dashboard, not only in the log;
//     a rotation done in two steps fails for a moment, so alert on it
//     lasting, not on the counter;
//   - exercisedb_tls_certificate_expiry_timestamp_seconds: the NotAfter of
//     the certificate in use (absent without a certificate file), so that
//     a certificate no one renews is seen before it expires.
func (s *Source) Collector(name string) prometheus.Collector {
	labels := prometheus.Labels{"files": name}
	return &collector{
		s: s,
		reloads: prometheus.NewDesc("exercisedb_tls_reloads_total",
			"Reloads of the TLS files, by result: ok when new material was put in use, error when the files were refused.",
			[]string{"result"}, labels),
		lastReload: prometheus.NewDesc("exercisedb_tls_last_reload_successful",
			"Whether the TLS files loaded when last read: 0 while the files on disk are refused and the previous material stays in use.",
			nil, labels),
		expiry: prometheus.NewDesc("exercisedb_tls_certificate_expiry_timestamp_seconds",
			"When the certificate in use expires (its NotAfter), in seconds since the Unix epoch.",
			nil, labels),
	}
}

// collector is the prometheus.Collector of a Source.
type collector struct {
	s                           *Source
	reloads, lastReload, expiry *prometheus.Desc
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.reloads
	ch <- c.lastReload
	ch <- c.expiry
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.reloads, prometheus.CounterValue, float64(c.s.reloadsOK.Load()), "ok")
	ch <- prometheus.MustNewConstMetric(c.reloads, prometheus.CounterValue, float64(c.s.reloadsFailed.Load()), "error")
	last := 1.0
	if c.s.failing.Load() {
		last = 0
	}
	ch <- prometheus.MustNewConstMetric(c.lastReload, prometheus.GaugeValue, last)
	if m := c.s.cur.Load(); m.cert != nil {
		ch <- prometheus.MustNewConstMetric(c.expiry, prometheus.GaugeValue, float64(m.cert.Leaf.NotAfter.Unix()))
	}
}
