package adminapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/pkg/admin"
)

// TestAdminPathsInEnvelope: paths under /admin that name no admin
// endpoint get the admin API's 404 envelope, never a redirect or
// net/http's plain text; the other admin routes are untouched.
func TestAdminPathsInEnvelope(t *testing.T) {
	const token = "t0ken"
	others := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	pages := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) })
	h := Mount(others, pages, Deps{TokenHash: admin.HashToken(token)})
	for _, path := range []string{"/admin", "/admin/", "/admin/v1", "/admin/v2/keys",
		// Unclean: http.ServeMux would redirect them to /admin/v1/keys.
		"//admin/v1/keys", "/admin/v1/./keys", "/admin//v1/keys", "/admin/v1/keys/../keys", "/x/../admin/v1/keys", "/admin/v1/keys/"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL.Path = path
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
	// The envelopes' relative docs links resolve on the admin listener.
	for _, path := range []string{"/docs/errors", "/docs/errors/code/UNAUTHORIZED"} {
		w = httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusAccepted {
			t.Errorf("%s: %d, want the public error pages' answer", path, w.Code)
		}
	}

	// The admin listener's own routes: an unclean path is 404 too.
	h = Mount(admin.Handler(func() error { return nil }, prometheus.NewRegistry(), admin.Options{}), pages, Deps{TokenHash: admin.HashToken(token)})
	for path, want := range map[string]int{"//metrics": 404, "/./healthz": 404, "/metrics": 200, "/healthz": 200} {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL.Path = path
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != want || w.Header().Get("Location") != "" {
			t.Errorf("%s: %d (Location %q), want %d", path, w.Code, w.Header().Get("Location"), want)
		}
	}
}

// TestAdminTransferEncodingRefused sends raw requests to the admin
// listener's routes (Go's client would not send both framing headers): a
// 400, in the admin API's envelope under /admin and in text elsewhere,
// the connection closed and the request hidden after the body never
// answered, as on the public listener.
func TestAdminTransferEncodingRefused(t *testing.T) {
	const token = "t0ken"
	srv := httptest.NewServer(Mount(admin.Handler(func() error { return nil }, prometheus.NewRegistry(), admin.Options{}),
		http.NotFoundHandler(), Deps{TokenHash: admin.HashToken(token)}))
	defer srv.Close()
	for _, path := range []string{"/healthz", "/admin/v1/keys"} {
		for _, framing := range []string{"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "Transfer-Encoding: chunked\r\n"} {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			go io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer "+token+"\r\n"+framing+"\r\n0\r\n\r\n"+
				"GET /healthz HTTP/1.1\r\nHost: admin\r\n\r\n")
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("%s %q: %v", path, framing, err)
			}
			body, _ := io.ReadAll(resp.Body)
			var env struct{ Error struct{ Code string } }
			inEnvelope := json.Unmarshal(body, &env) == nil && env.Error.Code == "BAD_REQUEST"
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "Transfer-Encoding") || inEnvelope != strings.HasPrefix(path, "/admin/") {
				t.Errorf("%s %q: %d %s, want a 400 naming Transfer-Encoding (in the envelope under /admin)", path, framing, resp.StatusCode, body)
			}
			if !resp.Close {
				t.Errorf("%s %q: the response does not close the connection", path, framing)
			}
			if rest, _ := io.ReadAll(r); len(rest) != 0 {
				t.Errorf("%s %q: the connection answered more: %q", path, framing, rest)
			}
		}
	}
}
