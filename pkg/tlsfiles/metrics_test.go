package tlsfiles

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/internal/testcerts"
)

// series gathers reg as "name{label=value,...}" → value.
func series(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			key := fmt.Sprintf("%s{%s}", f.GetName(), strings.Join(labels, ","))
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			}
		}
	}
	return out
}

// TestMetrics: a reload that fails, as when a rotation is half done, is
// counted and shown by the last-reload gauge until the files load again;
// the expiry gauge follows the certificate in use.
func TestMetrics(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.NewCA(t, "ca")
	first, second := ca.Server(t, "catalog"), ca.Server(t, "catalog")
	cert, key := first.Write(t, dir, "server")
	log, _ := newLog()
	s, err := Load(Files{CertFile: cert, KeyFile: key}, log)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(s.Collector("public"))
	expiry := func(p testcerts.Pair) float64 { return float64(p.TLS(t).Leaf.NotAfter.Unix()) }
	check := func(when string, ok, failed, last, notAfter float64) {
		t.Helper()
		want := map[string]float64{
			`exercisedb_tls_reloads_total{files=public,result=ok}`:              ok,
			`exercisedb_tls_reloads_total{files=public,result=error}`:           failed,
			`exercisedb_tls_last_reload_successful{files=public}`:               last,
			`exercisedb_tls_certificate_expiry_timestamp_seconds{files=public}`: notAfter,
		}
		if diff := cmp.Diff(want, series(t, reg)); diff != "" {
			t.Errorf("%s: metrics (-want +got):\n%s", when, diff)
		}
	}
	check("at start", 0, 0, 1, expiry(first))

	testcerts.WriteFile(t, key, second.KeyPEM) // the key first: the pair does not match yet
	if err := s.Reload(); err == nil {
		t.Fatal("Reload of a key without its certificate succeeded")
	}
	check("key replaced", 0, 1, 0, expiry(first))

	testcerts.WriteFile(t, cert, second.CertPEM)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	check("certificate replaced", 1, 1, 1, expiry(second))

	if err := s.Reload(); err != nil { // nothing changed: no reload counted
		t.Fatal(err)
	}
	check("unchanged", 1, 1, 1, expiry(second))
}

// TestMetricsTwoSources: the gateway registers its public certificate and
// its catalog client material in one registry; a CA file alone has no
// expiry to show.
func TestMetricsTwoSources(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.NewCA(t, "ca")
	cert, key := ca.Server(t, "catalog").Write(t, dir, "server")
	caFile := dir + "/ca.crt"
	testcerts.WriteFile(t, caFile, ca.PEM)
	log, _ := newLog()
	reg := prometheus.NewRegistry()
	for name, files := range map[string]Files{"public": {CertFile: cert, KeyFile: key}, "catalog": {CAFile: caFile}} {
		s, err := Load(files, log)
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Register(s.Collector(name)); err != nil {
			t.Fatalf("register %s: %v", name, err)
		}
	}
	got := series(t, reg)
	for _, key := range []string{
		`exercisedb_tls_reloads_total{files=catalog,result=ok}`,
		`exercisedb_tls_reloads_total{files=public,result=ok}`,
		`exercisedb_tls_certificate_expiry_timestamp_seconds{files=public}`,
	} {
		if _, ok := got[key]; !ok {
			t.Errorf("no %s in %v", key, got)
		}
	}
	if _, ok := got[`exercisedb_tls_certificate_expiry_timestamp_seconds{files=catalog}`]; ok {
		t.Errorf("an expiry for a CA file alone: %v", got)
	}
}
