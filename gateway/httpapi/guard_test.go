package httpapi

import (
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/plan"
)

func TestRoughly(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "1 second"},
		{time.Millisecond, "1 second"},
		{time.Second, "1 second"},
		{59 * time.Second, "59 seconds"},
		{59*time.Second + time.Millisecond, "1 minute"},
		{time.Minute, "1 minute"},
		{4*time.Minute + 10*time.Second, "4 minutes 10 seconds"},
		{time.Hour - time.Second, "59 minutes 59 seconds"},
		{time.Hour, "1 hour"},
		{3*time.Hour + time.Second, "3 hours 1 minute"},
		{24*time.Hour - time.Second, "24 hours"},
		{24 * time.Hour, "1 day"},
		{9*24*time.Hour + 12*time.Hour, "9 days 12 hours"},
		{9*24*time.Hour + 11*time.Hour + 30*time.Minute, "9 days 12 hours"}, // never early
		{6*24*time.Hour + 10*time.Minute + 43*time.Second, "6 days 1 hour"},
		{31 * 24 * time.Hour, "31 days"},
	} {
		if got := roughly(tt.d); got != tt.want {
			t.Errorf("roughly(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestQuotaRefusal checks that a used-up quota names its renewal as a
// person reads it and as an instant, and that a store whose clock ran a
// moment behind the gateway's still names the window's boundary.
func TestQuotaRefusal(t *testing.T) {
	p := &plan.Plan{Name: "Basic", Quota: &limit.Quota{Requests: 1000, Period: limit.Month}}
	now := time.Date(2026, 11, 24, 23, 49, 17, 0, time.UTC)
	boundary := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	want := "Your Basic plan's quota of 1000 requests per month is used up; it renews in 6 days 1 hour (at 2026-12-01T00:00:00Z)."
	for _, skew := range []time.Duration{0, 3 * time.Millisecond} {
		reset := boundary.Sub(now) - skew
		d := limit.Decision{Quota: &limit.QuotaState{Limit: 1000, Reset: reset, RetryAfter: reset}}
		if got := refusal(p, d, now); got != want {
			t.Errorf("skew %v: %q\nwant %q", skew, got, want)
		}
	}
}
