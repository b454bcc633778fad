package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// testdata/wrk-output.txt is wrk 4.1.0's output with a script of
// wrkScript: 3 requests cycled from position 5 and a tail of 2 from
// position 7, one request in three answered 404.
func TestParseWrkOutput(t *testing.T) {
	out, err := os.ReadFile("testdata/wrk-output.txt")
	if err != nil {
		t.Fatal(err)
	}
	w, s, err := parseWrkOutput(string(out))
	if err != nil {
		t.Fatal(err)
	}
	if w.At != 21975 || w.TailAt != 7330 {
		t.Errorf("positions %d, %d", w.At, w.TailAt)
	}
	if s.Requests != 21965 || s.Seconds != 1.003161 || int(s.RPS) != 21895 {
		t.Errorf("requests %d in %vs: %v req/s", s.Requests, s.Seconds, s.RPS)
	}
	if s.P50 != 96*time.Microsecond || s.P75 != 215*time.Microsecond || s.P90 != 1549*time.Microsecond ||
		s.P99 != 4017*time.Microsecond || s.Max != 7839*time.Microsecond {
		t.Errorf("latencies %v %v %v %v %v", s.P50, s.P75, s.P90, s.P99, s.Max)
	}
	if s.Status[wrkStatusOK] != 14644 || s.Status[wrkStatusError] != 7321 || s.unexpected() != 7321 || s.transportErrors() != 0 {
		t.Errorf("status %v, transport errors %v", s.Status, s.TransportErrors)
	}

	errs := strings.Replace(string(out), `"connect":0,"read":0,"write":0,"timeout":0`, `"connect":0,"read":3,"write":0,"timeout":2`, 1)
	if _, s, err = parseWrkOutput(errs); err != nil || s.transportErrors() != 5 || s.TransportErrors["socket read error (wrk)"] != 3 {
		t.Errorf("socket errors: %v, %v", s.TransportErrors, err)
	}
	for _, bad := range []string{"Running 1s test\nRequests/sec: 1\n", wrkResultPrefix + "{\n"} {
		if _, _, err := parseWrkOutput(bad); err == nil {
			t.Errorf("parseWrkOutput(%q): no error", bad)
		}
	}
}

func TestWrkData(t *testing.T) {
	h := http.Header{"X-Gateway-Key": {"k"}, "Accept-Encoding": {"gzip"}}
	base, data, err := wrkData([]request{{URL: "http://127.0.0.1:1/a?x=1&y=%2C", Header: h}, {Header: h, Tail: true}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/a?x=1&y=%2C\tAccept-Encoding: gzip\tX-Gateway-Key: k\n\tAccept-Encoding: gzip\tX-Gateway-Key: k\n"; base != "http://127.0.0.1:1" || data != want {
		t.Errorf("wrkData = %q, %q; want %q", base, data, want)
	}
	for _, bad := range [][]request{
		{{URL: "http://127.0.0.1:1/a"}, {URL: "http://127.0.0.1:2/a"}},
		{{Tail: true}},
		{{URL: "http://127.0.0.1:1/a", Header: http.Header{"X": {"a\tb"}}}},
	} {
		if _, _, err := wrkData(bad); err == nil {
			t.Errorf("wrkData(%v): no error", bad)
		}
	}
}

// TestWrkLoader runs wrk with a generated script against a test server:
// every request of the cycle and of the tail is sent with its headers, the
// 404s are counted, and a second run goes on where the first stopped.
func TestWrkLoader(t *testing.T) {
	wrk := requireWrk(t)
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.RequestURI()+" "+r.Header.Get("X-Gateway-Key")+" "+r.Header.Get("X-Gateway-Host")]++
		mu.Unlock()
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	video := http.Header{"X-Gateway-Key": {"k2"}, "X-Gateway-Host": {"video.example.com"}}
	l := load{
		requests: []request{
			{URL: srv.URL + "/a?x=1", Header: http.Header{"X-Gateway-Key": {"k1"}}},
			{Header: video, Tail: true},
			{URL: srv.URL + "/missing", Header: http.Header{"X-Gateway-Key": {"k1"}}},
		},
		tail:        []string{srv.URL + "/t?n=1", srv.URL + "/t?n=2"},
		connections: 2,
	}
	dir := t.TempDir()
	ld, err := newWrkLoader(wrk, "", dir, "mix", l)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := ld.attack(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	first := ld.at
	if res.Requests < 30 || res.RPS <= 0 || res.cpu <= 0 || first < uint64(res.Requests) {
		t.Errorf("%d requests, %v req/s, wrk's CPU %v, at %d", res.Requests, res.RPS, res.cpu, first)
	}
	if n := res.unexpected(); n < res.Requests/3-2 || n > res.Requests/3+2 {
		t.Errorf("%d of %d not 2xx, want a third", n, res.Requests)
	}
	mu.Lock()
	for _, want := range []string{"/a?x=1 k1 ", "/missing k1 ", "/t?n=1 k2 video.example.com", "/t?n=2 k2 video.example.com"} {
		if seen[want] == 0 {
			t.Errorf("no %q among %v", want, seen)
		}
	}
	if len(seen) != 4 {
		t.Errorf("requests seen: %v", seen)
	}
	mu.Unlock()
	if _, err := ld.attack(ctx, time.Second); err != nil || ld.at <= first {
		t.Errorf("second run: at %d after %d, %v", ld.at, first, err)
	}

	// One request is wrk's static request. (Requests of the last run may
	// still be in the server's handlers.)
	static := request{URL: srv.URL + "/s", Header: http.Header{"X-Gateway-Key": {"k3"}}}
	st, err := newWrkLoader(wrk, "", dir, "static", load{requests: []request{static}, connections: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := st.attack(ctx, time.Second); err != nil || res.Requests == 0 || res.unexpected() != 0 {
		t.Errorf("static: %+v, %v", res.summary, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for k, n := range seen {
		if (k == "/s k3 ") != strings.HasSuffix(k, " k3 ") || (k == "/s k3 ") != strings.HasPrefix(k, "/s ") {
			t.Errorf("%d requests %q", n, k)
		}
	}
	if seen["/s k3 "] == 0 {
		t.Errorf("static requests seen: %v", seen)
	}
}

// requireWrk returns wrk's path, skipping the test without it unless
// EXERCISEDB_WRK_TESTS is set (CI installs wrk and sets it).
func requireWrk(t *testing.T) string {
	t.Helper()
	wrk, _, err := findWrk()
	if err != nil {
		if os.Getenv("EXERCISEDB_WRK_TESTS") != "" {
			t.Fatalf("%v; EXERCISEDB_WRK_TESTS requires it", err)
		}
		t.Skip(err)
	}
	return wrk
}
