package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// Tests of the gateway binary with the Redis limit store. Those that need
// Redis skip without REDIS_URL and fail if it is set but Redis does not
// answer (see redistest.URL).

// Plans of redisConfig, made for counting: Slow is bound by its burst (a
// token comes back every 2.4h, never during a test), Quota by its quota.
const (
	slowBurst  = 30
	quotaLimit = 25
)

// redisConfig writes a gateway configuration whose limits are in the Redis
// at redisURL, under prefix, with the on_store_error policy, into a new
// temporary directory, and returns its path; the keys file is keys.yaml
// beside it.
func redisConfig(t *testing.T, redisURL, prefix, policy string) string {
	t.Helper()
	config := fmt.Sprintf(`listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
catalog:
  target: 127.0.0.1:1   # liveness, the one operation used, does not call it
  timeout: 2s
keys_file: keys.yaml
shutdown_timeout: 60s
auth_failures: {requests: 100000, per: 1s, burst: 100000}
free_limits:
  per_key: {requests: 100000, per: 1s, burst: 100000}
log:
  format: json
  level: info
rate_limit:
  store: redis
  redis_url: %q
  redis_prefix: %q
  on_store_error: %s
products:
  - name: exercisedb
    hosts: [%s]
    media:
      kind: gif
      image_url: %s{mediaKey}%s
    plans:
      Slow:
        operations: [liveness]
        rate: {requests: 10, per: 24h, burst: %d}
      Quota:
        operations: [liveness]
        rate: {requests: 1000, per: 1s, burst: 1000}
        quota: {requests: %d, per: day}
`, redisURL, prefix, policy, gifHost, gifPrefix, gifSuffix, slowBurst, quotaLimit)
	path := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// hammer sends n requests for key to each gateway from 8 goroutines per
// gateway and returns the count of each status, failing the test on any
// status other than 200 and 429 or on a 429 without Retry-After.
func hammer(t *testing.T, c *http.Client, gateways []*gateway, key string, n int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for _, g := range gateways {
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					r, err := do(c, apiRequest(t, g, "/api/v1/liveness", key, gifHost))
					if err != nil {
						t.Error(err)
						return
					}
					if r.status == http.StatusTooManyRequests {
						if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
							t.Errorf("429 with Retry-After %q", r.header.Get("Retry-After"))
						}
					}
					mu.Lock()
					statuses[r.status]++
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	for status := range statuses {
		if status != http.StatusOK && status != http.StatusTooManyRequests {
			t.Errorf("statuses %v: want only 200 and 429", statuses)
		}
	}
	return statuses
}

// TestRedisTwoGatewaysShareLimits runs two gateway processes on one Redis
// and hammers both with the same keys: together they admit exactly the
// plan's burst or quota (tolerance zero), and every key they write is
// under the configured prefix.
func TestRedisTwoGatewaysShareLimits(t *testing.T) {
	client := redistest.Client(t)
	prefix := redistest.Prefix(t, client)
	config := redisConfig(t, redistest.Patient(redistest.URL(t)), prefix, "allow")
	slow := newKey(t, config, "key_slow", "exercisedb=Slow")
	quota := newKey(t, config, "key_quota", "exercisedb=Quota")
	gateways := []*gateway{startGateway(t, config), startGateway(t, config)}
	c := newClient(t)

	for _, tc := range []struct {
		name, key string
		want      int
	}{
		{"rate", slow, slowBurst},
		{"quota", quota, quotaLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			statuses := hammer(t, c, gateways, tc.key, 80)
			if statuses[http.StatusOK] != tc.want {
				t.Errorf("two gateways admitted %d of 160 requests, want exactly %d (statuses %v)", statuses[http.StatusOK], tc.want, statuses)
			}
			for _, g := range gateways {
				r := api(t, c, g, "/api/v1/liveness", tc.key, gifHost)
				if r.status != http.StatusTooManyRequests {
					t.Fatalf("after the hammering: %s, want 429", r)
				}
				h := "X-RateLimit-Remaining"
				if tc.name == "quota" {
					h = "X-RateLimit-Requests-Remaining"
				}
				if r.header.Get(h) != "0" {
					t.Errorf("%s = %q, want 0", h, r.header.Get(h))
				}
			}
		})
	}

	keys := redistest.Keys(t, client, prefix)
	// The usage counts live there too (TestUsageRedisSIGTERM checks them).
	keys = slices.DeleteFunc(keys, func(k string) bool { return strings.HasPrefix(k, prefix+"usage:") })
	slices.Sort(keys)
	want := []string{
		prefix + "quota:{exercisedb/key_quota}:" + time.Now().UTC().Format("2006-01-02"),
		prefix + "rate:{exercisedb/key_quota}",
		prefix + "rate:{exercisedb/key_slow}",
	}
	if !slices.Equal(keys, want) {
		// The day may have rolled over during the test: only then another
		// quota key.
		t.Logf("keys under the prefix: %v, want %v", keys, want)
		if len(keys) < 3 || keys[len(keys)-1] != want[2] || keys[len(keys)-2] != want[1] {
			t.Errorf("keys under the prefix: %v, want %v", keys, want)
		}
	}
	for _, g := range gateways {
		if s := counter(t, c, g, "exercisedb_gateway_limit_store_state"); s != 0 {
			t.Errorf("store state %v, want 0 (closed)", s)
		}
		if n := counter(t, c, g, "exercisedb_gateway_limit_store_errors_total"); n != 0 {
			t.Errorf("store errors %v, want 0", n)
		}
	}
}

