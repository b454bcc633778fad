package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/httpapi"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
)

// fakeCatalog answers every call with what the test set, and records
// the calls it was made, in order.
type fakeCatalog struct {
	version catalogclient.Version
	page    *catalogclient.Page
	record  catalogclient.ExerciseJSON
	names   []string
	err     error // returned by every call when set

	mu    sync.Mutex
	calls []string
	lists []catalogclient.ListRequest
}

func (f *fakeCatalog) call(name string) {
	f.mu.Lock()
	f.calls = append(f.calls, name)
	f.mu.Unlock()
}

func (f *fakeCatalog) made() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeCatalog) List(_ context.Context, _ string, req catalogclient.ListRequest) (*catalogclient.Page, error) {
	f.call("List")
	f.mu.Lock()
	f.lists = append(f.lists, req)
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return f.page, nil
}

func (f *fakeCatalog) Exercise(_ context.Context, _, id string) (catalogclient.ExerciseJSON, catalogclient.Version, error) {
	f.call("Exercise " + id)
	return f.record, f.version, f.err
}

func (f *fakeCatalog) ExerciseTypes(context.Context, string) ([]catalogclient.ExerciseType, catalogclient.Version, error) {
	f.call("ExerciseTypes")
	return nil, f.version, f.err
}

func (f *fakeCatalog) list(name string) ([]string, catalogclient.Version, error) {
	f.call(name)
	return f.names, f.version, f.err
}

func (f *fakeCatalog) BodyParts(context.Context, string) ([]string, catalogclient.Version, error) {
	return f.list("BodyParts")
}

func (f *fakeCatalog) Muscles(context.Context, string) ([]string, catalogclient.Version, error) {
	return f.list("Muscles")
}

func (f *fakeCatalog) Equipments(context.Context, string) ([]string, catalogclient.Version, error) {
	return f.list("Equipments")
}

func (f *fakeCatalog) MovementPatterns(context.Context, string) ([]string, catalogclient.Version, error) {
	return f.list("MovementPatterns")
}

func (f *fakeCatalog) Changelog(context.Context, string, string) ([]catalogclient.CatalogueChanges, catalogclient.Version, error) {
	f.call("Changelog")
	return nil, f.version, f.err
}

func (f *fakeCatalog) Media(context.Context, string, medialink.Ref, time.Duration) (catalogclient.MediaFile, error) {
	f.call("Media")
	return catalogclient.MediaFile{}, f.err
}

// fakeMeter counts what the API records.
type fakeMeter struct {
	mu       sync.Mutex
	recorded []int
}

func (m *fakeMeter) Record(_ time.Time, _, _ string, status int) {
	m.mu.Lock()
	m.recorded = append(m.recorded, status)
	m.mu.Unlock()
}

func (m *fakeMeter) Totals(context.Context, string, string, time.Time) (int64, int64, error) {
	return 0, 0, nil
}

// testKey is the key of the tests' one subscription: every operation of
// the product at testHost, with a record cap.
const (
	testKey  = "exdb_handler_test_key"
	testHost = "api.example.test"
)

