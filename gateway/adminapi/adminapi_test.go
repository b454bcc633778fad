package adminapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/usage"
	"github.com/exercisedb/exercisedb/pkg/admin"
)

const token = "test-admin-token"

// now is the clock of the store and the API: in the machine's future, so
// that expiries set from it are ahead.
var now = time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)

// fakeUsage answers fixed figures: requests on the first day asked for,
// and a last use at last.
type fakeUsage struct{ last time.Time }

func (fakeUsage) KeyUsage(_ context.Context, id string, from, to time.Time) ([]usage.DayUsage, error) {
	return []usage.DayUsage{{Date: from.Format(time.DateOnly), Product: "exercisedb", Requests: 7, Status: usage.Classes{Success: 6, ClientError: 1}}}, nil
}

func (u fakeUsage) LastUsed(id string) (time.Time, bool) { return u.last, true }

// newAPI serves the API over a fresh keys file.
func newAPI(t *testing.T, usage Usage) (*httptest.Server, *keys.File) {
	t.Helper()
	srv, store, _ := newAPIAt(t, usage)
	return srv, store
}

// newAPIAt is newAPI that also returns the keys file's path.
func newAPIAt(t *testing.T, usage Usage) (*httptest.Server, *keys.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(path, []byte("keys: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := keys.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	store.Now = func() time.Time { return now }
	srv := httptest.NewServer(New(Deps{Store: store, Products: mustProducts(t), Usage: usage,
		TokenHash: admin.HashToken(token), DocsURL: "http://docs.example/docs", Now: func() time.Time { return now }}))
	t.Cleanup(srv.Close)
	return srv, store, path
}

// mustProducts is the product table of the tests: exercisedb, plans
// Basic and Pro.
func mustProducts(t *testing.T) *plan.Table {
	t.Helper()
	products, err := plan.NewTable([]config.Product{{
		Name: "exercisedb", Hosts: []string{"exercisedb.example.com"},
		Media: config.Media{Kind: "gif", ImageURL: "https://m.example/{mediaKey}.gif"},
		Plans: map[string]config.Plan{"Basic": {Operations: []string{"*"}}, "Pro": {Operations: []string{"*"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return products
}

type resp struct {
	status int
	header http.Header
	body   string
}

func call(t *testing.T, srv *httptest.Server, method, path, body string, bearer ...string) resp {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	tok := token
	if len(bearer) > 0 {
		tok = bearer[0]
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp{res.StatusCode, res.Header, string(b)}
}

func decodeJSON[T any](t *testing.T, r resp) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	return v
}

func TestKeyLifecycle(t *testing.T) {
	srv, store := newAPI(t, fakeUsage{last: now.Add(30 * time.Second)})
	r := call(t, srv, "POST", "/admin/v1/keys", `{"name":"acme app","products":{"exercisedb":"Pro"},"expiresAt":"2030-06-01T00:00:00Z"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	created := decodeJSON[map[string]any](t, r)
	id, secret := created["id"].(string), created["key"].(string)
	want := map[string]any{"id": id, "key": secret, "name": "acme app", "products": map[string]any{"exercisedb": "Pro"},
		"disabled": false, "expiresAt": "2030-06-01T00:00:00Z", "createdAt": "2030-05-01T12:00:00Z", "lastUsedAt": "2030-05-01T12:00:30Z"}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("create (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(secret, keys.KeyPrefix) || r.header.Get("Location") != "/admin/v1/keys/"+id {
		t.Errorf("key %.5s..., Location %q", secret, r.header.Get("Location"))
	}
	if k, ok := store.Current().Lookup(secret); !ok || k.ID != id {
		t.Errorf("the created key is not in force")
	}

	delete(want, "key")
	for _, path := range []string{"/admin/v1/keys/" + id, "/admin/v1/keys"} {
		r = call(t, srv, "GET", path, "")
		if strings.Contains(r.body, secret) || r.status != http.StatusOK {
			t.Errorf("GET %s: %d, shows the key: %v", path, r.status, strings.Contains(r.body, secret))
		}
	}
	if diff := cmp.Diff(want, decodeJSON[map[string]any](t, call(t, srv, "GET", "/admin/v1/keys/"+id, ""))); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}
	list := decodeJSON[struct {
		Data []map[string]any
		Meta map[string]any
	}](t, call(t, srv, "GET", "/admin/v1/keys?limit=1", ""))
	if len(list.Data) != 1 || !cmp.Equal(list.Meta, map[string]any{"total": 1.0, "limit": 1.0, "hasNextPage": false, "nextCursor": nil}) {
		t.Errorf("list: %+v", list)
	}

	r = call(t, srv, "PATCH", "/admin/v1/keys/"+id, `{"disabled":true,"expiresAt":null,"products":{"exercisedb":"Basic"}}`)
	got := decodeJSON[map[string]any](t, r)
	if r.status != http.StatusOK || got["disabled"] != true || got["expiresAt"] != nil || got["products"].(map[string]any)["exercisedb"] != "Basic" {
		t.Errorf("patch: %d %s", r.status, r.body)
	}
	if k, _ := store.Current().Lookup(secret); !k.Disabled {
		t.Error("the disabled key is not disabled in force")
	}
	if r = call(t, srv, "POST", "/admin/v1/keys/"+id+"/rotate", `{"overlap":"1h"}`); r.status != http.StatusBadRequest || !strings.Contains(r.body, "disabled") {
		t.Errorf("rotate of a disabled key: %d %s", r.status, r.body)
	}
	call(t, srv, "PATCH", "/admin/v1/keys/"+id, `{"disabled":false}`)

	r = call(t, srv, "POST", "/admin/v1/keys/"+id+"/rotate", `{"overlap":"24h"}`)
	rotated := decodeJSON[map[string]any](t, r)
	replaces, _ := rotated["replaces"].(map[string]any)
	if r.status != http.StatusCreated || rotated["id"] == id || rotated["key"] == nil || replaces["id"] != id ||
		replaces["expiresAt"] != "2030-05-02T12:00:00Z" || replaces["key"] != nil {
		t.Errorf("rotate: %d %s", r.status, r.body)
	}
	if k, ok := store.Current().Lookup(rotated["key"].(string)); !ok || k.Products["exercisedb"] != "Basic" {
		t.Errorf("the new key is not in force with the old one's products: %+v", k)
	}
	// The default overlap is a day; a key rotated twice keeps its end.
	if r = call(t, srv, "POST", "/admin/v1/keys/"+id+"/rotate", ""); r.status != http.StatusCreated || !strings.Contains(r.body, `"expiresAt":"2030-05-02T12:00:00Z"`) {
		t.Errorf("rotate with no body: %d %s", r.status, r.body)
	}

	// The days before the key was made (2030-05-01) are not asked for.
	usage := decodeJSON[map[string]any](t, call(t, srv, "GET", "/admin/v1/keys/"+id+"/usage?from=2030-04-01", ""))
	wantUsage := map[string]any{"data": map[string]any{"id": id, "from": "2030-04-01", "to": "2030-05-01", "days": []any{
		map[string]any{"date": "2030-05-01", "product": "exercisedb", "requests": 7.0, "status": map[string]any{"2xx": 6.0, "3xx": 0.0, "4xx": 1.0, "5xx": 0.0}}}}}
	if diff := cmp.Diff(wantUsage, usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}

	if r = call(t, srv, "DELETE", "/admin/v1/keys/"+id, ""); r.status != http.StatusNoContent || r.body != "" {
		t.Errorf("delete: %d %s", r.status, r.body)
	}
	if _, ok := store.Current().Lookup(secret); ok {
		t.Error("the deleted key is in force")
	}
	if r = call(t, srv, "GET", "/admin/v1/keys/"+id, ""); r.status != http.StatusNotFound {
		t.Errorf("get after delete: %d %s", r.status, r.body)
	}
}

func TestPaging(t *testing.T) {
	srv, _ := newAPI(t, nil)
	for _, id := range []string{"key_c", "key_a", "key_b"} {
		if r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"`+id+`","products":{"exercisedb":"Pro"}}`); r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
	}
	var ids []string
	path := "/admin/v1/keys?limit=2" // the first page: no after
	for range 3 {
		page := decodeJSON[struct {
			Data []struct{ ID string }
			Meta struct {
				NextCursor  *string
				HasNextPage bool
			}
		}](t, call(t, srv, "GET", path, ""))
		for _, k := range page.Data {
			ids = append(ids, k.ID)
		}
		if !page.Meta.HasNextPage {
			break
		}
		path = "/admin/v1/keys?limit=2&after=" + *page.Meta.NextCursor
	}
	if diff := cmp.Diff([]string{"key_a", "key_b", "key_c"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	// Without usage metering, lastUsedAt is null and usage empty.
	if r := call(t, srv, "GET", "/admin/v1/keys/key_a", ""); !strings.Contains(r.body, `"lastUsedAt":null`) {
		t.Errorf("lastUsedAt: %s", r.body)
	}
	if r := call(t, srv, "GET", "/admin/v1/keys/key_a/usage", ""); r.status != http.StatusOK || !strings.Contains(r.body, `"days":[]`) {
		t.Errorf("usage: %d %s", r.status, r.body)
	}
}

// TestRefusals checks every refusal: status, envelope code and a message
// naming what was wrong.
func TestRefusals(t *testing.T) {
	srv, _ := newAPI(t, nil)
	if r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_x","products":{"exercisedb":"Pro"}}`); r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_off","products":{"exercisedb":"Pro"}}`)
	call(t, srv, "PATCH", "/admin/v1/keys/key_off", `{"disabled":true}`)
	for _, tc := range []struct {
		method, path, body string
		bearer             []string
		status             int
		message            string
	}{
		{"GET", "/admin/v1/keys", "", []string{""}, 401, "Authorization: Bearer"},
		{"GET", "/admin/v1/keys", "", []string{"wrong"}, 401, "Authorization: Bearer"},
		{"POST", "/admin/v1/keys", `{"products":`, nil, 400, "Malformed JSON"},
		{"POST", "/admin/v1/keys", `[1]`, nil, 400, "Malformed JSON"},
		{"POST", "/admin/v1/keys", ``, nil, 400, "The body is empty"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}} {}`, nil, 400, "Malformed JSON"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"plan":"Pro"}`, nil, 400, `Unknown field "plan"`},
		{"POST", "/admin/v1/keys", `{"products":{"nope":"Pro"}}`, nil, 400, `products: no product "nope"`},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Gold"}}`, nil, 400, `products: product "exercisedb" has no plan "Gold"`},
		{"POST", "/admin/v1/keys", `{"products":{}}`, nil, 400, "products: name at least one"},
		{"POST", "/admin/v1/keys", `{"name":"x"}`, nil, 400, "products: name at least one"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":5}}`, nil, 400, "products: want a string"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":7}`, nil, 400, "name: want a string"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":"a\u0000b"}`, nil, 400, "name: U+0000 at byte 1 is a control character; want one line of printable text."},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":"\u001b[2J"}`, nil, 400, "name: U+001B at byte 0 is a control character"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"name":"abc\u202Edef"}`, nil, 400, "name: U+202E at byte 3 is an invisible format character"},
		{"POST", "/admin/v1/keys", "{\"products\":{\"exercisedb\":\"Pro\"},\"name\":\"a\u200bb\"}", nil, 400, "name: U+200B at byte 1 is an invisible format character"},
		{"POST", "/admin/v1/keys", "{\"products\":{\"exercisedb\":\"Pro\"},\"name\":\"bad \xff\"}", nil, 400, "name: not valid UTF-8."},
		{"POST", "/admin/v1/keys", "{\"products\":{\"exercisedb\":\"Pro\xc3\"}}", nil, 400, "products.exercisedb: not valid UTF-8."},
		{"PATCH", "/admin/v1/keys/key_x", `{"name":"line\nbreak"}`, nil, 400, "name: U+000A at byte 4 is a control character"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"expiresAt":"2030-04-30T00:00:00Z"}`, nil, 400, "expiresAt: the time is not in the future"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"expiresAt":"next week"}`, nil, 400, "expiresAt: want an RFC 3339 time"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"id":"a b"}`, nil, 400, "id: want 1 to 64"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"id":"key_x"}`, nil, 409, "id: a key with this id exists"},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"},"id":""}`, nil, 400, "id: empty; want 1 to 64"},
		{"POST", "/admin/v1/keys", `{"name":"x","name":"y","products":{"exercisedb":"Pro"}}`, nil, 400, "name is given 2 times; send it once."},
		{"POST", "/admin/v1/keys", `{"id":"key_d","products":{"exercisedb":"Pro"},"id":"key_e","id":"key_f"}`, nil, 400, "id is given 3 times; send it once."},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Basic","exercisedb":"Pro"}}`, nil, 400, "products.exercisedb is given 2 times; send it once."},
		{"POST", "/admin/v1/keys", `{"Name":"x","products":{"exercisedb":"Pro"}}`, nil, 400, `Unknown field "Name": the fields are id, name, products, expiresAt.`},
		{"POST", "/admin/v1/keys", `[{"name":"x","name":"y"}]`, nil, 400, "Malformed JSON"},
		{"POST", "/admin/v1/keys", `{"name":"x","name":"y"`, nil, 400, "Malformed JSON"},
		{"POST", "/admin/v1/keys", `{"name":"x","products":{"exercisedb":"Pro"}`, nil, 400, "Malformed JSON"},
		{"PUT", "/admin/v1/keys", `{}`, nil, 405, "use GET, HEAD or POST"},
		{"PUT", "/admin/v1/keys/key_x", `{}`, nil, 405, "use DELETE, GET, HEAD or PATCH."},
		{"POST", "/admin/v1/keys", `{"name":"` + strings.Repeat("x", 70000) + `","products":{"exercisedb":"Pro"}}`, nil, 413, "The body is larger than 65536 bytes"},
		{"GET", "/admin/v1/keys?limit=0", "", nil, 400, "limit must be a whole number from 1 to 100"},
		{"GET", "/admin/v1/keys?limit=101", "", nil, 400, "limit must be a whole number from 1 to 100"},
		{"GET", "/admin/v1/keys?limit=+5", "", nil, 400, "limit must be a whole number from 1 to 100"},
		{"GET", "/admin/v1/keys?before=key_x", "", nil, 400, `Unknown query parameter "before"`},
		{"GET", "/admin/v1/keys?Limit=5", "", nil, 400, `Unknown query parameter "Limit": this endpoint takes only limit and after.`},
		{"GET", "/admin/v1/keys?limit=1&limit=2", "", nil, 400, "limit is given 2 times; send it once."},
		{"GET", "/admin/v1/keys?after=key_a&after=key_b", "", nil, 400, "after is given 2 times; send it once."},
		{"GET", "/admin/v1/keys?limit=", "", nil, 400, `limit must be a whole number from 1 to 100; got "".`},
		{"GET", "/admin/v1/keys?after=", "", nil, 400, "after is empty"},
		{"GET", "/admin/v1/keys?limit=5&after=%zz", "", nil, 400, "The query string is malformed"},
		{"GET", "/admin/v1/keys?limit=5;after=key_a", "", nil, 400, "The query string is malformed"},
		{"GET", "/admin/v1/keys/key_x?fields=id", "", nil, 400, `Unknown query parameter "fields": this endpoint takes no query parameters.`},
		{"POST", "/admin/v1/keys?id=key_q", `{"products":{"exercisedb":"Pro"}}`, nil, 400, `Unknown query parameter "id": this endpoint takes no query parameters.`},
		{"PATCH", "/admin/v1/keys/key_x?disabled=true", `{"name":"x"}`, nil, 400, `Unknown query parameter "disabled"`},
		{"DELETE", "/admin/v1/keys/key_x?force=1", "", nil, 400, `Unknown query parameter "force"`},
		{"POST", "/admin/v1/keys/key_x/rotate?overlap=1h", "", nil, 400, `Unknown query parameter "overlap"`},
		{"GET", "/admin/v1/keys/key_none", "", nil, 404, `No key has the id "key_none"`},
		{"PATCH", "/admin/v1/keys/key_none", `{"disabled":true}`, nil, 404, `No key has the id "key_none"`},
		{"PATCH", "/admin/v1/keys/key_x", `{}`, nil, 400, "Send at least one of"},
		{"PATCH", "/admin/v1/keys/key_x", `{"disabled":"yes"}`, nil, 400, "disabled: want true or false"},
		{"PATCH", "/admin/v1/keys/key_x", `{"products":null}`, nil, 400, "products: want an object"},
		{"PATCH", "/admin/v1/keys/key_x", `{"products":{"exercisedb":"Gold"}}`, nil, 400, `products: product "exercisedb" has no plan "Gold"`},
		{"PATCH", "/admin/v1/keys/key_x", `{"expiresAt":"2020-01-01T00:00:00Z"}`, nil, 400, "expiresAt: the time is not in the future"},
		{"PATCH", "/admin/v1/keys/key_x", `{"expiresAt":5}`, nil, 400, "expiresAt: want an RFC 3339 time"},
		{"PATCH", "/admin/v1/keys/key_x", `{"hash":"sha256:00"}`, nil, 400, `Unknown field "hash"`},
		{"PATCH", "/admin/v1/keys/key_x", `{"disabled":true,"disabled":false}`, nil, 400, "disabled is given 2 times; send it once."},
		{"PATCH", "/admin/v1/keys/key_x", `{"products":{"exercisedb":"Pro","exercisedb":"Basic"}}`, nil, 400, "products.exercisedb is given 2 times"},
		{"PATCH", "/admin/v1/keys/key_x", `{"DISABLED":true}`, nil, 400, `Unknown field "DISABLED": the fields are name, disabled, products, expiresAt.`},
		{"PATCH", "/admin/v1/keys/key_x", `{"products":{"":"Pro","":"Basic"}}`, nil, 400, `products."" is given 2 times`},
		{"DELETE", "/admin/v1/keys/key_none", "", nil, 404, `No key has the id "key_none"`},
		{"POST", "/admin/v1/keys/key_none/rotate", `{"overlap":"1h"}`, nil, 404, `No key has the id "key_none"`},
		{"POST", "/admin/v1/keys/key_off/rotate", `{"overlap":"1h"}`, nil, 400, `id: the key "key_off" is disabled`},
		{"POST", "/admin/v1/keys/key_x/rotate", `{"overlap":"-1h"}`, nil, 400, "overlap: want a duration of 0 or more"},
		{"POST", "/admin/v1/keys/key_x/rotate", `{"overlap":"a day"}`, nil, 400, "overlap: want a duration of 0 or more"},
		{"POST", "/admin/v1/keys/key_x/rotate", `{"overlap":"1h","grace":"1h"}`, nil, 400, `Unknown field "grace"`},
		{"POST", "/admin/v1/keys/key_x/rotate", `{"overlap":"1h","overlap":"0s"}`, nil, 400, "overlap is given 2 times; send it once."},
		{"GET", "/admin/v1/keys/key_x/rotate", "", nil, 405, "use POST"},
		{"GET", "/admin/v1/keys/key_none/usage", "", nil, 404, `No key has the id "key_none"`},
		{"GET", "/admin/v1/keys/key_x/usage?from=yesterday", "", nil, 400, "from: want a day"},
		{"GET", "/admin/v1/keys/key_x/usage?from=2030-05-02", "", nil, 400, "from: want a day at most"},
		{"GET", "/admin/v1/keys/key_x/usage?days=3", "", nil, 400, `Unknown query parameter "days": this endpoint takes only from and to.`},
		{"GET", "/admin/v1/keys/key_x/usage?to=2030-04-30&to=2030-05-01", "", nil, 400, "to is given 2 times; send it once."},
		{"GET", "/admin/v1/keys/key_x/usage?from=", "", nil, 400, `from: want a day such as 2026-11-24; got "".`},
		{"GET", "/admin/v1/keys/key_x/usage?to=", "", nil, 400, `to: want a day such as 2026-11-24; got "".`},
		{"GET", "/admin/v1/other", "", nil, 404, "There is no admin endpoint /admin/v1/other"},
	} {
		r := call(t, srv, tc.method, tc.path, tc.body, tc.bearer...)
		var env apierror.Envelope
		if err := json.Unmarshal([]byte(r.body), &env); err != nil || r.status != tc.status ||
			env.Error.Code != apierror.Codes()[tc.status] || !strings.Contains(env.Error.Message, tc.message) ||
			!strings.HasPrefix(env.Error.RequestID, "req_") || env.Error.RequestID != r.header.Get("X-Request-Id") ||
			env.Error.Docs != "http://docs.example/docs/errors/code/"+env.Error.Code {
			t.Errorf("%s %s %s: %d %s; want %d with %q", tc.method, tc.path, tc.body, r.status, r.body, tc.status, tc.message)
		}
	}
	// Two Authorization headers are refused even when both hold the token,
	// as two keys are on the public API; the scheme's case does not matter.
	for _, tc := range []struct {
		name    string
		auth    []string
		status  int
		message string
	}{
		{"two Authorization headers", []string{"Bearer " + token, "Bearer " + token}, 401, "Authorization is sent 2 times"},
		{"lower-case bearer", []string{"bearer " + token}, 200, ""},
	} {
		req, err := http.NewRequest("GET", srv.URL+"/admin/v1/keys", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range tc.auth {
			req.Header.Add("Authorization", v)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(string(b), tc.message) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, res.StatusCode, b, tc.status, tc.message)
		}
	}
	if r := call(t, srv, "PUT", "/admin/v1/keys/key_x", ""); r.header.Get("Allow") != "DELETE, GET, HEAD, PATCH" {
		t.Errorf("Allow: %q", r.header.Get("Allow"))
	}
}

// TestHead: HEAD is served wherever GET is, with GET's status and
// headers and no body.
func TestHead(t *testing.T) {
	srv, _ := newAPI(t, fakeUsage{last: now})
	if r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_x","products":{"exercisedb":"Pro"}}`); r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	for path, status := range map[string]int{
		"/admin/v1/keys": 200, "/admin/v1/keys/key_x": 200, "/admin/v1/keys/key_x/usage": 200, "/admin/v1/keys/key_none": 404,
	} {
		get, head := call(t, srv, "GET", path, ""), call(t, srv, "HEAD", path, "")
		if head.status != status || get.status != status || head.body != "" ||
			head.header.Get("Content-Type") != get.header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %v %q; want %d, GET's headers and no body", path, head.status, head.header, head.body, status)
		}
	}
	if r := call(t, srv, "HEAD", "/admin/v1/keys/key_x/rotate", ""); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
		t.Errorf("HEAD of a POST route: %d, Allow %q; want 405, POST", r.status, r.header.Get("Allow"))
	}
	if r := call(t, srv, "HEAD", "/admin/v1/keys", "", "wrong"); r.status != http.StatusUnauthorized {
		t.Errorf("HEAD with a wrong token: %d", r.status)
	}
}

// TestFileUnavailable: a keys file the process cannot lock, read or
// write is a 503, as PostgreSQL down is, not a 500; the keys in force
// stay.
func TestFileUnavailable(t *testing.T) {
	srv, store, path := newAPIAt(t, nil)
	if r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_x","products":{"exercisedb":"Pro"}}`); r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	// A lock file that cannot be opened (a directory: permissions do not
	// stop root, who may run the tests).
	lock := path + ".lock"
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`},
		{"PATCH", "/admin/v1/keys/key_x", `{"disabled":true}`},
		{"POST", "/admin/v1/keys/key_x/rotate", `{}`},
		{"DELETE", "/admin/v1/keys/key_x", ""},
	} {
		r := call(t, srv, tc.method, tc.path, tc.body)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" ||
			!strings.Contains(r.body, `"code":"SERVICE_UNAVAILABLE"`) || !strings.Contains(r.body, "The key store is unavailable") ||
			strings.Contains(r.body, lock) {
			t.Errorf("%s %s with the lock file unusable: %d %v %s; want 503 with Retry-After 1", tc.method, tc.path, r.status, r.header, r.body)
		}
	}
	// A keys file that cannot be read.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/admin/v1/keys", "/admin/v1/keys/key_x"} {
		if r := call(t, srv, "GET", p, ""); r.status != http.StatusServiceUnavailable {
			t.Errorf("GET %s with the keys file unreadable: %d %s; want 503", p, r.status, r.body)
		}
	}
	if n := store.Current().Len(); n != 1 {
		t.Errorf("%d keys in force, want 1", n)
	}
}

func TestOff(t *testing.T) {
	h := New(Deps{})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/admin/v1/keys", nil)
	req.Header.Set("Authorization", "Bearer ")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "admin.token_hash") {
		t.Errorf("API without a token hash: %d %s", rec.Code, rec.Body)
	}
}

// TestUsageOfAnEarlierKey: a last use before a key was made belongs to an
// earlier key with its id (deleted, then the id given again), and is not
// shown.
func TestUsageOfAnEarlierKey(t *testing.T) {
	srv, _ := newAPI(t, fakeUsage{last: now.Add(-time.Minute)})
	r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_reused","products":{"exercisedb":"Pro"}}`)
	if r.status != http.StatusCreated || !strings.Contains(r.body, `"lastUsedAt":null`) {
		t.Errorf("create: %d %s, want lastUsedAt null", r.status, r.body)
	}
}

