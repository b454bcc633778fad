package systemtest

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestCORS(t *testing.T) {
	s := start(t, options{cors: []string{"https://app.example.com", "https://*.example.org"}})
	const listing = "/api/v1/exercises?limit=1"
	exposed := []string{"X-Request-Id", "ETag", "Retry-After", "RateLimit", "X-RateLimit-Remaining"}

	t.Run("preflight from an allowed origin, no key", func(t *testing.T) {
		for _, origin := range []string{"https://app.example.com", "https://staging.example.org"} {
			resp, body := s.do(t, request{method: http.MethodOptions, path: listing, headers: map[string]string{
				"Origin": origin, "Access-Control-Request-Method": "GET",
				"Access-Control-Request-Headers": "x-gateway-host,x-gateway-key", // as browsers send it: sorted, lower case
			}})
			if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
				t.Fatalf("%s: %d %q, want 204 and no body", origin, resp.StatusCode, body)
			}
			h := resp.Header
			if h.Get("Access-Control-Allow-Origin") != origin || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "GET") ||
				!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "x-gateway-key") || h.Get("Access-Control-Max-Age") == "" {
				t.Errorf("%s: preflight headers %v", origin, h)
			}
			if !requestIDPattern.MatchString(h.Get("X-Request-Id")) {
				t.Errorf("%s: preflight X-Request-Id %q, want req_ and 16 base32 characters", origin, h.Get("X-Request-Id"))
			}
			if h.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("credentials allowed: keys travel in a header, never in cookies")
			}
		}
	})
	t.Run("preflight from a refused origin", func(t *testing.T) {
		resp, _ := s.do(t, request{method: http.MethodOptions, path: listing, headers: map[string]string{
			"Origin": "https://evil.example.net", "Access-Control-Request-Method": "GET",
		}})
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("refused origin got Access-Control-Allow-Origin %q", got)
		}
		if got := resp.Header.Get("X-Request-Id"); !requestIDPattern.MatchString(got) {
			t.Errorf("refused origin: X-Request-Id %q, want req_ and 16 base32 characters", got)
		}
	})
	t.Run("simple requests, successes and envelopes", func(t *testing.T) {
		for _, tt := range []struct {
			key    string
			status int
		}{{"key_pro", 200}, {"", 401}, {"key_basic", 403}} {
			path := listing
			if tt.key == "key_basic" {
				path = "/api/v1/exercises/" + idOf(t, "barbell bench press") + "/alternatives"
			}
			resp, body := s.do(t, request{path: path, keyID: tt.key, headers: map[string]string{"Origin": "https://app.example.com"}})
			if resp.StatusCode != tt.status {
				t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
			}
			h := resp.Header
			if h.Get("Access-Control-Allow-Origin") != "https://app.example.com" || !strings.Contains(h.Get("Vary"), "Origin") {
				t.Errorf("%d: Access-Control-Allow-Origin %q, Vary %q", tt.status, h.Get("Access-Control-Allow-Origin"), h.Get("Vary"))
			}
			for _, name := range exposed {
				if !strings.Contains(strings.ToLower(h.Get("Access-Control-Expose-Headers")), strings.ToLower(name)) {
					t.Errorf("%d: %s not exposed: %q", tt.status, name, h.Get("Access-Control-Expose-Headers"))
				}
			}
		}
		resp, _ := s.do(t, request{path: listing, keyID: "key_pro", headers: map[string]string{"Origin": "https://evil.example.net"}})
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("refused origin: %d, Access-Control-Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("preflight for a method the API does not serve", func(t *testing.T) {
		resp, _ := s.do(t, request{method: http.MethodOptions, path: listing, headers: map[string]string{
			"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST",
		}})
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("a POST preflight got Access-Control-Allow-Origin %q", got)
		}
	})
	t.Run("a method the API does not serve, from an allowed origin", func(t *testing.T) {
		for _, method := range []string{http.MethodPost, http.MethodDelete} {
			resp, body := s.do(t, request{method: method, path: listing, keyID: "key_pro", headers: map[string]string{"Origin": "https://app.example.com"}})
			h := resp.Header
			if resp.StatusCode != http.StatusMethodNotAllowed || h.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
				!strings.Contains(h.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
				t.Errorf("%s: %d %v %s, want a 405 envelope the app may read", method, resp.StatusCode, h, body)
			}
		}
	})
	t.Run("OPTIONS that is not a preflight", func(t *testing.T) {
		resp, body := s.do(t, request{method: http.MethodOptions, path: listing, keyID: "key_pro"})
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(string(body), "METHOD_NOT_ALLOWED") {
			t.Errorf("%d %v %s", resp.StatusCode, resp.Header, body)
		}
	})

	// Without configured origins, no CORS header is ever sent.
	plain := start(t, options{})
	resp, _ := plain.do(t, request{method: http.MethodOptions, path: listing, headers: map[string]string{
		"Origin": "https://app.example.com", "Access-Control-Request-Method": "GET",
	}})
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS off: preflight got %d, Access-Control-Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// TestTransferEncodingRefused sends raw requests: Go's client would not
// send both framing headers.
func TestTransferEncodingRefused(t *testing.T) {
	s := start(t, options{})
	for _, framing := range []string{
		"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
		"Transfer-Encoding: chunked\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.gateway.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		req := "GET /api/v1/exercises?limit=1 HTTP/1.1\r\nHost: api.example.test\r\nX-Gateway-Key: " + testKeys["key_pro"].key + "\r\n" +
			framing + "\r\n0\r\n\r\n" +
			// A smuggled request that must never be answered.
			"GET /api/v1/liveness HTTP/1.1\r\nHost: api.example.test\r\n\r\n"
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		var env struct {
			Error struct{ Code, Message string }
		}
		if resp.StatusCode != 400 || json.Unmarshal(body, &env) != nil || env.Error.Code != "BAD_REQUEST" || !strings.Contains(env.Error.Message, "Transfer-Encoding") {
			t.Errorf("%q: %d %s, want a 400 envelope naming Transfer-Encoding", framing, resp.StatusCode, body)
		}
		if !resp.Close {
			t.Errorf("%q: the response does not close the connection", framing)
		}
		if rest, _ := io.ReadAll(r); len(rest) != 0 {
			t.Errorf("%q: the connection answered more: %q", framing, rest)
		}
	}
}