// testProducts returns the products and keys of the handler tests: one
// product at testHost whose plan allows everything, and testKey on it.
func testProducts(tb testing.TB) (*plan.Table, *keys.Set) {
	tb.Helper()
	cfg, err := config.Parse([]byte(`products:
  - name: exercisedb
    hosts: [`+testHost+`]
    media:
      kind: gif
      image_url: https://media.example.test/{mediaKey}.gif
    plans:
      All:
        operations: ["*"]
        record_cap: 50
`), func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	products, err := plan.NewTable(cfg.Products)
	if err != nil {
		tb.Fatal(err)
	}
	set, err := keys.NewSet([]keys.Stored{{Key: keys.Key{ID: "key_test", Products: map[string]string{"exercisedb": "All"}}, Hash: keys.Hash(testKey)}})
	if err != nil {
		tb.Fatal(err)
	}
	return products, set
}

// newAPI serves the API in front of cat.
func newAPI(t *testing.T, cat httpapi.Catalog, meter httpapi.Meter) *httptest.Server {
	t.Helper()
	products, set := testProducts(t)
	now := func() time.Time { return time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC) }
	h, err := httpapi.New(httpapi.Deps{
		Products: products,
		Keys:     func() *keys.Set { return set },
		Limits:   limit.NewMemory(now),
		Failures: limit.NewFailures(limit.Rate{Requests: 3, Per: time.Minute, Burst: 3}, now),
		Catalog:  cat,
		DocsURL:  "https://docs.example.test/docs",
		Log:      slog.New(slog.DiscardHandler),
		Now:      now,
		Usage:    meter,
		Media:    httpapi.MediaDeps{Signer: medialink.NewSigner([]byte("handler test secret"), "http://media.test")},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// get sends a GET with the test key to path and returns the response
// with its body read.
func get(t *testing.T, srv *httptest.Server, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Gateway-Host", testHost)
	req.Header.Set("X-Gateway-Key", testKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// record is an exercise as the catalog encodes it.
func record(id, name string) catalogclient.ExerciseJSON {
	f := exercisejson.Encode(&exercisejson.Record{ID: id, Name: name, BodyParts: []string{"chest"}})
	return catalogclient.ExerciseJSON{Head: f.Head(), MediaKey: "m_" + id, MediaDigest: "d"}
}

// envelope is the part of a response body the tests read.
type envelope struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Meta    struct {
		Total      int     `json:"total"`
		NextCursor *string `json:"nextCursor"`
	} `json:"meta"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode(t *testing.T, body []byte) envelope {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return e
}

// ids are the exerciseId of each exercise of a listing's data.
func ids(t *testing.T, data json.RawMessage) []string {
	t.Helper()
	var xs []struct {
		ID string `json:"exerciseId"`
	}
	if err := json.Unmarshal(data, &xs); err != nil {
		t.Fatalf("data %s: %v", data, err)
	}
	var out []string
	for _, x := range xs {
		out = append(out, x.ID)
	}
	return out
}

// TestListing: the query becomes the catalog's request, with the plan's
// record cap; the page becomes the envelope, its version the ETag's.
func TestListing(t *testing.T) {
	page := catalogclient.NewPage([]catalogclient.ExerciseJSON{record("ex_1", "push-up"), record("ex_2", "dip")})
	page.Total, page.HasNextPage, page.NextCursor, page.Version = 7, true, "ex_2", "v42"
	cat := &fakeCatalog{page: page}
	meter := &fakeMeter{}
	srv := newAPI(t, cat, meter)

	resp, body := get(t, srv, "/api/v1/exercises?limit=2&bodyParts=chest")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
	e := decode(t, body)
	if got := ids(t, e.Data); !e.Success || !slices.Equal(got, []string{"ex_1", "ex_2"}) {
		t.Errorf("success %v, exercises %v; want true, [ex_1 ex_2]", e.Success, got)
	}
	if e.Meta.Total != 7 || e.Meta.NextCursor == nil || *e.Meta.NextCursor != "ex_2" {
		t.Errorf("meta %+v; want total 7, nextCursor ex_2", e.Meta)
	}
	if etag := resp.Header.Get("ETag"); !strings.HasPrefix(etag, `"v42-`) {
		t.Errorf("ETag %s, want the catalogue version v42 first", etag)
	}
	if len(cat.lists) != 1 {
		t.Fatalf("catalog listings: %d, want 1", len(cat.lists))
	}
	req := cat.lists[0]
	if req.Limit != 2 || req.RecordCap != 50 || !slices.Equal(req.Filter.BodyParts, []string{"chest"}) {
		t.Errorf("catalog request %+v; want limit 2, record cap 50, body part chest", req)
	}
	if !slices.Equal(meter.recorded, []int{http.StatusOK}) {
		t.Errorf("usage recorded %v, want [200]", meter.recorded)
	}
}

// TestExercise: the id of the path is the one asked of the catalog, and
// the record is the envelope's data.
func TestExercise(t *testing.T) {
	cat := &fakeCatalog{record: record("ex_9", "plank"), version: "v1"}
	srv := newAPI(t, cat, nil)
	resp, body := get(t, srv, "/api/v1/exercises/ex_9")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
	var x struct {
		ID   string `json:"exerciseId"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(decode(t, body).Data, &x); err != nil || x.ID != "ex_9" || x.Name != "plank" {
		t.Errorf("data %+v (%v), want ex_9 plank", x, err)
	}
	if got := cat.made(); !slices.Equal(got, []string{"Exercise ex_9"}) {
		t.Errorf("catalog calls %v, want [Exercise ex_9]", got)
	}
}

// TestReferenceLists: each list endpoint asks its own list of the
// catalog and answers its names.
func TestReferenceLists(t *testing.T) {
	for path, call := range map[string]string{
		"/api/v1/bodyparts":        "BodyParts",
		"/api/v1/muscles":          "Muscles",
		"/api/v1/equipments":       "Equipments",
		"/api/v1/movementpatterns": "MovementPatterns",
	} {
		t.Run(call, func(t *testing.T) {
			cat := &fakeCatalog{names: []string{"a", "b c"}, version: "v3"}
			srv := newAPI(t, cat, nil)
			resp, body := get(t, srv, path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
			var names []struct{ Name string }
			err := json.Unmarshal(decode(t, body).Data, &names)
			if want := []struct{ Name string }{{"a"}, {"b c"}}; err != nil || !slices.Equal(names, want) {
				t.Errorf("data %v (%v), want %v", names, err, want)
			}
			if etag := resp.Header.Get("ETag"); !strings.HasPrefix(etag, `"v3-`) {
				t.Errorf("ETag %s, want the catalogue version v3 first", etag)
			}
			if got := cat.made(); !slices.Equal(got, []string{call}) {
				t.Errorf("catalog calls %v, want [%s]", got, call)
			}
		})
	}
}

