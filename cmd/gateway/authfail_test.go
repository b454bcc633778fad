package main

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
)

// authFailures is the failed-authentication limit of these tests: the
// default's burst of 10, refilled slowly enough (one every 6m) that the
// counts do not depend on how long a test takes.
const authFailures = "auth_failures: {requests: 10, per: 1h, burst: 10}"

// limitAuthFailures replaces the configuration's auth_failures (testConfig
// and redisConfig set it out of reach) by authFailures.
func limitAuthFailures(t *testing.T, config string) {
	t.Helper()
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^auth_failures: .*$`)
	if !re.Match(b) {
		t.Fatalf("%s sets no auth_failures", config)
	}
	if err := os.WriteFile(config, re.ReplaceAll(b, []byte(authFailures)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAuthFailuresSharedAddress sends wrong keys at 20 a second from one
// address (the test's, 127.0.0.1) and, from the same address, a client with
// a valid key: the valid key is never refused, while the wrong keys are
// (401 up to the burst, 429 after).
func TestAuthFailuresSharedAddress(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{}) // liveness does not call the catalog
	limitAuthFailures(t, config)
	key := newKey(t, config, "key_office", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)

	const seconds = 6
	var mu sync.Mutex
	wrong, right := map[int]int{}, map[int]int{}
	var wg sync.WaitGroup
	send := func(statuses map[int]int, key string, every time.Duration) {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for range int(seconds * time.Second / every) {
			<-tick.C
			r, err := do(c, apiRequest(t, g, "/api/v1/liveness", key, gifHost))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			statuses[r.status]++
			mu.Unlock()
		}
	}
	wg.Add(2)
	go send(wrong, "edb_wrong-guess-0000000000000000000000000000000000", 50*time.Millisecond)
	go send(right, key, 100*time.Millisecond)
	wg.Wait()

	t.Logf("valid key: statuses %v; wrong keys: statuses %v", right, wrong)
	if right[http.StatusOK] != seconds*10 {
		t.Errorf("valid key from an address that fails: %d of %d answered 200 (statuses %v), want all", right[http.StatusOK], seconds*10, right)
	}
	if wrong[http.StatusUnauthorized] != 10 || wrong[http.StatusTooManyRequests] != seconds*20-10 {
		t.Errorf("wrong keys: statuses %v, want the burst of 10 answered 401, the rest 429", wrong)
	}
	r := api(t, c, g, "/api/v1/liveness", "", gifHost)
	checkError(t, r, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
	if r.header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %s", r)
	}
}

// TestAuthFailuresSharedByReplicas runs two gateways on one Redis: failures
// counted by one block the address on the other, and a valid key still
// passes on both.
func TestAuthFailuresSharedByReplicas(t *testing.T) {
	client := redistest.Client(t)
	prefix := redistest.Prefix(t, client)
	config := redisConfig(t, redistest.Patient(redistest.URL(t)), prefix, "allow")
	limitAuthFailures(t, config)
	key := newKey(t, config, "key_quota", "exercisedb=Quota")
	a, b := startGateway(t, config), startGateway(t, config)
	c := newClient(t)

	for i := range 10 {
		g := []*gateway{a, b}[i%2]
		if r := api(t, c, g, "/api/v1/liveness", fmt.Sprint("wrong-", i), gifHost); r.status != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %s, want 401", i, r)
		}
	}
	for _, g := range []*gateway{a, b} {
		r := api(t, c, g, "/api/v1/liveness", "wrong-again", gifHost)
		checkError(t, r, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		if r := api(t, c, g, "/api/v1/liveness", key, gifHost); r.status != http.StatusOK {
			t.Errorf("valid key from the blocked address: %s, want 200", r)
		}
	}
}

// TestAdminTokenFailures guesses the admin token from one address: wrong
// tokens on the admin API and on /metrics draw on the failed-authentication
// budget (401 up to the burst, 429 with Retry-After after), and the right
// token still passes on both.
func TestAdminTokenFailures(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{})
	limitAuthFailures(t, config)
	withKeyService(t, config, "")
	newKey(t, config, "key_any", "exercisedb=Mega") // writes the keys file
	g := startGateway(t, config)
	c := newClient(t)
	guess := func(path string) response {
		t.Helper()
		req := mustRequest("http://" + g.admin + path)
		req.Header.Set("Authorization", "Bearer guess")
		r, err := do(c, req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for i := range 10 {
		path := []string{"/admin/v1/keys", "/metrics"}[i%2]
		if r := guess(path); r.status != http.StatusUnauthorized {
			t.Fatalf("wrong token %d on %s: %s, want 401", i, path, r)
		}
	}
	r := guess("/admin/v1/keys")
	checkError(t, r, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
	if r.header.Get("Retry-After") == "" {
		t.Errorf("admin API 429 without Retry-After: %s", r)
	}
	if r := guess("/metrics"); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("/metrics over the budget: %s, want 429 with Retry-After", r)
	}
	if r := adminCall(t, c, g, "GET", "/admin/v1/keys", ""); r.status != http.StatusOK {
		t.Errorf("right token from the blocked address: %s, want 200", r)
	}
	if status, body := adminGet(c, g, "/metrics"); status != http.StatusOK {
		t.Errorf("/metrics with the right token from the blocked address: %d %.200s", status, body)
	}
}
