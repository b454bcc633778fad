package adminapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/pgstore"
	"github.com/exercisedb/exercisedb/internal/pgtest"
	"github.com/exercisedb/exercisedb/pkg/admin"
)

// TestStoresAlike runs the input that one store could take and another
// could not against both, the keys file and PostgreSQL (with DATABASE_URL):
// each is a 400 naming the field, before any store sees it.
func TestStoresAlike(t *testing.T) {
	stores := map[string]func(t *testing.T) keys.Store{
		"file": func(t *testing.T) keys.Store {
			_, store := newAPI(t, nil)
			return store
		},
		"postgres": func(t *testing.T) keys.Store {
			url, _ := pgtest.URL(t)
			s, err := pgstore.OpenKeys(context.Background(), url, pgstore.KeysOptions{Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		},
	}
	for _, kind := range []string{"file", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			srv := httptest.NewServer(New(Deps{Store: stores[kind](t), Products: mustProducts(t),
				TokenHash: admin.HashToken(token), Now: func() time.Time { return now }}))
			t.Cleanup(srv.Close)
			if r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_x","products":{"exercisedb":"Pro"}}`); r.status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			for _, tc := range []struct{ method, path, body, message string }{
				{"GET", "/admin/v1/keys/a%00b", "", "id: holds a control character (U+0000)"},
				{"GET", "/admin/v1/keys/a%ffb", "", "id: not valid UTF-8."},
				{"PATCH", "/admin/v1/keys/a%00b", `{"disabled":true}`, "id: holds a control character"},
				{"DELETE", "/admin/v1/keys/%ff", "", "id: not valid UTF-8."},
				{"POST", "/admin/v1/keys/a%00b/rotate", "", "id: holds a control character"},
				{"GET", "/admin/v1/keys/%ff/usage", "", "id: not valid UTF-8."},
				{"GET", "/admin/v1/keys?after=%ff", "", "after: not valid UTF-8."},
				{"GET", "/admin/v1/keys?after=a%00", "", "after: holds a control character"},
				{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"expiresAt":"9999-12-31T23:59:59-23:00"}`, "expiresAt: want an RFC 3339 time"},
				{"PATCH", "/admin/v1/keys/key_x", `{"expiresAt":"9999-12-31T23:59:59-01:00"}`, "expiresAt: want an RFC 3339 time"},
				{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":"a\ud800b"}`, "name: not valid UTF-8: an escape of a lone surrogate"},
				{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":"a\udc00"}`, "name: not valid UTF-8: an escape of a lone surrogate"},
				{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":"\ud800\ud800\udc00"}`, "name: not valid UTF-8: an escape of a lone surrogate"},
				{"PATCH", "/admin/v1/keys/key_x", `{"name":"x\ud83d"}`, "name: not valid UTF-8: an escape of a lone surrogate"},
				{"POST", "/admin/v1/keys", `{"products":{"exercisedb\ud800":"Pro"}}`, "products's names: not valid UTF-8: an escape of a lone surrogate"},
			} {
				r := call(t, srv, tc.method, tc.path, tc.body)
				if r.status != http.StatusBadRequest || !strings.Contains(r.body, tc.message) {
					t.Errorf("%s %s %s: %d %s; want 400 saying %q", tc.method, tc.path, tc.body, r.status, r.body, tc.message)
				}
			}
			// A pair of surrogates is one character, and a date near the
			// end of year 9999 in UTC is fine.
			r := call(t, srv, "POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":"lift \ud83c\udfcb","expiresAt":"9999-12-31T23:59:59+01:00"}`)
			if r.status != http.StatusCreated || !strings.Contains(r.body, "lift \U0001F3CB") || !strings.Contains(r.body, "9999-12-31T22:59:59Z") {
				t.Errorf("a surrogate pair and year 9999: %d %s", r.status, r.body)
			}
		})
	}
}
