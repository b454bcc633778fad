package limit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// TestCollector: the collector exports the Resilient's figures under
// their names, and follows them.
func TestCollector(t *testing.T) {
	c := newClock(t0)
	store := newFlaky(c.Now)
	r := NewResilient(store, ResilientOptions{Policy: Allow, Now: c.Now, Trip: 1, OpenFor: time.Hour})
	reg := prometheus.NewRegistry()
	reg.MustRegister(r.Collector())
	gather := func() map[string]float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, f := range families {
			m := f.GetMetric()[0]
			out[f.GetName()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
		return out
	}
	figures := func(s Stats) map[string]float64 {
		return map[string]float64{
			"exercisedb_gateway_limit_store_calls_total":     float64(s.Calls),
			"exercisedb_gateway_limit_store_errors_total":    float64(s.Errors),
			"exercisedb_gateway_limit_fallback_total":        float64(s.Fallbacks),
			"exercisedb_gateway_limit_cached_refusals_total": float64(s.Cached),
			"exercisedb_gateway_limit_store_state":           float64(s.State),
		}
	}
	rate := &Rate{10, time.Minute, 0}
	take(t, r, "a", rate, nil)
	take(t, r, "a", rate, nil)
	if diff := cmp.Diff(figures(Stats{Calls: 2}), gather()); diff != "" {
		t.Errorf("store up (-want +got):\n%s", diff)
	}
	store.down.Store(true)
	for range 3 {
		take(t, r, "a", rate, nil)
	}
	s := r.Stats()
	if s.Errors != 1 || s.State != Open || s.Fallbacks == 0 {
		t.Fatalf("Stats = %+v, want 1 error, open, fallbacks", s)
	}
	if diff := cmp.Diff(figures(s), gather()); diff != "" {
		t.Errorf("store down (-want +got):\n%s", diff)
	}
}
