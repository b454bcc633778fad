package systemtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/pkg/client"
)

// usageBody is the documented shape of /api/v1/usage, read strictly.
type usageBody struct {
	Success bool `json:"success"`
	Data    struct {
		Product string `json:"product"`
		Plan    string `json:"plan"`
		Rate    *struct {
			Limit, Remaining, ResetSeconds int
		} `json:"rate"`
		Quota *struct {
			Limit, Used, Remaining, ResetSeconds int
		} `json:"quota"`
		Today struct{ Requests int64 } `json:"today"`
		Month struct{ Requests int64 } `json:"month"`
	} `json:"data"`
}

func (s *system) usage(t *testing.T, keyID string) (usageBody, http.Header) {
	t.Helper()
	resp, body := s.do(t, request{path: "/api/v1/usage", keyID: keyID})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/api/v1/usage: %d %s", resp.StatusCode, body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var u usageBody
	if err := dec.Decode(&u); err != nil {
		t.Fatalf("/api/v1/usage body %s: %v", body, err)
	}
	return u, resp.Header
}

// TestUsageTakesNothing calls /api/v1/usage many times on the Basic plan
// (5 requests at once, at a clock that stands still): none is counted
// against the rate or the quota, nor in the usage itself; the requests
// that are, refusals included, show in today's and this month's counts.
func TestUsageTakesNothing(t *testing.T) {
	s := start(t, options{cache: true})
	for range 20 {
		u, h := s.usage(t, "key_basic")
		if u.Data.Rate == nil || u.Data.Rate.Remaining != 5 || u.Data.Quota == nil || u.Data.Quota.Used != 0 {
			t.Fatalf("usage before any request: %+v", u.Data)
		}
		// The limit headers, as on every authenticated response of a
		// limited plan, say what the body says.
		if h.Get("Cache-Control") != "no-store" || h.Get("ETag") != "" ||
			h.Get("X-RateLimit-Limit") != "5" || h.Get("X-RateLimit-Remaining") != "5" || h.Get("X-RateLimit-Requests-Remaining") != "1000" {
			t.Fatalf("usage headers: %v", h)
		}
	}
	for i := range 5 {
		if resp, body := s.do(t, request{path: "/api/v1/bodyparts", keyID: "key_basic"}); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d after the usage calls: %d %s", i, resp.StatusCode, body)
		}
	}
	if resp, _ := s.do(t, request{path: "/api/v1/bodyparts", keyID: "key_basic"}); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("sixth request: %d, want 429", resp.StatusCode)
	}
	u, _ := s.usage(t, "key_basic")
	want := usageBody{Success: true}
	want.Data.Product, want.Data.Plan = "exercisedb", "Basic"
	// The clock stands at 2026-11-21 12:00 UTC: 5 seconds to refill
	// 5 requests, 9 days and 12 hours to the end of the month.
	want.Data.Rate = &struct{ Limit, Remaining, ResetSeconds int }{5, 0, 1}
	want.Data.Quota = &struct{ Limit, Used, Remaining, ResetSeconds int }{1000, 5, 995, (9*24 + 12) * 3600}
	want.Data.Today.Requests, want.Data.Month.Requests = 6, 6
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("usage after 5 requests and a refusal (-want +got):\n%s", diff)
	}

	u, _ = s.usage(t, "key_mega")
	if u.Data.Plan != "Mega" || u.Data.Rate != nil || u.Data.Quota != nil || u.Data.Today.Requests != 0 {
		t.Errorf("usage of an unlimited plan: %+v", u.Data)
	}
}

// TestUsageRefusals: a bad key, product or query is refused as on every
// route.
func TestUsageRefusals(t *testing.T) {
	s := start(t, options{})
	for _, tt := range []struct {
		req    request
		status int
	}{
		{request{path: "/api/v1/usage"}, 401},
		{request{path: "/api/v1/usage", keyID: "key_disabled"}, 401},
		{request{path: "/api/v1/usage", keyID: "key_video"}, 403},
		{request{path: "/api/v1/usage", keyID: "key_noplan"}, 403},
		{request{path: "/api/v1/usage", keyID: "key_mega", host: "nope.example.test"}, 404},
		{request{path: "/api/v1/usage?day=today", keyID: "key_basic"}, 400},
		{request{method: "POST", path: "/api/v1/usage", keyID: "key_basic"}, 405},
	} {
		if resp, body := s.do(t, tt.req); resp.StatusCode != tt.status {
			t.Errorf("%s %s key %s: %d, want %d: %s", tt.req.method, tt.req.path, tt.req.keyID, resp.StatusCode, tt.status, body)
		}
	}
}

// TestClientUsage reads the usage through the Go client.
func TestClientUsage(t *testing.T) {
	s := start(t, options{})
	s.do(t, request{path: "/api/v1/muscles", keyID: "key_pro"})
	c, err := client.New(s.gateway.URL, testKeys["key_pro"].key, client.WithHTTPClient(s.gateway.Client()), client.WithGatewayHost("api.example.test"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.Usage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := &client.Usage{Product: "exercisedb", Plan: "Pro",
		Rate:  &client.RateUsage{Limit: 100, Remaining: 99, ResetSeconds: 1},
		Quota: &client.QuotaUsage{Limit: 20000, Used: 1, Remaining: 19999, ResetSeconds: 12 * 3600},
		Today: client.RequestCount{Requests: 1}, Month: client.RequestCount{Requests: 1}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
}
