package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testbin"
)

// asCommandEnv makes the test binary run the command instead of the tests:
// the smoke test's run re-executes os.Executable(), this binary, as its
// reference server.
const asCommandEnv = "EXERCISEDB_LOADTEST_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommandEnv) == "1" {
		main()
		os.Exit(0)
	}
	testbin.Main(m)
}

// TestSmoke runs the whole command, briefly and unpinned, against freshly
// built binaries, with wrk if it is installed and the Go generator
// otherwise (TestWrkLoader covers wrk's scripts). It checks that every
// scenario ran and that no request went unanswered, never a timing figure.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the catalog and the gateway")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the command reads /proc")
	}
	gen := generatorWrk
	if _, _, err := findWrk(); err != nil && os.Getenv("EXERCISEDB_WRK_TESTS") == "" {
		gen = generatorGo
		t.Logf("with the Go generator: %v", err)
	}
	began := time.Now()
	// Side by side, as -bin wants them.
	testbin.Build(t, "../catalog")
	bin := filepath.Dir(testbin.Build(t, "../gateway"))
	built := time.Now()
	t.Logf("built the catalog and the gateway in %v", built.Sub(began).Round(time.Millisecond))
	t.Setenv(asCommandEnv, "1")
	// A -race binary sleeps a second at exit (to catch late reports);
	// the reference server, this binary, need not.
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"-bin", bin, "-duration", "500ms", "-no-pin", "-warmup", "0s", "-connections", "8", "-latency-connections", "3", "-mix", "200", "-json", jsonPath, "-generator", gen}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("ran in %v", time.Since(built).Round(time.Millisecond))
	out := stdout.String()
	for _, want := range []string{"| reference:", "| gateway: listing, one URL", "| gateway: realistic mix", "| gateway: listing, cache off", "| gateway: listing at half", "| reference: at the rate", "| target | figure | result |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		PageBytes     int `json:"page_bytes"`
		PageGzipBytes int `json:"page_gzip_bytes"`
		Scenarios     []struct {
			ID              string         `json:"id"`
			Rate            int            `json:"rate"`
			Connections     int            `json:"connections"`
			Generator       string         `json:"generator"`
			Requests        int            `json:"requests"`
			Status          map[string]int `json:"status"`
			TransportErrors map[string]int `json:"transport_errors"`
		} `json:"scenarios"`
		Targets []targetResult `json:"targets"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.PageGzipBytes <= 0 || rep.PageGzipBytes >= rep.PageBytes || !strings.Contains(out, " gzipped (") {
		t.Errorf("listing page: %d bytes, %d gzipped; want fewer gzipped, and the report to say so", rep.PageBytes, rep.PageGzipBytes)
	}
	var ids []string
	for _, s := range rep.Scenarios {
		ids = append(ids, s.ID)
		if s.Requests == 0 {
			t.Errorf("scenario %s: no request", s.ID)
		}
		if len(s.TransportErrors) > 0 {
			t.Errorf("scenario %s: requests without a response: %v", s.ID, s.TransportErrors)
		}
		if want := map[bool]int{true: 3, false: 8}[s.Rate > 0]; s.Connections != want {
			t.Errorf("scenario %s (rate %d): %d connections, want %d", s.ID, s.Rate, s.Connections, want)
		}
		want := "vegeta"
		if gen == generatorWrk && s.Rate == 0 {
			want = "wrk"
		}
		if s.Generator != want {
			t.Errorf("scenario %s (rate %d): generator %s, want %s", s.ID, s.Rate, s.Generator, want)
		}
	}
	if got, want := strings.Join(ids, ","), "reference,listing,listing-gzip,media-reference,media,mix,cache-off,reference-end,half-rate,reference-half-rate,neighbour-quiet,neighbour-noisy"; got != want {
		t.Errorf("scenarios %s, want %s", got, want)
	}
	if len(rep.Targets) != 8 {
		t.Errorf("%d targets, want 8", len(rep.Targets))
	}
	for _, tr := range rep.Targets {
		if tr.Result != "PASS" && tr.Result != "FAIL" {
			t.Errorf("target %q: %s", tr.Name, tr.Result)
		}
	}
}

// TestGetGzip: the gzip scenario's set-up fails the run unless the
// listing comes gzipped, and as the plain page once decompressed.
func TestGetGzip(t *testing.T) {
	plain := []byte(`{"data":[]}`)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" || r.Header.Get("X-Gateway-Key") != "k" {
			http.Error(w, "want Accept-Encoding: gzip and the key", http.StatusBadRequest)
			return
		}
		switch r.URL.Query().Get("answer") {
		case "gzip":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
		case "other":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write([]byte(`{"data":[1]}`))
			zw.Close()
		default:
			w.Write(plain)
		}
	}))
	defer srv.Close()
	c := newAPIClient(srv.URL, "k")
	body, err := c.getGzip(t.Context(), "/?answer=gzip", plain)
	if err != nil || !bytes.Equal(body, zipped.Bytes()) {
		t.Errorf("gzip answer: %d bytes, %v; want the %d bytes sent", len(body), err, zipped.Len())
	}
	for answer, want := range map[string]string{"plain": `Content-Encoding "", want gzip`, "other": "is not the plain one"} {
		if _, err := c.getGzip(t.Context(), "/?answer="+answer, plain); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s answer: %v, want an error containing %q", answer, err, want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := parseOptions([]string{"-duration", "500ms", "-no-pin", "-generator", "go"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.pin || o.generator != generatorGo || o.warmup != 100*time.Millisecond || o.connections != 64 || o.latencyConnections != 16 || !o.cacheOff || o.bin != "bin" {
		t.Errorf("options = %+v", o)
	}
	o, err = parseOptions(nil, &bytes.Buffer{})
	if err != nil || !o.pin || o.duration != 10*time.Second || o.warmup != 2*time.Second || o.generator != generatorWrk {
		t.Errorf("defaults = %+v, %v", o, err)
	}
	// wrk's durations are whole seconds.
	o, err = parseOptions([]string{"-duration", "2500ms", "-warmup", "0s"}, &bytes.Buffer{})
	if err != nil || o.duration != 3*time.Second || o.warmup != 0 {
		t.Errorf("wrk's durations: %+v, %v", o, err)
	}
	for _, bad := range [][]string{{"-duration", "0s"}, {"-connections", "0"}, {"-latency-connections", "0"}, {"-mix", "5"}, {"-generator", "k6"}, {"-serve-reference", "x"}, {"extra"}, {"-nope"}} {
		if _, err := parseOptions(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("parseOptions(%q): no error", bad)
		}
	}
}
