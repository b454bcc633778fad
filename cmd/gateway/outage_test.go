package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// Tests of the gateway while the catalog is down or stalled, against the
// real binaries.

// catalogOutage is how long TestCatalogRecoveryAfterOutage keeps the catalog
// down: 30s by default. grpc-go's default reconnect backoff (1s growing by
// 1.6 to 120s, 20% jitter) would try at about 26s and 43s after the
// connection is lost, answering 503 for about 13s after the catalog is
// back; the gateway's own backoff must not. A shorter outage for a quicker run:
//
//	go test -run TestCatalogRecoveryAfterOutage ./cmd/gateway -args -catalog-outage=12s
var catalogOutage = flag.Duration("catalog-outage", 30*time.Second, "how long TestCatalogRecoveryAfterOutage keeps the catalog down")

// startCatalogFixed runs the catalog on a fixed port, one that was free a
// moment ago (another if it was taken since), so that it can come back on
// the same address.
func startCatalogFixed(t *testing.T) (*catalog, string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr := testnet.FreeAddr(t)
		cat, err := startCatalogAt(t, addr)
		if err == nil {
			return cat, addr
		}
		if attempt == 5 {
			t.Fatalf("catalog: %v", err)
		}
	}
}

// restartCatalog starts the catalog again on addr, retrying while the port
// is still taken, and returns it once its catalogue is loaded.
func restartCatalog(t *testing.T, addr string) *catalog {
	t.Helper()
	var cat *catalog
	testnet.Eventually(t, "the catalog restarting on "+addr, func() error {
		var err error
		cat, err = startCatalogAt(t, addr)
		return testnet.Unless(err == nil, fmt.Sprint(err))
	})
	return cat
}

// listings returns a listing path different at each call, so that the
// response cache never answers it and every request reaches the catalog.
func listings() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("/api/v1/exercises?limit=1&name=%x", n.Add(1)) }
}

// entries decodes JSON log lines.
func entries(lines []string) []map[string]any {
	out := make([]map[string]any, 0, len(lines))
	for _, line := range lines {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// outcome is what a client saw of one request.
type outcome struct {
	status int // 0: a transport error
	took   time.Duration
}

// load sends requests from workers clients, each pausing for pause after
// each request, until stop is closed, and returns what each got once they
// have all ended.
func load(t *testing.T, g *gateway, key string, workers int, pause time.Duration, stop <-chan struct{}) func() []outcome {
	t.Helper()
	c := newClient(t)
	next := listings()
	var (
		mu  sync.Mutex
		out []outcome
		wg  sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				code, _ := statusOf(t, c, g, next(), key, gifHost)
				o := outcome{status: code, took: time.Since(start)}
				mu.Lock()
				out = append(out, o)
				mu.Unlock()
				time.Sleep(pause)
			}
		}()
	}
	return func() []outcome {
		wg.Wait()
		return out
	}
}

