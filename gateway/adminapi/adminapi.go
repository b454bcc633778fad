// Package adminapi is the operators' HTTP API of the gateway's keys, served
// under /admin/v1 on the admin listener behind a bearer token: create (the
// key is shown once), list, get, update, rotate, delete, and per-key usage.
// It works the same on every keys.Store; errors use the public API's
// envelope (apierror).
package adminapi

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/usage"
	"github.com/exercisedb/exercisedb/pkg/admin"
	"github.com/exercisedb/exercisedb/pkg/english"
	"github.com/exercisedb/exercisedb/pkg/serve"
)

// Prefix is the path under which the API is served.
const Prefix = "/admin/v1/"

// Usage supplies the usage figures of keys: *usage.Meter, the gateway's
// usage metering.
type Usage interface {
	// KeyUsage returns the key's requests per UTC day and product, for the
	// days from from to to (both UTC midnights, inclusive).
	KeyUsage(ctx context.Context, keyID string, from, to time.Time) ([]usage.DayUsage, error)
	// LastUsed returns when the key was last seen, if known; coarse.
	LastUsed(keyID string) (time.Time, bool)
}

// Deps are what the API needs.
type Deps struct {
	Store keys.Store
	// Products are the products and plans a key may subscribe to.
	Products *plan.Table
	// Usage may be nil: usage is then empty and lastUsedAt null.
	Usage Usage
	// TokenHash is admin.token_hash; empty turns the API off (404).
	TokenHash string
	// Throttle, when set, counts wrong tokens per sender (see
	// admin.Options.Throttle): over its budget a wrong token gets 429.
	Throttle admin.Throttle
	// DocsURL is the base of the envelope's docs links (docs_url); empty
	// gives a path on the public listener, /docs.
	DocsURL string
	Log     *slog.Logger
	// Now is the clock of the usage period; nil means time.Now.
	Now func() time.Time
}

// List paging: limit's default and maximum.
const (
	defaultLimit = 20
	maxLimit     = 100
)

type api struct{ Deps }

// handler is a route; a returned error is rendered in the envelope.
type handler func(w http.ResponseWriter, r *http.Request) error

// New returns the handler of every path under Prefix.
func New(d Deps) http.Handler {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.DocsURL == "" {
		d.DocsURL = "/docs"
	}
	a := &api{d}
	mux := http.NewServeMux()
	mux.Handle("/admin/v1/keys", a.methods(map[string]handler{"GET": a.list, "POST": a.create}))
	mux.Handle("/admin/v1/keys/{id}", a.methods(map[string]handler{"GET": a.get, "PATCH": a.update, "DELETE": a.delete}))
	mux.Handle("/admin/v1/keys/{id}/rotate", a.methods(map[string]handler{"POST": a.rotate}))
	mux.Handle("/admin/v1/keys/{id}/usage", a.methods(map[string]handler{"GET": a.usage}))
	mux.Handle("/", a.serve(func(_ http.ResponseWriter, r *http.Request) error { return notFound(r) }))
	return a.guard(mux)
}

// notFound is the error of a path that names no endpoint.
func notFound(r *http.Request) error {
	return apierror.New(http.StatusNotFound, "There is no admin endpoint %s. The endpoints are /admin/v1/keys, "+
		"/admin/v1/keys/{id}, /admin/v1/keys/{id}/rotate and /admin/v1/keys/{id}/usage.", r.URL.Path)
}