// TestCatalogErrors: an API error of the catalog client reaches the
// client as it is, with its status, code and Retry-After; any other error
// is a 500 that tells nothing of it.
func TestCatalogErrors(t *testing.T) {
	for _, tt := range []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{"not found", apierror.New(http.StatusNotFound, "No exercise has the id %q.", "ex_0"), http.StatusNotFound, apierror.CodeNotFound, ""},
		{"unavailable", apierror.Unavailable(3*time.Second, errors.New("connection refused"), "The catalog is unavailable."), http.StatusServiceUnavailable, apierror.CodeServiceUnavailable, "3"},
		{"other", errors.New("a secret detail"), http.StatusInternalServerError, apierror.CodeInternal, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newAPI(t, &fakeCatalog{err: tt.err}, nil)
			for _, path := range []string{"/api/v1/exercises", "/api/v1/exercises/ex_0", "/api/v1/bodyparts"} {
				resp, body := get(t, srv, path)
				e := decode(t, body)
				if resp.StatusCode != tt.status || e.Success || e.Error.Code != tt.code {
					t.Errorf("%s: status %d, %s; want %d %s", path, resp.StatusCode, body, tt.status, tt.code)
				}
				if got := resp.Header.Get("Retry-After"); got != tt.retryAfter {
					t.Errorf("%s: Retry-After %q, want %q", path, got, tt.retryAfter)
				}
				if strings.Contains(string(body), "secret detail") || strings.Contains(string(body), "connection refused") {
					t.Errorf("%s: the body shows the cause: %s", path, body)
				}
			}
		})
	}
}

// TestQueryRefusedBeforeCatalog: a query that does not parse is a 400
// naming the parameter, and the catalog is not asked.
func TestQueryRefusedBeforeCatalog(t *testing.T) {
	cat := &fakeCatalog{}
	srv := newAPI(t, cat, nil)
	for _, path := range []string{"/api/v1/exercises?limit=0", "/api/v1/exercises?colour=red", "/api/v1/bodyparts?x=1", "/api/v1/exercises/ex_1?x=1"} {
		resp, body := get(t, srv, path)
		if e := decode(t, body); resp.StatusCode != http.StatusBadRequest || e.Error.Code != apierror.CodeBadRequest {
			t.Errorf("%s: status %d, %s; want 400", path, resp.StatusCode, body)
		}
	}
	if got := cat.made(); len(got) != 0 {
		t.Errorf("catalog calls %v, want none", got)
	}
}
