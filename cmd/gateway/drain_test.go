package main

import (
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestDrainDelay: after SIGTERM, readiness fails at once while the public
// listener keeps accepting new connections for shutdown.drain_delay, so a
// load balancer that has not yet seen readiness fail loses nothing.
func TestDrainDelay(t *testing.T) {
	const delay = 3 * time.Second
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	appendConfig(t, config, "shutdown:\n  drain_delay: 3s\n")
	key := newKey(t, config, "key_drain", "exercisedb=Pro")
	g := startGateway(t, config)
	// Every request on a new connection, as from a load balancer's new
	// connection, so that a closed listener shows as a refusal.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: pollTimeout}
	get := func() (int, error) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+g.http+"/api/v1/liveness", nil)
		req.Header.Set("X-Gateway-Key", key)
		req.Header.Set("X-Gateway-Host", gifHost)
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	testnet.Eventually(t, "ready", func() error {
		code, body := adminGet(c, g, "/readyz")
		return testnet.Unless(code == http.StatusOK, body)
	})

	sent := time.Now()
	g.Signal(t, syscall.SIGTERM)
	testnet.Eventually(t, "/readyz failing after SIGTERM", func() error {
		code, body := adminGet(c, g, "/readyz")
		return testnet.Unless(code == http.StatusServiceUnavailable, body)
	})
	failedAfter := time.Since(sent)

	// Until most of the delay has passed, new connections are served.
	var served, refusedN int
	for time.Since(sent) < delay*2/3 {
		code, err := get()
		switch {
		case err != nil && refused(err):
			refusedN++
		case err != nil:
			t.Fatalf("during the drain delay: %v", err)
		case code != http.StatusOK:
			t.Fatalf("during the drain delay: %d", code)
		default:
			served++
		}
		time.Sleep(20 * time.Millisecond)
	}
	if refusedN > 0 || served == 0 {
		t.Errorf("during the drain delay: %d served, %d refused; want none refused", served, refusedN)
	}
	// Then the listener closes and the process exits.
	testnet.Eventually(t, "the listener closed after the delay", func() error {
		_, err := get()
		return testnet.Unless(err != nil && refused(err), "still accepting")
	})
	closedAfter := time.Since(sent)
	g.WaitExit(t, exitTimeout)
	if closedAfter < delay {
		t.Errorf("listener closed %v after SIGTERM, before the %v drain delay", closedAfter, delay)
	}
	t.Logf("readiness failed %v after SIGTERM; %d new connections served, %d refused during the delay; listener closed after %v",
		failedAfter.Round(time.Millisecond), served, refusedN, closedAfter.Round(time.Millisecond))
}