// requestIDKey holds a request's id in its context.
type requestIDKey struct{}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// guard gives each request an id, refuses it with Transfer-Encoding (its
// connection closed) or without the admin token (or with the API off), and
// turns a panic into a 500 envelope.
func (a *api) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [10]byte
		_, _ = rand.Read(b[:])
		id := "req_" + idEncoding.EncodeToString(b[:])
		w.Header().Set("X-Request-Id", id)
		w.Header().Set("Cache-Control", "no-store")
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				a.Log.Error("panic", "request_id", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				a.fail(w, r, apierror.Internal(fmt.Errorf("panic: %v", p)))
			}
		}()
		switch {
		case serve.RefuseTransferEncoding(w, r):
			a.fail(w, r, apierror.New(http.StatusBadRequest, "%s", admin.TransferEncodingRefused))
		case a.TokenHash == "":
			a.fail(w, r, apierror.New(http.StatusNotFound, "The admin API is off: set admin.token_hash to turn it on."))
		case !admin.ValidToken(a.TokenHash, r):
			a.fail(w, r, a.refuse(w, r))
		case admin.Unclean(r.URL.Path):
			// The mux would redirect to the clean path ("//", "/./"):
			// no endpoint has such a path.
			a.fail(w, r, notFound(r))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// refuse is the error of a request without the right token: 401, or 429
// once the throttle blocks its sender.
func (a *api) refuse(w http.ResponseWriter, r *http.Request) error {
	if wait, blocked := a.Throttle.Fail(r); blocked {
		e := apierror.New(http.StatusTooManyRequests, "Too many wrong admin tokens from your address; retry in %s.", admin.RetryIn(wait))
		e.RetryAfter = wait
		return e
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="admin"`)
	if n := len(r.Header.Values("Authorization")); n > 1 {
		return apierror.New(http.StatusUnauthorized, "Authorization is sent %d times; send the admin token once.", n)
	}
	return apierror.New(http.StatusUnauthorized, "Send the admin token in the header Authorization: Bearer and the token.")
}

// methods dispatches on the method, with a 405 envelope for others. HEAD
// is served wherever GET is, by GET's handler (net/http drops the body).
func (a *api) methods(byMethod map[string]handler) http.Handler {
	if get, ok := byMethod[http.MethodGet]; ok {
		byMethod[http.MethodHead] = get
	}
	allowed := slices.Sorted(maps.Keys(byMethod))
	return a.serve(func(w http.ResponseWriter, r *http.Request) error {
		h, ok := byMethod[r.Method]
		if !ok {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			return apierror.New(http.StatusMethodNotAllowed, "%s is not supported on %s; use %s.", r.Method, r.URL.Path, english.List(allowed, "or"))
		}
		return h(w, r)
	})
}

func (a *api) serve(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Before any handler, so that no store sees an id it cannot take.
		if err := checkText("id", r.PathValue("id")); err != nil {
			a.fail(w, r, err)
			return
		}
		if err := h(w, r); err != nil {
			a.fail(w, r, a.clientError(err, r))
		}
	})
}

// clientError maps the errors of the store onto the envelope's.
func (a *api) clientError(err error, r *http.Request) error {
	var in *keys.InputError
	id := r.PathValue("id")
	switch {
	case errors.As(err, &in):
		return apierror.New(http.StatusBadRequest, "%s: %s.", in.Field, in.Message)
	case errors.Is(err, keys.ErrNotFound):
		return apierror.New(http.StatusNotFound, "No key has the id %q.", id)
	case errors.Is(err, keys.ErrDisabled):
		return apierror.New(http.StatusBadRequest, "id: the key %q is disabled or expired, so it cannot be rotated; create a key instead.", id)
	case errors.Is(err, keys.ErrDuplicateID):
		return apierror.New(http.StatusConflict, "id: a key with this id exists already.")
	case errors.Is(err, keys.ErrUnavailable):
		return apierror.Unavailable(time.Second, err, "The key store is unavailable; retry later.")
	case errors.Is(err, keys.ErrInvalidRow):
		// As an invalid keys file: the row is skipped at load (its key is
		// refused) until an operator fixes or deletes it.
		return &apierror.Error{Status: http.StatusServiceUnavailable, Code: apierror.CodeServiceUnavailable, Err: err,
			Message: fmt.Sprintf("The key %q could not be read: its row in the database is invalid, so the key is refused. "+
				"Fix the row (the gateway's log says what is wrong) or delete the key.", id)}
	case errors.Is(err, keys.ErrInvalidFile):
		// Not the client's fault, nor a bug: the store cannot serve until
		// an operator fixes the file. Which file and why go to the log
		// only; no Retry-After, since waiting alone does not fix it.
		return &apierror.Error{Status: http.StatusServiceUnavailable, Code: apierror.CodeServiceUnavailable, Err: err,
			Message: "The key store could not be read: the keys file is invalid. The keys in force are unchanged; fix the file (the gateway's log says what is wrong), then retry."}
	}
	return err
}

// fail writes err in the envelope; what only the log may see goes there.
func (a *api) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := apierror.From(err)
	id, _ := r.Context().Value(requestIDKey{}).(string)
	if e.Err != nil {
		// A client's fault (a body cut short, a Content-Length that lies)
		// is no operator's concern: logged below ERROR.
		level := slog.LevelError
		if e.Status < http.StatusInternalServerError {
			level = slog.LevelInfo
		}
		a.Log.Log(r.Context(), level, "admin request failed", "request_id", id, "method", r.Method, "path", r.URL.Path,
			"status", e.Status, "err", e.Err.Error())
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", admin.RetryAfter(e.RetryAfter))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.Status)
	_, _ = w.Write(e.Body(a.DocsURL, id))
}

// reply writes v as JSON.
func reply(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
	return nil
}

// audit logs a change, naming the key by id (never the key).
func (a *api) audit(r *http.Request, what, id string, attrs ...any) {
	rid, _ := r.Context().Value(requestIDKey{}).(string)
	a.Log.Info("admin: "+what, append([]any{"key_id", id, "request_id", rid}, attrs...)...)
}
