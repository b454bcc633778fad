package main

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
)

// TestFreeLimitsFlood floods /api/v1/usage, which no plan counts, with one
// key of a gateway whose limits and usage live in a Redis server of the
// test's own: past the key's free budget (free_limits.per_key) every
// request is a 429 envelope with Retry-After, and Redis processes no
// command for any of them (INFO's total_commands_processed, read before
// and after the refused part, grows only by the INFO calls themselves and
// the meter's flushes). The pages that need no key are throttled per
// address in the same way.
func TestFreeLimitsFlood(t *testing.T) {
	srv := redistest.Start(t)
	config := redisConfig(t, srv.URL(), "gw:", "deny")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "free_limits:\n  per_key: {requests: 100000, per: 1s, burst: 100000}\n", `free_limits:
  per_key: {requests: 1, per: 1h, burst: 5}
  per_address: {requests: 1, per: 1h, burst: 5}
`, 1))
	if err := os.WriteFile(config, data, 0o600); err != nil {
		t.Fatal(err)
	}
	key := newKey(t, config, "flood", "exercisedb=Slow")
	g := startGateway(t, config)
	c := newClient(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	processed := func() int {
		t.Helper()
		info, err := rdb.Info(context.Background(), "stats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(info) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_commands_processed:"); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatal("no total_commands_processed in INFO stats")
		return 0
	}

	for i := range 5 {
		if r := api(t, c, g, "/api/v1/usage", key, gifHost); r.status != http.StatusOK {
			t.Fatalf("usage request %d of the burst: %v", i+1, r)
		}
	}
	const flood = 2000
	before := processed()
	for range flood {
		r := api(t, c, g, "/api/v1/usage", key, gifHost)
		checkError(t, r, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		if r.header.Get("Retry-After") == "" {
			t.Fatalf("a refusal without Retry-After: %v", r)
		}
	}
	after := processed()
	// One INFO is counted in each reading; the usage meter flushes once a
	// second with a pipeline of its own counts (the refusals are counted
	// too, as every request with a key is): a few commands, not one per
	// request.
	if grew := after - before; grew > flood/20 {
		t.Errorf("Redis processed %d commands during %d refused usage requests; want none per request", grew, flood)
	} else {
		t.Logf("Redis processed %d commands during %d refused usage requests (INFO itself and the meter's flushes)", grew, flood)
	}

	for i := range 5 {
		if r := api(t, c, g, "/openapi.json", "", gifHost); r.status != http.StatusOK {
			t.Fatalf("page request %d of the burst: %v", i+1, r)
		}
	}
	for _, path := range []string{"/openapi.json", "/docs", "/media/anything"} {
		r := api(t, c, g, path, "", gifHost)
		checkError(t, r, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
	}
}
