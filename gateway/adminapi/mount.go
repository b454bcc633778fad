package adminapi

import (
	"net/http"
	"strings"

	"github.com/exercisedb/exercisedb/pkg/admin"
)

// Mount serves the API under Prefix beside the admin listener's other
// routes h, when an admin token is configured (d.TokenHash); without one
// the API is not mounted (404). Every path under /admin, /admin itself included,
// goes to the API, so that /admin/v1 or /admin/v2/keys get its 404
// envelope rather than a redirect or net/http's plain text; so does a
// path that is under /admin once cleaned (//admin/v1/keys,
// /admin/v1/./keys), which is 404 there too. No http.ServeMux here: it
// would redirect such a path.
//
// The admin API's envelopes link their code's page relatively when
// docs_url is unset (/docs/errors/code/<CODE>), so the admin listener
// serves those pages too, from errorPages (the public API's handler).
func Mount(h, errorPages http.Handler, d Deps) http.Handler {
	if d.TokenHash == "" {
		return h
	}
	api := New(d)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch cp := admin.CleanPath(r.URL.Path); {
		case cp == "/admin" || strings.HasPrefix(cp, "/admin/"):
			api.ServeHTTP(w, r)
		case r.URL.Path == "/docs/errors" || strings.HasPrefix(r.URL.Path, "/docs/errors/"):
			errorPages.ServeHTTP(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}
