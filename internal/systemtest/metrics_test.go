package systemtest

import (
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestMetricNames runs a scripted set of requests and checks that every
// metric docs/operations.md, docs/limits.md and docs/catalog.md name
// exists afterwards.
func TestMetricNames(t *testing.T) {
	s := start(t, options{cache: true})
	for _, r := range []request{
		{path: "/api/v1/bodyparts", keyID: "key_pro"},
		{path: "/api/v1/bodyparts", keyID: "key_pro"},
		{path: "/api/v1/exercises?limit=2", keyID: "key_pro"},
		{path: "/api/v1/bodyparts", keyID: "exdb_wrong"},
		{path: "/api/v1/bodyparts"},
	} {
		s.do(t, r)
	}
	for _, tt := range []struct {
		name  string
		reg   *prometheus.Registry
		wants []string
	}{
		{"gateway", s.reg, []string{
			"exercisedb_gateway_requests_total", "exercisedb_gateway_request_duration_seconds",
			"exercisedb_gateway_limit_decisions_total", "exercisedb_gateway_auth_failures_total",
			"exercisedb_gateway_response_cache_total", "exercisedb_gateway_response_cache_bytes",
			"exercisedb_gateway_response_cache_entries",
			"exercisedb_gateway_catalog_outages_total", "exercisedb_gateway_catalog_available",
		}},
		{"catalog", s.catReg, []string{
			"grpc_server_handled_total", "grpc_server_handling_seconds", "grpc_server_started_total",
			"exercisedb_catalog_records", "exercisedb_catalog_catalogue_info",
			"exercisedb_catalog_exchange_calls_total", "exercisedb_catalog_exchange_batch_calls",
		}},
	} {
		families, err := tt.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range families {
			names = append(names, f.GetName())
		}
		for _, want := range tt.wants {
			if !slices.Contains(names, want) {
				t.Errorf("%s metrics lack %s; they are %v", tt.name, want, names)
			}
		}
	}
}
