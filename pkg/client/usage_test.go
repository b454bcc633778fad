package client

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUsage decodes the usage of a limited plan and of an unlimited one,
// and a refusal as an *Error.
func TestUsage(t *testing.T) {
	f, srv := newFakeAPI(t, 0)
	c := newClient(t, srv)
	tests := []struct {
		name string
		body string
		want *Usage
	}{
		{"limited", `{"success":true,"data":{"product":"exercisedb","plan":"Pro","rate":{"limit":100,"remaining":99,"resetSeconds":1},` +
			`"quota":{"limit":20000,"used":12,"remaining":19988,"resetSeconds":3600},"today":{"requests":12},"month":{"requests":340}}}`,
			&Usage{Product: "exercisedb", Plan: "Pro", Rate: &RateUsage{100, 99, 1}, Quota: &QuotaUsage{20000, 12, 19988, 3600},
				Today: RequestCount{12}, Month: RequestCount{340}}},
		{"unlimited", `{"success":true,"data":{"product":"exercisedb","plan":"Mega","rate":null,"quota":null,"today":{"requests":0},"month":{"requests":7}}}`,
			&Usage{Product: "exercisedb", Plan: "Mega", Month: RequestCount{7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.answer(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/v1/usage" || r.Header.Get("X-Gateway-Key") != testKey {
					writeEnvelope(w, http.StatusNotFound, "NOT_FOUND", "wrong request")
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(tt.body))
			})
			got, err := c.Usage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Usage (-want +got):\n%s", diff)
			}
		})
	}
	f.answer(func(w http.ResponseWriter, r *http.Request) {
		writeEnvelope(w, http.StatusUnauthorized, CodeUnauthorized, "Invalid API key.")
	})
	var e *Error
	if _, err := c.Usage(context.Background()); !errors.As(err, &e) || e.Status != http.StatusUnauthorized {
		t.Errorf("Usage with a refused key: %v, want a 401 *Error", err)
	}
}
