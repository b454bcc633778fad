package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/adminapi"
	"github.com/exercisedb/exercisedb/pkg/admin"
)

// TestAdminPathsInEnvelope: paths under /admin that name no admin
// endpoint get the admin API's 404 envelope, never a redirect or
// net/http's plain text; the other admin routes are untouched.
func TestAdminPathsInEnvelope(t *testing.T) {
	const token = "t0ken"
	others := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := withAdminAPI(others, adminapi.Deps{TokenHash: admin.HashToken(token)})
	for _, path := range []string{"/admin", "/admin/", "/admin/v1", "/admin/v2/keys"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var env struct{ Error struct{ Code string } }
		if w.Code != http.StatusNotFound || json.Unmarshal(w.Body.Bytes(), &env) != nil || env.Error.Code != "NOT_FOUND" {
			t.Errorf("%s: %d %q, want the 404 envelope", path, w.Code, w.Body)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != http.StatusTeapot {
		t.Errorf("/metrics: %d, want the admin routes' answer", w.Code)
	}
}
