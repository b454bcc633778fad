package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
	"github.com/exercisedb/exercisedb/internal/pgtest"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// usageData is the data of /api/v1/usage.
type usageData struct {
	Product, Plan string
	Rate          *struct{ Limit, Remaining, ResetSeconds int }
	Quota         *struct{ Limit, Used, Remaining, ResetSeconds int }
	Today, Month  struct{ Requests int64 }
}

// usageOf calls /api/v1/usage and decodes its data.
func usageOf(t *testing.T, c *http.Client, g *gateway, key string) usageData {
	t.Helper()
	r := api(t, c, g, "/api/v1/usage", key, gifHost)
	if r.status != http.StatusOK || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("/api/v1/usage: %s (Cache-Control %q)", r, r.header.Get("Cache-Control"))
	}
	var body struct{ Data usageData }
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Data
}

// burst sends n liveness requests with key from 8 goroutines and returns
// the count of each status.
func burst(t *testing.T, c *http.Client, g *gateway, key string, n int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				st, _ := statusOf(t, c, g, "/api/v1/liveness", key, gifHost)
				mu.Lock()
				statuses[st]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return statuses
}

// TestUsageProcess (memory store): /api/v1/usage takes nothing from the
// rate limit, however often it is called, and after a burst of N requests
// (admitted and refused) the usage counts exactly N.
func TestUsageProcess(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{}) // liveness does not call the catalog
	key := newKey(t, config, "key_basic", "exercisedb=Basic")
	g := startGateway(t, config)
	c := newClient(t)

	for range 30 {
		u := usageOf(t, c, g, key)
		if u.Plan != "Basic" || u.Rate == nil || u.Rate.Remaining != 5 || u.Quota != nil || u.Today.Requests != 0 {
			t.Fatalf("usage before any request: %+v", u)
		}
	}
	const n = 60
	statuses := burst(t, c, g, key, n)
	if statuses[http.StatusOK]+statuses[http.StatusTooManyRequests] != n || statuses[http.StatusTooManyRequests] == 0 {
		t.Fatalf("statuses %v: want %d answers, some refused by the rate (5 per second)", statuses, n)
	}
	u := usageOf(t, c, g, key)
	if u.Today.Requests != n || u.Month.Requests != n {
		t.Errorf("usage after %d requests: today %d, month %d", n, u.Today.Requests, u.Month.Requests)
	}
	if got := counter(t, c, g, "exercisedb_gateway_usage_flush_errors_total"); got != 0 {
		t.Errorf("flush errors %v, want 0", got)
	}
}

// TestUsageRedisSIGTERM: with Redis, the usage is counted there, the quota
// is not touched by /api/v1/usage, and SIGTERM flushes what was not yet:
// after the process exits, Redis holds every request.
func TestUsageRedisSIGTERM(t *testing.T) {
	client := redistest.Client(t)
	prefix := redistest.Prefix(t, client)
	config := redisConfig(t, redistest.Patient(redistest.URL(t)), prefix, "allow")
	key := newKey(t, config, "key_quota", "exercisedb=Quota")
	g := startGateway(t, config)
	c := newClient(t)

	const n = 40 // quotaLimit admitted, the rest refused
	statuses := burst(t, c, g, key, n)
	if statuses[http.StatusOK] != quotaLimit || statuses[http.StatusTooManyRequests] != n-quotaLimit {
		t.Fatalf("statuses %v, want %d admitted and %d refused", statuses, quotaLimit, n-quotaLimit)
	}
	for range 20 {
		u := usageOf(t, c, g, key)
		if u.Quota == nil || u.Quota.Used != quotaLimit || u.Quota.Remaining != 0 || u.Today.Requests != n {
			t.Fatalf("usage: %+v, want the quota of %d used and %d requests today", u, quotaLimit, n)
		}
	}
	// More requests right before SIGTERM: the last flush must carry them.
	more := burst(t, c, g, key, 24)
	g.Signal(t, syscall.SIGTERM)
	g.WaitExit(t, exitTimeout)

	day := time.Now().UTC().Format(time.DateOnly)
	got, err := client.HGetAll(context.Background(), prefix+"usage:{key_quota}:"+day).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"exercisedb:2xx": "25",
		"exercisedb:4xx": strconv.Itoa(n - quotaLimit + more[http.StatusTooManyRequests]),
	}
	if got["exercisedb:2xx"] != want["exercisedb:2xx"] || got["exercisedb:4xx"] != want["exercisedb:4xx"] || len(got) != 2 {
		t.Errorf("Redis after SIGTERM holds %v, want %v", got, want)
	}
	if last, err := client.HGet(context.Background(), prefix+"usage:last", "key_quota").Int64(); err != nil || time.Since(time.Unix(last, 0)) > 10*time.Minute {
		t.Errorf("last use in Redis: %d, %v", last, err)
	}
}

