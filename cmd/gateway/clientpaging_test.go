package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/pkg/client"
)

// countingTransport counts the requests it sends and the 429s it gets.
type countingTransport struct {
	requests, refused atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.refused.Add(1)
	}
	return resp, err
}

// TestClientPagesProPlan walks the whole reachable listing of a key on
// make run's Pro plan (20 requests a second, a burst of 40, a record cap
// of 1,000) with pkg/client in pages of 25, against the real binaries,
// after an app has spent most of the burst: with the client's defaults
// the walk yields all 1,000 records without an error; with pacing and
// retries off the same walk runs into 429 (so the first walk shows the
// defaults at work, not an idle limiter).
func TestClientPagesProPlan(t *testing.T) {
	cat := startCatalog(t)
	config := devConfig(t, cat.grpc)
	key := newKey(t, config, "key_dev", "exercisedb=Pro")
	g := startGateway(t, config)
	base := "http://" + g.http
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// spend sends n requests as another part of the app would.
	spend := func(n int) {
		c := newClient(t)
		for range n {
			api(t, c, g, "/api/v1/bodyparts", key, "exercisedb.example.com")
		}
	}
	walk := func(opts ...client.Option) (int, time.Duration, *countingTransport, error) {
		tr := &countingTransport{}
		c, err := client.New(base, key, append([]client.Option{client.WithHTTPClient(&http.Client{Transport: tr}),
			client.WithGatewayHost("exercisedb.example.com")}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		n, began := 0, time.Now()
		for _, err := range c.Exercises(ctx, client.Query{Limit: 25}) {
			if err != nil {
				return n, time.Since(began), tr, err
			}
			n++
		}
		return n, time.Since(began), tr, nil
	}

	spend(30)
	n, _, _, err := walk(client.WithPacing(client.PaceNever), client.WithRetry(client.RetryPolicy{Attempts: 1}))
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Code != client.CodeTooManyRequests {
		t.Fatalf("unpaced walk: %d records, %v; want a 429 before the end", n, err)
	}
	t.Logf("without pacing or retries: 429 after %d records", n)

	spend(30)
	n, took, tr, err := walk()
	if err != nil || n != 1000 {
		t.Fatalf("default walk: %d records, %v; want all 1000 without an error", n, err)
	}
	t.Logf("with the defaults: %d records in %v, %d requests, %d of them refused with 429 and retried",
		n, took.Round(time.Millisecond), tr.requests.Load(), tr.refused.Load())
}

// TestTypeScriptClientPagesProPlan builds clients/typescript (npm ci,
// types generated from the OpenAPI document, tsc) in a copy, and runs its
// Node tests, the paging one against the real binaries as
// TestClientPagesProPlan does with the Go client: all 1,000 records of a
// Pro key whose burst is mostly spent, without an error. npm ci fetches
// packages, so the test is skipped unless EXERCISEDB_NPM_TESTS is set
// (.ci/run sets it); set, it fails without node and npm.
func TestTypeScriptClientPagesProPlan(t *testing.T) {
	if os.Getenv("EXERCISEDB_NPM_TESTS") == "" {
		t.Skip("runs npm ci; set EXERCISEDB_NPM_TESTS=1 to run it")
	}
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed, and EXERCISEDB_NPM_TESTS requires it (apt-get install nodejs npm)", tool)
		}
	}
	dir := t.TempDir()
	src := "../../clients/typescript"
	for _, name := range []string{"package.json", "package-lock.json", "tsconfig.json", "src/index.ts", "test/client.test.mjs"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	openapi, err := filepath.Abs("../../gateway/httpapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "npm_config_update_notifier=false"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(nil, "npm", "ci", "--no-audit", "--no-fund")
	run(nil, "npx", "--no", "--", "openapi-typescript", openapi, "-o", "src/schema.d.ts")
	run(nil, "npx", "--no", "--", "tsc", "-p", ".")

	cat := startCatalog(t)
	config := devConfig(t, cat.grpc)
	key := newKey(t, config, "key_dev", "exercisedb=Pro")
	g := startGateway(t, config)
	c := newClient(t)
	for range 30 { // another part of the app spent most of the burst
		api(t, c, g, "/api/v1/bodyparts", key, "exercisedb.example.com")
	}
	out := run([]string{"EXERCISEDB_BASE_URL=http://" + g.http, "EXERCISEDB_KEY=" + key, "EXERCISEDB_HOST=exercisedb.example.com", "EXERCISEDB_WANT_RECORDS=1000"},
		"node", "--test", "test/client.test.mjs")
	line := regexp.MustCompile(`paged \d+ records in .*`).FindString(out)
	if line == "" || !strings.Contains(out, "# fail 0") || !strings.Contains(out, "# skipped 0") {
		t.Fatalf("node --test:\n%s", out)
	}
	t.Log(line)
}