// TestInvalidKeysFile: while the keys file does not parse, every operation
// is a 503 that says the key store could not be read, with neither the
// file's name nor the parser's words; the keys in force stay.
func TestInvalidKeysFile(t *testing.T) {
	srv, store, path := newAPIAt(t, nil)
	if r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_x","products":{"exercisedb":"Pro"}}`); r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if err := os.WriteFile(path, []byte("keys: [ {id: broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/admin/v1/keys", ""},
		{"GET", "/admin/v1/keys/key_x", ""},
		{"POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`},
		{"PATCH", "/admin/v1/keys/key_x", `{"disabled":true}`},
		{"POST", "/admin/v1/keys/key_x/rotate", `{}`},
		{"DELETE", "/admin/v1/keys/key_x", ""},
	} {
		r := call(t, srv, tc.method, tc.path, tc.body)
		var env apierror.Envelope
		if err := json.Unmarshal([]byte(r.body), &env); err != nil || r.status != http.StatusServiceUnavailable ||
			env.Error.Code != apierror.CodeServiceUnavailable || !strings.Contains(env.Error.Message, "key store could not be read") {
			t.Errorf("%s %s: %d %s; want 503 saying the key store could not be read", tc.method, tc.path, r.status, r.body)
		}
		if strings.Contains(r.body, filepath.Base(filepath.Dir(path))) || strings.Contains(r.body, "broken") || strings.Contains(r.body, "yaml") {
			t.Errorf("%s %s: the body names the file or its content: %s", tc.method, tc.path, r.body)
		}
	}
	if n := store.Current().Len(); n != 1 {
		t.Errorf("%d keys in force, want the 1 loaded before the file broke", n)
	}
}

// invalidRowStore is a store whose key key_bad has a row that does not
// decode, as pgstore.Keys reports one.
type invalidRowStore struct{ *keys.File }

func (s invalidRowStore) Get(ctx context.Context, id string) (keys.Key, error) {
	if id == "key_bad" {
		return keys.Key{}, &keys.RowError{ID: id, Problem: "products: want an object"}
	}
	return s.File.Get(ctx, id)
}

func (s invalidRowStore) List(ctx context.Context, after string, limit int) (keys.Page, error) {
	p, err := s.File.List(ctx, after, limit)
	p.Invalid = []*keys.RowError{{ID: "key_bad", Problem: "products: want an object"}}
	p.Total++
	return p, err
}

// TestInvalidRow: a key whose row does not decode is a 503 naming it
// (without Retry-After: waiting does not fix it), and the list names it in
// meta.invalid beside the other keys.
func TestInvalidRow(t *testing.T) {
	srv, store := newAPI(t, nil)
	api := httptest.NewServer(New(Deps{Store: invalidRowStore{store}, Products: mustProducts(t), TokenHash: admin.HashToken(token)}))
	t.Cleanup(api.Close)
	if r := call(t, srv, "POST", "/admin/v1/keys", `{"id":"key_ok","products":{"exercisedb":"Pro"}}`); r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	r := call(t, api, "GET", "/admin/v1/keys/key_bad", "")
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "" ||
		!strings.Contains(r.body, `The key \"key_bad\" could not be read: its row in the database is invalid`) {
		t.Errorf("GET of the bad key: %d %v %s", r.status, r.header, r.body)
	}
	list := decodeJSON[struct {
		Data []struct{ ID string }
		Meta struct {
			Total   int
			Invalid []string
		}
	}](t, call(t, api, "GET", "/admin/v1/keys", ""))
	if len(list.Data) != 1 || list.Data[0].ID != "key_ok" || list.Meta.Total != 2 || len(list.Meta.Invalid) != 1 || list.Meta.Invalid[0] != "key_bad" {
		t.Errorf("list = %+v; want key_ok, total 2, invalid [key_bad]", list)
	}
}

// TestTruncatedBody sends less body than Content-Length says: the 400
// says so in its own words, never the reader's Go error, and the log has
// no ERROR line for a client's fault.
func TestTruncatedBody(t *testing.T) {
	_, store := newAPI(t, nil)
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := httptest.NewServer(New(Deps{Store: store, Products: mustProducts(t), TokenHash: admin.HashToken(token), Log: log}))
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /admin/v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\n{\"products\"", token)
	conn.(*net.TCPConn).CloseWrite()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "could not be read to its end") || strings.Contains(string(b), "EOF") {
		t.Errorf("%d %s, want a 400 in the API's words", res.StatusCode, b)
	}
	if strings.Contains(logged.String(), "level=ERROR") || !strings.Contains(logged.String(), "admin request failed") {
		t.Errorf("log:\n%s\nwant the refusal logged below ERROR", logged.String())
	}
}
