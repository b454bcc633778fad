package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/docexample"
	"github.com/exercisedb/exercisedb/internal/pgtest"
	"github.com/exercisedb/exercisedb/internal/testbin"
	"github.com/exercisedb/exercisedb/internal/testnet"
	"github.com/exercisedb/exercisedb/pkg/admin"
)

// adminToken is the admin API's bearer token in these tests.
const adminToken = "test-admin-token"

// withKeyService adds the admin token and, when dbURL is not empty, the
// PostgreSQL key store to the configuration at config.
func withKeyService(t *testing.T, config, dbURL string) {
	t.Helper()
	extra := "admin:\n  token_hash: " + admin.HashToken(adminToken) + "\n"
	if dbURL != "" {
		extra += "keys_postgres_url: " + dbURL + "\n"
	}
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(extra); err != nil {
		t.Fatal(err)
	}
}

// adminCall calls the admin API of g with the admin token.
func adminCall(t *testing.T, c *http.Client, g *gateway, method, path, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+g.admin+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	r, err := do(c, req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// createdKey is the answer of POST /admin/v1/keys and of a rotation.
type createdKey struct {
	ID, Key string
}

func decodeCreated(t *testing.T, r response) createdKey {
	t.Helper()
	var k createdKey
	if err := json.Unmarshal(r.body, &k); err != nil || r.status != http.StatusCreated || k.Key == "" {
		t.Fatalf("got %s, want 201 with a key", r)
	}
	return k
}

// TestKeysReplicasPostgres runs three gateways on one database: a key
// created, disabled, rotated and deleted through one replica's admin API
// takes effect on all three, and how long that takes is reported. Then the
// database drops every connection of the gateways: no key is lost, and
// changes made after it reach every replica.
func TestKeysReplicasPostgres(t *testing.T) {
	dbURL, schema := pgtest.URL(t)
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	withKeyService(t, config, dbURL)
	var gs []*gateway
	for range 3 {
		gs = append(gs, startGateway(t, config))
	}
	c := newClient(t)

	// propagation waits until want holds on every replica, and returns how
	// long after start the last one got there.
	var latencies []string
	propagation := func(what string, start time.Time, key string, want int, msg string) {
		t.Helper()
		var wg sync.WaitGroup
		took := make([]time.Duration, len(gs))
		for i, g := range gs {
			wg.Go(func() {
				deadline := time.Now().Add(pollTimeout)
				for time.Now().Before(deadline) {
					if status, body := statusOf(t, c, g, "/api/v1/liveness", key, gifHost); status == want && strings.Contains(body, msg) {
						took[i] = time.Since(start)
						return
					}
					time.Sleep(2 * time.Millisecond)
				}
				took[i] = -1
			})
		}
		wg.Wait()
		slowest := time.Duration(0)
		for i, d := range took {
			if d < 0 {
				t.Fatalf("%s: replica %d did not answer %d within %v", what, i, want, pollTimeout)
			}
			slowest = max(slowest, d)
		}
		latencies = append(latencies, fmt.Sprintf("%s %v", what, slowest.Round(time.Millisecond)))
	}

	start := time.Now()
	k := decodeCreated(t, adminCall(t, c, gs[0], "POST", "/admin/v1/keys", `{"name":"replicated","products":{"exercisedb":"Pro"}}`))
	propagation("create", start, k.Key, http.StatusOK, "")

	start = time.Now()
	if r := adminCall(t, c, gs[0], "PATCH", "/admin/v1/keys/"+k.ID, `{"disabled":true}`); r.status != http.StatusOK {
		t.Fatalf("disable: %s", r)
	}
	propagation("disable", start, k.Key, http.StatusUnauthorized, "disabled")

	start = time.Now()
	adminCall(t, c, gs[0], "PATCH", "/admin/v1/keys/"+k.ID, `{"disabled":false}`)
	propagation("enable", start, k.Key, http.StatusOK, "")

	start = time.Now()
	next := decodeCreated(t, adminCall(t, c, gs[0], "POST", "/admin/v1/keys/"+k.ID+"/rotate", `{"overlap":"0s"}`))
	propagation("rotate (new key)", start, next.Key, http.StatusOK, "")
	propagation("rotate (old key ended)", start, k.Key, http.StatusUnauthorized, "expired")

	start = time.Now()
	if r := adminCall(t, c, gs[0], "DELETE", "/admin/v1/keys/"+next.ID, ""); r.status != http.StatusNoContent {
		t.Fatalf("delete: %s", r)
	}
	propagation("delete", start, next.Key, http.StatusUnauthorized, "Invalid API key")

	// Drop every connection of the three gateways mid-run.
	kept := decodeCreated(t, adminCall(t, c, gs[1], "POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`))
	propagation("create (before the drop)", time.Now(), kept.Key, http.StatusOK, "")
	pgtest.Exec(t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, schema)
	start = time.Now()
	after := decodeCreated(t, adminCall(t, c, gs[2], "POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`))
	propagation("create (after the drop, with reconnection)", start, after.Key, http.StatusOK, "")
	for i, g := range gs {
		if status, body := statusOf(t, c, g, "/api/v1/liveness", kept.Key, gifHost); status != http.StatusOK {
			t.Errorf("replica %d lost a key after the drop: %d %s", i, status, body)
		}
		testnet.Eventually(t, "back up", func() error {
			up := counter(t, c, g, "exercisedb_gateway_key_store_up")
			return testnet.Unless(up == 1, fmt.Sprint("exercisedb_gateway_key_store_up ", up))
		})
		if n := counter(t, c, g, `exercisedb_gateway_key_store_syncs_total{result="error"}`); n < 1 {
			t.Errorf("replica %d counted no failed sync after the drop", i)
		}
		if len(g.LogEntries("key store unreachable; the keys last loaded stay in force until it is back")) != 1 {
			t.Errorf("replica %d did not log the outage once", i)
		}
	}
	t.Logf("propagation to the slowest of 3 replicas, from before the admin call: %s", strings.Join(latencies, ", "))
	for _, g := range gs {
		if strings.Contains(strings.Join(g.Log(), "\n"), strings.TrimPrefix(k.Key, "exdb_")) {
			t.Error("a key appears in a gateway's log")
		}
	}
}

// TestKeysPostgresRestart restarts the database under three gateways (a
// private PostgreSQL server, stopped and started again on its data): while
// it is down every replica keeps serving the keys it had, says so once in
// its log and in key_store_up, and refuses admin changes with a 503
// envelope; once it is back, a change made through one replica reaches all.
// It runs twice: restarted at once, and after 20 s down, long enough for the
// replicas' reconnection backoff to reach its longest wait.
func TestKeysPostgresRestart(t *testing.T) {
	for _, outage := range []time.Duration{0, 20 * time.Second} {
		t.Run(fmt.Sprint("down ", outage), func(t *testing.T) { testKeysPostgresRestart(t, outage) })
	}
}

func testKeysPostgresRestart(t *testing.T, outage time.Duration) {
	db := pgtest.NewServer(t)
	config := testConfig(t, "127.0.0.1:1", options{}) // liveness does not call the catalog
	withKeyService(t, config, db.URL())
	var gs []*gateway
	for range 3 {
		gs = append(gs, startGateway(t, config))
	}
	c := newClient(t)
	everywhere := func(what, key string) {
		t.Helper()
		for i, g := range gs {
			testnet.Eventually(t, fmt.Sprintf("%s on replica %d", what, i), func() error {
				status, body := statusOf(t, c, g, "/api/v1/liveness", key, gifHost)
				return testnet.Unless(status == http.StatusOK, fmt.Sprint(status, " ", body))
			})
		}
	}
	storeUp := func(want float64) {
		t.Helper()
		for i, g := range gs {
			testnet.Eventually(t, fmt.Sprintf("replica %d: key_store_up %v", i, want), func() error {
				up := counter(t, c, g, "exercisedb_gateway_key_store_up")
				return testnet.Unless(up == want, fmt.Sprint("exercisedb_gateway_key_store_up ", up))
			})
		}
	}
	before := decodeCreated(t, adminCall(t, c, gs[0], "POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`))
	everywhere("key made before the restart", before.Key)

	db.Stop()
	storeUp(0)
	for i, g := range gs {
		if status, body := statusOf(t, c, g, "/api/v1/liveness", before.Key, gifHost); status != http.StatusOK {
			t.Errorf("replica %d, database down: the key it had: %d %s", i, status, body)
		}
	}
	checkError(t, adminCall(t, c, gs[1], "POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`), http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")

	time.Sleep(outage)
	db.Start()
	back := time.Now()
	after := decodeCreated(t, adminCall(t, c, gs[1], "POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`))
	start := time.Now()
	everywhere("key made after the restart", after.Key)
	t.Logf("database back after %v down: a key made through one replica at once served by all three %v after the admin call began, %v after the database was back",
		outage, time.Since(start).Round(time.Millisecond), time.Since(back).Round(time.Millisecond))
	storeUp(1)
	for i, g := range gs {
		if status, body := statusOf(t, c, g, "/api/v1/liveness", before.Key, gifHost); status != http.StatusOK {
			t.Errorf("replica %d lost a key over the restart: %d %s", i, status, body)
		}
		if n := len(g.LogEntries("key store unreachable; the keys last loaded stay in force until it is back")); n != 1 {
			t.Errorf("replica %d logged the outage %d times, want once", i, n)
		}
	}
}

// TestKeysCLI runs every keys subcommand against the keys file and, with
// DATABASE_URL, against PostgreSQL.
func TestKeysCLI(t *testing.T) {
	for _, kind := range []string{"file", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			config := testConfig(t, "127.0.0.1:1", options{})
			if kind == "postgres" {
				dbURL, _ := pgtest.URL(t)
				withKeyService(t, config, dbURL)
			}
			gw := func(args ...string) testbin.Result {
				t.Helper()
				r := runGateway(t, append([]string{"keys", args[0], "-config", config}, args[1:]...)...)
				if r.Code != 0 {
					t.Fatalf("keys %s: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
				}
				return r
			}
			key := strings.TrimSpace(gw("create", "-id", "key_cli", "-name", "cli app", "-product", "exercisedb=Pro", "-expires", "2099-01-01T00:00:00Z").Stdout)
			if !strings.HasPrefix(key, "exdb_") {
				t.Fatalf("create printed %q", key)
			}
			gw("disable", "key_cli")
			list := gw("list").Stdout
			if !strings.Contains(list, "key_cli") || !strings.Contains(list, "exercisedb=Pro") || !strings.Contains(list, "true") ||
				!strings.Contains(list, "2099-01-01T00:00:00Z") || strings.Contains(list, key) {
				t.Errorf("list after disable:\n%s", list)
			}
			if r := runGateway(t, "keys", "rotate", "-config", config, "key_cli"); r.Code != 1 || !strings.Contains(r.Stderr, "disabled") {
				t.Errorf("rotate of a disabled key: exit %d: %s", r.Code, r.Stderr)
			}
			gw("disable", "-enable", "key_cli")
			rotated := gw("rotate", "-overlap", "1h", "key_cli")
			if next := strings.TrimSpace(rotated.Stdout); !strings.HasPrefix(next, "exdb_") || next == key {
				t.Errorf("rotate printed %q", rotated.Stdout)
			}
			gw("delete", "key_cli")
			if list := gw("list").Stdout; strings.Contains(list, "key_cli ") || strings.Count(list, "\n") != 2 {
				t.Errorf("list after delete (the rotated key left):\n%s", list)
			}
			if r := runGateway(t, "keys", "delete", "-config", config, "key_cli"); r.Code != 1 || !strings.Contains(r.Stderr, "no key has this id") {
				t.Errorf("delete of an unknown id: exit %d: %s", r.Code, r.Stderr)
			}
		})
	}
}

// TestExpiredKey checks the 401 of an expired key, that it is not charged
// to the address's failed authentications, and that the admin API is off
// (404) without a token hash.
func TestExpiredKey(t *testing.T) {
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	limitAuthFailures(t, config)
	key := "exdb_expired-key-of-the-test"
	data := "keys:\n  - id: key_old\n    hash: " + sha256Hash(key) + "\n    products: {exercisedb: Pro}\n    expires_at: 2020-01-01T00:00:00Z\n"
	if err := os.WriteFile(keysPath(config), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, config)
	c := newClient(t)
	r := api(t, c, g, "/api/v1/liveness", key, gifHost)
	checkError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	if !strings.Contains(string(r.body), "This API key expired at 2020-01-01T00:00:00Z.") {
		t.Errorf("body %s, want it to say the key expired", r.body)
	}
	for range 15 { // past the failures' burst of 10
		r = api(t, c, g, "/api/v1/liveness", key, gifHost)
	}
	checkError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	if r = api(t, c, g, "/api/v1/liveness", "exdb_unknown", gifHost); r.status != http.StatusUnauthorized {
		t.Errorf("an unknown key after 16 expired ones: %d %s, want 401 (the expired ones not charged)", r.status, r.body)
	}
	if status, body := adminGet(c, g, "/admin/v1/keys"); status != http.StatusNotFound {
		t.Errorf("admin API without admin.token_hash: %d %s, want 404", status, body)
	}
}

// TestREADMEKeyService runs the README's admin API examples (the curl
// commands to 127.0.0.1:9091/admin/v1) against the real binaries configured
// as `make run` is, with keys in PostgreSQL and an admin token.
func TestREADMEKeyService(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var examples []docexample.Example
	for _, ex := range docexample.Parse(string(md)) {
		if strings.HasPrefix(ex.Command, "curl ") && strings.Contains(ex.Command, "127.0.0.1:9091/admin/v1") {
			examples = append(examples, ex)
		}
	}
	if len(examples) < 8 {
		t.Fatalf("found %d admin API examples in README.md; the parser or the README changed", len(examples))
	}
	dbURL, _ := pgtest.URL(t)
	cat := startCatalog(t)
	config := devConfig(t, cat.grpc)
	withKeyService(t, config, dbURL)
	g := startGateway(t, config)
	for _, ex := range examples {
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(ex.Command, "127.0.0.1:9091", g.admin))
		cmd.Env = append(os.Environ(), "ADMIN_TOKEN="+adminToken)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("README.md:%d: %s: %v\n%s", ex.Line, ex.Command, err, out)
			continue
		}
		if got := string(out); !docexample.Match(ex.Output, got) {
			t.Errorf("README.md:%d: %s\nprints:\n%s\nREADME shows:\n%s", ex.Line, ex.Command, got, strings.Join(ex.Output, "\n"))
		}
	}
}

// TestKeysPostgresUnreachableAtStart: a gateway whose key database cannot
// be reached does not start, and says why without the password.
func TestKeysPostgresUnreachableAtStart(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{})
	withKeyService(t, config, "postgres://gw:hunter2@127.0.0.1:1/keys?sslmode=disable&connect_timeout=2")
	r := runGateway(t, "-config", config)
	if r.Code != 1 || !strings.Contains(r.Stderr, "key store: PostgreSQL at 127.0.0.1:1/keys") || strings.Contains(r.Stderr, "hunter2") {
		t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
}

// TestKeysCLIInvalidRow: a row of gateway_keys that does not decode (one
// written before the products check, here with the check dropped) is
// named by keys list, which lists the others and exits 1.
func TestKeysCLIInvalidRow(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{})
	dbURL, schema := pgtest.URL(t)
	withKeyService(t, config, dbURL)
	for _, id := range []string{"key_a", "key_poison", "key_z"} {
		if r := runGateway(t, "keys", "create", "-config", config, "-id", id, "-product", "exercisedb=Pro"); r.Code != 0 {
			t.Fatalf("keys create: exit %d: %s", r.Code, r.Stderr)
		}
	}
	pgtest.Exec(t, `ALTER TABLE `+schema+`.gateway_keys DROP CONSTRAINT gateway_keys_products_plans`)
	pgtest.Exec(t, `UPDATE `+schema+`.gateway_keys SET products = '{"exercisedb": 1}' WHERE id = 'key_poison'`)
	r := runGateway(t, "keys", "list", "-config", config)
	if r.Code != 1 || !strings.Contains(r.Stderr, `the row of key "key_poison" (products: want an object`) {
		t.Errorf("keys list: exit %d, stderr %q; want 1 and the bad row named", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "key_a") || !strings.Contains(r.Stdout, "key_z") || strings.Contains(r.Stdout, "key_poison") {
		t.Errorf("keys list printed:\n%s\nwant the other keys", r.Stdout)
	}
	if r := runGateway(t, "keys", "delete", "-config", config, "key_poison"); r.Code != 0 {
		t.Errorf("keys delete of the bad row: exit %d: %s", r.Code, r.Stderr)
	}
}

// TestKeysCLINames: keys create refuses what the admin API refuses in a
// name, and keys list never prints a control character of a name written
// by hand: such a name is quoted.
func TestKeysCLINames(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{})
	for name, want := range map[string]string{
		"\x1b[31mred":    "keys create: -name: U+001B at byte 0 is a control character; want one line of printable text\n",
		"evil\u202eppa":  "keys create: -name: U+202E at byte 4 is an invisible format character",
		"not utf-8 \xff": "keys create: -name: not valid UTF-8\n",
	} {
		r := runGateway(t, "keys", "create", "-config", config, "-name", name, "-product", "exercisedb=Pro")
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || r.Stdout != "" {
			t.Errorf("keys create -name %q: exit %d, stdout %q, stderr %q; want 1 and %q", name, r.Code, r.Stdout, r.Stderr, want)
		}
	}
	data := "keys:\n  - id: key_hand\n    name: \"\\e[2Jcleared\\u202e\"\n    hash: " + sha256Hash("exdb_hand") + "\n    products: {exercisedb: Pro}\n"
	if err := os.WriteFile(keysPath(config), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runGateway(t, "keys", "list", "-config", config)
	if r.Code != 0 || strings.ContainsAny(r.Stdout, "\x1b\u202e") || !strings.Contains(r.Stdout, `"\x1b[2Jcleared\u202e"`) {
		t.Errorf("keys list: exit %d, stdout %q; want the name quoted", r.Code, r.Stdout)
	}
}

// TestKeysCLIArguments: what the admin API refuses, keys create refuses
// too (a product given twice), stray arguments are named, not ignored,
// every keys subcommand answers -h with exit 0, and messages name the
// program once.
func TestKeysCLIArguments(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{})
	for _, tt := range []struct {
		args []string
		want string // the whole of stderr
	}{
		{[]string{"create", "-config", config, "-product", "exercisedb=Pro", "-product", "exercisedb=Basic"},
			`gateway: keys create: invalid value "exercisedb=Basic" for flag -product: product "exercisedb" is given twice; give each product once (gateway keys create -h lists its flags)`},
		{[]string{"create", "-config", config, "-product", "exercisedb=Pro", "extra"},
			`gateway: keys create: takes no arguments after the flags, got "extra"`},
		{[]string{"create", "-config", config, "extra", "-product", "exercisedb=Pro"},
			`gateway: keys create: takes no arguments after the flags, got "extra" "-product" "exercisedb=Pro"; flags after an argument are not read`},
		{[]string{"list", "-config", config, "all"}, `gateway: keys list: takes no arguments after the flags, got "all"`},
		{[]string{"disable", "-config", config, "key_a", "key_b"}, `gateway: keys disable: takes one key id, got 2 arguments: "key_a" "key_b"`},
		{[]string{"disable", "-config", config, "key_a", "-enable"}, `gateway: keys disable: takes one key id, got 2 arguments: "key_a" "-enable"; flags go before the id`},
		{[]string{"disable", "-config", config}, `gateway: keys disable: give the key's id after the flags`},
		{[]string{"rotate", "-config", config, "key_a", "key_b"}, `gateway: keys rotate: takes one key id, got 2 arguments`},
		{[]string{"delete", "-config", config, "key_a", "key_b"}, `gateway: keys delete: takes one key id, got 2 arguments`},
		{[]string{"delete", "-config", config, "key_none"}, `gateway: keys delete: key "key_none": no key has this id`},
		{[]string{"create", "-nope"}, `gateway: keys create: flag provided but not defined: -nope (gateway keys create -h lists its flags)`},
		{[]string{"create", "-config", config, "-product", "exercisedb=Pro", "-expires", "2020-01-01T00:00:00Z"},
			`gateway: keys create: -expires: the time is not in the future`}, // the flag, not the admin API's expiresAt
		{[]string{"frobnicate"}, `gateway: unknown command "keys frobnicate"; usage: gateway keys create|list|disable|rotate|delete`},
	} {
		r := runGateway(t, append([]string{"keys"}, tt.args...)...)
		if r.Code != 1 || !strings.HasPrefix(r.Stderr, tt.want) || strings.Count(r.Stderr, "gateway:") != 1 || r.Stdout != "" {
			t.Errorf("gateway keys %s: exit %d, stdout %q, stderr %q; want 1 and %q", strings.Join(tt.args, " "), r.Code, r.Stdout, r.Stderr, tt.want)
		}
	}
	if _, err := os.Stat(keysPath(config)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused command wrote the keys file: %v", err)
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"create", "-h"}, {"list", "-h"}, {"disable", "-h"}, {"rotate", "--help"}, {"delete", "-h"}} {
		r := runGateway(t, append([]string{"keys"}, args...)...)
		if r.Code != 0 || !strings.Contains(r.Stdout, "gateway keys") || r.Stderr != "" {
			t.Errorf("gateway keys %s: exit %d, stdout %q, stderr %q; want 0 and help on stdout", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
		}
	}
	if r := runGateway(t, "keys", "create", "-h"); !strings.Contains(r.Stdout, "-product PRODUCT=PLAN") || !strings.Contains(r.Stdout, "-expires") {
		t.Errorf("gateway keys create -h:\n%s", r.Stdout)
	}
}