// TestCatalogRecoveryAfterOutage kills the catalog, keeps it down for
// -catalog-outage, restarts it on the same address and measures the time
// from its catalogue being loaded to the gateway's first 200: it must be
// under a second, whatever the outage's length.
func TestCatalogRecoveryAfterOutage(t *testing.T) {
	cat, addr := startCatalogFixed(t)
	config := testConfig(t, addr, options{})
	key := newKey(t, config, "key_mega", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	next := listings()
	testnet.Eventually(t, "a 200 with the catalog up", func() error {
		code, saw := statusOf(t, c, g, next(), key, gifHost)
		return testnet.Unless(code == http.StatusOK, saw)
	})

	cat.Kill(t)
	killed := time.Now()
	testnet.Eventually(t, "a 503 with the catalog killed", func() error {
		code, saw := statusOf(t, c, g, next(), key, gifHost)
		return testnet.Unless(code == http.StatusServiceUnavailable, saw)
	})
	time.Sleep(*catalogOutage - time.Since(killed))
	restarting := time.Now()
	restartCatalog(t, addr)
	ready := time.Now()

	// Poll quickly: the figure is the time to the first 200, give or take
	// one poll.
	for code, saw := statusOf(t, c, g, next(), key, gifHost); code != http.StatusOK; code, saw = statusOf(t, c, g, next(), key, gifHost) {
		if time.Since(ready) > pollTimeout {
			t.Fatalf("no 200 within %v of the catalog being ready; last saw: %s", pollTimeout, saw)
		}
		time.Sleep(10 * time.Millisecond)
	}
	recovered := time.Since(ready)
	t.Logf("catalog down %v, then %v to start and load: first 200 %v after the catalog was ready again",
		restarting.Sub(killed), ready.Sub(restarting), recovered)
	if recovered >= time.Second {
		t.Errorf("first 200 %v after the catalog was ready again, want under 1s", recovered)
	}
}

// TestCatalogOutageLoggedOnce keeps a stream of requests going through a
// catalog outage and counts the gateway's log lines: besides the access
// log's one line per request, one error line when the catalog becomes
// unavailable and one info line when it is back, which gives the outage's
// length and its failed calls; the failures are counted in the metrics.
func TestCatalogOutageLoggedOnce(t *testing.T) {
	cat, addr := startCatalogFixed(t)
	config := testConfig(t, addr, options{})
	key := newKey(t, config, "key_mega", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	testnet.Eventually(t, "a 200 with the catalog up", func() error {
		code, saw := statusOf(t, c, g, listings()(), key, gifHost)
		return testnet.Unless(code == http.StatusOK, saw)
	})

	stop := make(chan struct{})
	outcomes := load(t, g, key, 4, time.Millisecond, stop)
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
			outcomes()
		}
	}()
	time.Sleep(200 * time.Millisecond)
	before := len(g.Log())
	cat.Kill(t)
	time.Sleep(3 * time.Second)
	restartCatalog(t, addr)
	var back struct {
		Outage string // "3.2s": the logs write durations with their unit
		Failed float64
	}
	if err := g.AwaitLog("catalog available again", &back); err != nil {
		t.Error(err)
	}
	outage, _ := time.ParseDuration(back.Outage)
	time.Sleep(200 * time.Millisecond) // requests after the outage
	close(stop)
	got := outcomes()

	failed := 0
	for _, o := range got {
		if o.status == http.StatusServiceUnavailable {
			failed++
		}
	}
	lines, accessLines := 0, 0
	var loud []map[string]any
	for _, e := range entries(g.Log()[before:]) {
		lines++
		switch {
		case e["msg"] == "request":
			accessLines++
		case e["level"] == "ERROR" || e["level"] == "WARN":
			loud = append(loud, e)
		}
	}
	t.Logf("%d requests, %d answered 503; the gateway logged %d lines: %d access lines, %d at WARN or ERROR; outage %s with %v failed calls",
		len(got), failed, lines, accessLines, len(loud), back.Outage, back.Failed)
	if failed == 0 {
		t.Fatal("no request failed during the outage")
	}
	if len(loud) != 1 || loud[0]["msg"] != "catalog unavailable" || loud[0]["level"] != "ERROR" {
		t.Errorf("lines at WARN or ERROR during the outage: %d (first ones %v), want one ERROR line \"catalog unavailable\"", len(loud), loud[:min(3, len(loud))])
	}
	if others := lines - accessLines - len(loud); others > 5 {
		t.Errorf("%d lines besides the access log and the outage's error line, want the outage's end and little else", others)
	}
	if int(back.Failed) != failed {
		t.Errorf("the end of the outage counts %v failed calls, the clients got %d 503s", back.Failed, failed)
	}
	if outage < 2*time.Second {
		t.Errorf("outage logged as %q, want the 3s or so the catalog was down", back.Outage)
	}
	if n := counter(t, c, g, `exercisedb_gateway_catalog_errors_total{code="Unavailable"}`); int(n) < failed {
		t.Errorf("exercisedb_gateway_catalog_errors_total{code=\"Unavailable\"} = %v, want at least the %d 503s", n, failed)
	}
	if n := counter(t, c, g, "exercisedb_gateway_catalog_outages_total"); n != 1 {
		t.Errorf("exercisedb_gateway_catalog_outages_total = %v, want 1", n)
	}
	if n := counter(t, c, g, "exercisedb_gateway_catalog_available"); n != 1 {
		t.Errorf("exercisedb_gateway_catalog_available = %v after the outage, want 1", n)
	}
}

// TestCatalogStallLosesNoRequest pauses the catalog (SIGSTOP, SIGCONT) for
// 0.65s a few times under concurrent load, with catalog.timeout 2s: a
// stall shorter than the timeout must lose no request, and no request may
// take the timeout.
func TestCatalogStallLosesNoRequest(t *testing.T) {
	const (
		stalls  = 5
		stall   = 650 * time.Millisecond
		timeout = 2 * time.Second
	)
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{catalogTimeout: timeout.String()})
	key := newKey(t, config, "key_mega", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	testnet.Eventually(t, "a 200 with the catalog up", func() error {
		code, saw := statusOf(t, c, g, listings()(), key, gifHost)
		return testnet.Unless(code == http.StatusOK, saw)
	})

	stop := make(chan struct{})
	outcomes := load(t, g, key, 64, 0, stop)
	stopped := false
	defer func() {
		if stopped {
			cat.Signal(t, syscall.SIGCONT)
		}
	}()
	for range stalls {
		time.Sleep(500 * time.Millisecond)
		cat.Signal(t, syscall.SIGSTOP)
		stopped = true
		time.Sleep(stall)
		cat.Signal(t, syscall.SIGCONT)
		stopped = false
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	got := outcomes()

	var slowest time.Duration
	statuses := map[int]int{}
	for _, o := range got {
		statuses[o.status]++
		slowest = max(slowest, o.took)
		if o.status != http.StatusOK || o.took >= timeout {
			t.Errorf("a request got %d after %v, want 200 within %v", o.status, o.took.Round(time.Millisecond), timeout)
		}
	}
	t.Logf("%d stalls of %v: %d requests, statuses %v, slowest %v", stalls, stall, len(got), statuses, slowest.Round(time.Millisecond))
}