// TestUsageRedisUnreachable: a Redis that is not there fails no request
// but /api/v1/usage (503); the counts wait in memory for it.
func TestUsageRedisUnreachable(t *testing.T) {
	config := redisConfig(t, "redis://"+testnet.FreeAddr(t)+"/0", "gw:", "allow")
	key := newKey(t, config, "key_slow", "exercisedb=Slow")
	g := startGateway(t, config)
	c := newClient(t)
	for range 5 {
		if r := api(t, c, g, "/api/v1/liveness", key, gifHost); r.status != http.StatusOK {
			t.Fatalf("%s, want 200", r)
		}
	}
	if r := api(t, c, g, "/api/v1/usage", key, gifHost); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" {
		t.Errorf("/api/v1/usage without Redis: %s, want 503 with Retry-After: 1", r)
	}
	testnet.Eventually(t, "a failed flush, with the counts kept", func() error {
		errs, pending := counter(t, c, g, "exercisedb_gateway_usage_flush_errors_total"), counter(t, c, g, "exercisedb_gateway_usage_pending")
		return testnet.Unless(errs > 0 && pending == 1, fmt.Sprintf("flush errors %v, pending %v", errs, pending))
	})
}

// TestUsagePostgresReplicas: two gateway processes on one PostgreSQL and
// no Redis count usage in the database. After a burst through both, the
// admin API and /api/v1/usage of each replica show both replicas' counts;
// a SIGTERM right after a last burst flushes it: once both processes have
// exited, the table holds every request, by status class.
func TestUsagePostgresReplicas(t *testing.T) {
	dbURL, _ := pgtest.URL(t)
	config := testConfig(t, "127.0.0.1:1", options{}) // liveness does not call the catalog
	withKeyService(t, config, dbURL)
	key := newKey(t, config, "key_pg", "exercisedb=Basic") // 5 a second, per replica: 200s and 429s
	gs := []*gateway{startGateway(t, config), startGateway(t, config)}
	for i, g := range gs {
		if len(g.LogEntries("usage counted in PostgreSQL")) != 1 {
			t.Fatalf("replica %d does not say it counts usage in PostgreSQL:\n%s", i, strings.Join(g.Log(), "\n"))
		}
	}
	c := newClient(t)

	// sent counts every answer of both replicas by status.
	sent := map[int]int{}
	both := func(n int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, g := range gs {
			wg.Go(func() {
				s := burst(t, c, g, key, n)
				mu.Lock()
				for st, k := range s {
					sent[st] += k
				}
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	const n = 30
	both(n)
	if sent[http.StatusOK]+sent[http.StatusTooManyRequests] != 2*n || sent[http.StatusTooManyRequests] == 0 {
		t.Fatalf("statuses %v: want %d answers, some refused by the rate", sent, 2*n)
	}
	for i, g := range gs {
		testnet.Eventually(t, fmt.Sprintf("replica %d reads both replicas' usage", i), func() error {
			r := adminCall(t, c, g, "GET", "/admin/v1/keys/key_pg/usage", "")
			var body struct {
				Data struct {
					Days []struct {
						Product  string
						Requests int
						Status   map[string]int
					}
				}
			}
			if err := json.Unmarshal(r.body, &body); err != nil || r.status != http.StatusOK || len(body.Data.Days) != 1 {
				return errors.New(r.String())
			}
			d := body.Data.Days[0]
			u := usageOf(t, c, g, key)
			return testnet.Unless(d.Product == "exercisedb" && d.Requests == 2*n && d.Status["2xx"] == sent[http.StatusOK] &&
				d.Status["4xx"] == sent[http.StatusTooManyRequests] && u.Today.Requests == 2*n && u.Month.Requests == 2*n,
				fmt.Sprintf("admin API: %s; /api/v1/usage: today %d, month %d; want %d requests (%v)", r, u.Today.Requests, u.Month.Requests, 2*n, sent))
		})
	}

	// A last burst right before SIGTERM: only the last flush can carry it.
	both(12)
	for _, g := range gs {
		g.Signal(t, syscall.SIGTERM)
	}
	for _, g := range gs {
		g.WaitExit(t, exitTimeout)
	}
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	got := map[string]int{}
	rows, _ := conn.Query(context.Background(), `SELECT class, n FROM gateway_usage WHERE key_id = 'key_pg' AND product = 'exercisedb' AND day = (now() AT TIME ZONE 'UTC')::date`)
	var class string
	var count int
	if _, err := pgx.ForEachRow(rows, []any{&class, &count}, func() error { got[class] = count; return nil }); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"2xx": sent[http.StatusOK], "4xx": sent[http.StatusTooManyRequests]}
	if got["2xx"] != want["2xx"] || got["4xx"] != want["4xx"] || len(got) != 2 {
		t.Errorf("gateway_usage after SIGTERM holds %v, want %v (%d requests)", got, want, 2*n+2*12)
	}
	var last time.Time
	if err := conn.QueryRow(context.Background(), `SELECT used_at FROM gateway_usage_last WHERE key_id = 'key_pg'`).Scan(&last); err != nil || time.Since(last) > 10*time.Minute {
		t.Errorf("last use in gateway_usage_last: %v, %v", last, err)
	}
}
