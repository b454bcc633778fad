package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	for _, tt := range []struct {
		args []string
		ok   bool
	}{
		{[]string{srv.URL + "/readyz"}, true},
		{[]string{srv.URL + "/other"}, false},
		{[]string{"http://127.0.0.1:1/readyz"}, false},
		{nil, false},
	} {
		if err := run(tt.args); (err == nil) != tt.ok {
			t.Errorf("run(%v) = %v, want ok %v", tt.args, err, tt.ok)
		}
	}
}