// TestRedisOutageGateway kills the gateway's Redis (one of the test's own)
// while it serves, then starts it again, with each on_store_error policy:
// allow answers from this replica's share of the plan, deny answers 503
// with Retry-After; the breaker stops the calls to Redis (counted in the
// metrics), the outage is logged once when it starts and once when it
// ends, and Redis decides again afterwards.
func TestRedisOutageGateway(t *testing.T) {
	const msgDown, msgUp = "rate limit store unavailable", "rate limit store available again"
	for _, policy := range []string{"allow", "deny"} {
		t.Run(policy, func(t *testing.T) {
			srv := redistest.Start(t)
			config := redisConfig(t, srv.URL(), "gw:", policy)
			slow := newKey(t, config, "key_slow", "exercisedb=Slow")
			after := newKey(t, config, "key_after", "exercisedb=Slow")
			g := startGateway(t, config)
			c := newClient(t)

			for range 5 {
				if r := api(t, c, g, "/api/v1/liveness", slow, gifHost); r.status != http.StatusOK {
					t.Fatalf("before the outage: %s", r)
				}
			}

			srv.Kill()
			start := time.Now()
			statuses := map[int]int{}
			for range 40 {
				r := api(t, c, g, "/api/v1/liveness", slow, gifHost)
				statuses[r.status]++
				switch r.status {
				case http.StatusOK:
					if r.header.Get("X-RateLimit-Limit") != "10" {
						t.Errorf("fallback: X-RateLimit-Limit %q, want the plan's 10", r.header.Get("X-RateLimit-Limit"))
					}
				case http.StatusServiceUnavailable:
					if r.header.Get("Retry-After") != "1" {
						t.Errorf("503 with Retry-After %q, want 1", r.header.Get("Retry-After"))
					}
					checkError(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
				}
			}
			elapsed := time.Since(start)
			// This replica's share of what Redis last said was left.
			want := map[int]int{http.StatusOK: (slowBurst - 5) / 2, http.StatusTooManyRequests: 40 - (slowBurst-5)/2}
			if policy == "deny" {
				want = map[int]int{http.StatusServiceUnavailable: 40}
			}
			if fmt.Sprint(statuses) != fmt.Sprint(want) {
				t.Errorf("during the outage: statuses %v, want %v", statuses, want)
			}
			// The breaker opens after 3 failures (limit.DefaultTrip), then
			// lets one probe through per second (limit.DefaultOpenFor).
			calls := counter(t, c, g, "exercisedb_gateway_limit_store_errors_total")
			if bound := float64(3 + 1 + int(elapsed/time.Second)); calls > bound {
				t.Errorf("%v failed calls to Redis for 40 requests in %v, want at most %v", calls, elapsed, bound)
			}
			if s := counter(t, c, g, "exercisedb_gateway_limit_store_state"); s == 0 {
				t.Errorf("store state %v during the outage, want 1 or 2", s)
			}
			if n := counter(t, c, g, "exercisedb_gateway_limit_fallback_total"); n < 40-4 {
				t.Errorf("fallback_total %v, want about 40", n)
			}

			srv.Restart()
			testnet.Eventually(t, "Redis decides again", func() error {
				r := api(t, c, g, "/api/v1/liveness", after, gifHost)
				s := counter(t, c, g, "exercisedb_gateway_limit_store_state")
				return testnet.Unless(r.status == http.StatusOK && s == 0, fmt.Sprintf("%s, store state %v", r, s))
			})
			// One request of key_after went to Redis: the rest of its burst.
			statuses = hammer(t, c, []*gateway{g}, after, 40)
			if statuses[http.StatusOK] != slowBurst-1 {
				t.Errorf("after the outage: %d admitted, want the rest of the burst %d (statuses %v)", statuses[http.StatusOK], slowBurst-1, statuses)
			}
			if got := [2]int{len(g.LogEntries(msgDown)), len(g.LogEntries(msgUp))}; got != [2]int{1, 1} {
				t.Errorf("logged %q and %q %v times, want once each", msgDown, msgUp, got)
			}
		})
	}
}

// TestRedisUnreachableAtStart starts the gateway with a Redis that is not
// there: it starts anyway (with a warning) and applies on_store_error. It
// needs no Redis.
func TestRedisUnreachableAtStart(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   int
	}{
		{"allow", http.StatusOK},
		{"deny", http.StatusServiceUnavailable},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			config := redisConfig(t, "redis://"+testnet.FreeAddr(t)+"/0", "gw:", tc.policy)
			key := newKey(t, config, "key_slow", "exercisedb=Slow")
			g := startGateway(t, config)
			if len(g.LogEntries("rate limit store unreachable at start")) != 1 {
				t.Error("no warning that Redis is unreachable at start")
			}
			c := newClient(t)
			for range 5 {
				if r := api(t, c, g, "/api/v1/liveness", key, gifHost); r.status != tc.want {
					t.Fatalf("%s, want %d", r, tc.want)
				}
			}
			if s := counter(t, c, g, "exercisedb_gateway_limit_store_state"); s != 2 {
				t.Errorf("store state %v, want 2 (open)", s)
			}
		})
	}
}