// TestForgedHostNotInCacheableOutput: the documentation pages are publicly
// cacheable, so a Host chosen by a client must not appear in them.
func TestForgedHostNotInCacheableOutput(t *testing.T) {
	s := start(t, options{noDocsURL: true})
	const forged = "evil.example.net"
	for _, path := range []string{"/docs/errors", "/docs/errors/code/NOT_FOUND", "/openapi.json"} {
		resp, body := s.do(t, request{path: path, headers: map[string]string{"Host": forged}})
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		if strings.Contains(string(body), forged) {
			t.Errorf("%s (%s) shows the forged host:\n%s", path, resp.Header.Get("Cache-Control"), body)
		}
	}
	// The pages' links still resolve on this gateway.
	_, body := s.do(t, request{path: "/docs/errors", headers: map[string]string{"Host": forged}})
	if !strings.Contains(string(body), `href="/docs/errors/code/NOT_FOUND"`) {
		t.Errorf("index links are not relative to this gateway:\n%s", body)
	}
	// Envelopes are not cacheable (no-store): their docs link may follow
	// the host the client used.
	resp, _ := s.do(t, request{path: "/nope", headers: map[string]string{"Host": forged}})
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("envelope Cache-Control %q, want no-store", resp.Header.Get("Cache-Control"))
	}
}

// TestNetHTTPAnswers holds the list of docs/operations.md of what net/http
// answers before the gateway gets control. The 431 is for a header block
// over httptest's limit, net/http's default of 1 MiB (cmd/gateway's
// server sets 64 KiB).
func TestNetHTTPAnswers(t *testing.T) {
	s := start(t, options{})
	for _, tt := range []struct {
		raw  string
		code int
	}{
		{"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 200},
		{"GET /api/v1/liveness HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
		{"GET /api/v1/liveness HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
		{"GET /api/v1/liveness HTTP/3.0\r\nHost: x\r\n\r\n", 505},
		{"GET /api/v1/liveness HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n", 417},
		{"GET /api/v1/liveness HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", http.DefaultMaxHeaderBytes+8<<10) + "\r\n\r\n", 431},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.gateway.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		go io.WriteString(conn, tt.raw)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Errorf("%.60q: %v", tt.raw, err)
			continue
		}
		if resp.StatusCode != tt.code {
			t.Errorf("%.60q: %d, want %d", tt.raw, resp.StatusCode, tt.code)
		}
	}
}

// TestConnect: a CONNECT (a client taking the gateway for a proxy) is a
// 405 envelope that says so, not a 404 naming an empty path.
func TestConnect(t *testing.T) {
	s := start(t, options{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.gateway.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	go io.WriteString(conn, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var env struct {
		Error struct{ Code, Message string }
	}
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || json.Unmarshal(body, &env) != nil || !strings.Contains(env.Error.Message, "CONNECT is not supported") {
		t.Errorf("CONNECT: %d, Allow %q, %s; want a 405 envelope naming CONNECT", resp.StatusCode, resp.Header.Get("Allow"), body)
	}
}

// TestEncodedSlashUnmatched: a path that spells a slash as %2F is 404, and
// is counted as unmatched, not under the route its decoded form would take.
func TestEncodedSlashUnmatched(t *testing.T) {
	s := start(t, options{})
	for _, path := range []string{"/api%2Fv1%2Fbodyparts", "/api/v1/exercises/humnn3ws%2Fvariations", "/api/v1/exercises%2fbodyparts?limit=1"} {
		if resp, body := s.do(t, request{path: path, keyID: "key_mega"}); resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"NOT_FOUND"`) {
			t.Errorf("%s: %d %s, want the 404 envelope", path, resp.StatusCode, body)
		}
	}
	families, err := s.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "exercisedb_gateway_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "route" && l.GetValue() != "unmatched" {
					t.Errorf("counted under route %q, want unmatched", l.GetValue())
				}
			}
		}
	}
}

// TestContentLengthBodyIgnored: a body sent with Content-Length is not
// read and not refused (docs/operations.md, "Bodies are not read"); only
// Transfer-Encoding is refused.
func TestContentLengthBodyIgnored(t *testing.T) {
	s := start(t, options{})
	req, err := http.NewRequest(http.MethodGet, s.gateway.URL+"/api/v1/liveness", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Gateway-Host", "api.example.test")
	req.Header.Set("X-Gateway-Key", testKeys["key_mega"].key)
	resp, err := s.gateway.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if req.ContentLength != 5 || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("GET with a 5-byte body: %d %s, want 200", resp.StatusCode, body)
	}
}
