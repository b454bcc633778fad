package pgstore

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/keys/keystest"
	"github.com/exercisedb/exercisedb/internal/pgtest"
	"github.com/exercisedb/exercisedb/internal/testlog"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

func openKeys(t *testing.T, url string, o KeysOptions) *Keys {
	t.Helper()
	s, err := OpenKeys(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestKeysStore holds Keys to what every keys.Store does.
func TestKeysStore(t *testing.T) {
	keystest.Run(t, func(t *testing.T, now func() time.Time) keys.Store {
		url, _ := pgtest.URL(t)
		s := openKeys(t, url, KeysOptions{Now: now})
		watchKeys(t, s)
		return s
	})
}

// watchKeys runs s.Watch until the test ends.
func watchKeys(t *testing.T, s *Keys) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Watch(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func TestKeysMigrateTogether(t *testing.T) {
	url, _ := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := OpenKeys(context.Background(), url, KeysOptions{})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("OpenKeys: %v", err)
		}
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM gateway_keys_migrations`).Scan(&n); err != nil || n != len(files) {
		t.Errorf("migrations recorded: %d (%v), want %d", n, err, len(files))
	}
}

func TestKeysUnreachableAtStart(t *testing.T) {
	_, err := OpenKeys(context.Background(), "postgres://gw:secret-pw@127.0.0.1:1/none?connect_timeout=2", KeysOptions{})
	if err == nil {
		t.Fatal("OpenKeys of an unreachable database: no error")
	}
	if strings.Contains(err.Error(), "secret-pw") {
		t.Errorf("error shows the password: %v", err)
	}
}

// TestKeysMissingSchema: a search_path naming no schema is an error
// that says so, not PostgreSQL's "no schema has been selected to create in".
func TestKeysMissingSchema(t *testing.T) {
	dbURL, schema := pgtest.URL(t)
	missing := schema + "_missing"
	_, err := OpenKeys(context.Background(), strings.Replace(dbURL, "search_path="+schema, "search_path="+missing, 1), KeysOptions{})
	if err == nil || !strings.Contains(err.Error(), `no schema of the search_path ("`+missing+`") exists`) {
		t.Errorf("OpenKeys with a missing schema: %v, want an error naming the search_path", err)
	}
}

// TestKeysOutage cuts the network between a replica and the database:
// the replica keeps its keys, logs the outage once, and catches up with the
// changes made meanwhile when the database is back.
func TestKeysOutage(t *testing.T) {
	direct, _ := pgtest.URL(t)
	admin := openKeys(t, direct, KeysOptions{Now: keystest.NewClock(keystest.T0).Now})
	before := keystest.MustCreate(t, admin, keys.New{ID: "key_before", Products: map[string]string{"exercisedb": "Pro"}})

	u, _ := url.Parse(direct)
	proxy := testnet.NewProxy(t, u.Host)
	u.Host = proxy.Addr
	logs := &testlog.Buffer{}
	replica := openKeys(t, u.String(), KeysOptions{Log: slog.New(slog.NewTextHandler(logs, nil))})
	var failures atomic.Int64
	replica.OnSync = func(err error) {
		if err != nil {
			failures.Add(1)
		}
	}
	watchKeys(t, replica)
	keystest.InForce(t, replica, before.Secret, true)

	proxy.Cut()
	keystest.WaitFor(t, "outage seen", func() bool { return !replica.Up() && failures.Load() >= 2 })
	during := keystest.MustCreate(t, admin, keys.New{ID: "key_during", Products: map[string]string{"exercisedb": "Pro"}})
	if _, ok := replica.Current().Lookup(before.Secret); !ok {
		t.Error("the keys last loaded are not in force during the outage")
	}
	if n := strings.Count(logs.String(), "key store unreachable"); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logs)
	}

	proxy.Restore()
	keystest.InForce(t, replica, during.Secret, true)
	keystest.WaitFor(t, "back up", replica.Up)
	if !strings.Contains(logs.String(), "key store reachable again") {
		t.Errorf("recovery not logged:\n%s", logs)
	}
}

// TestKeysTerminated drops the replica's connections on the server
// side; it reconnects and resyncs.
func TestKeysTerminated(t *testing.T) {
	url, schema := pgtest.URL(t)
	s := openKeys(t, url, KeysOptions{Now: keystest.NewClock(keystest.T0).Now})
	var syncs atomic.Int64
	s.OnSync = func(err error) {
		if err == nil {
			syncs.Add(1)
		}
	}
	watchKeys(t, s)
	keystest.WaitFor(t, "listening", func() bool { return syncs.Load() > 0 })
	pgtest.Exec(t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, schema)
	k := keystest.MustCreate(t, s, keys.New{Products: map[string]string{"exercisedb": "Pro"}})
	keystest.InForce(t, s, k.Secret, true)
}

// TestKeysResync: with the table's trigger disabled (so no change is
// notified), a key inserted or deleted is in force, or out of it, within
// ResyncEvery and a margin: the periodic full reload alone catches up.
func TestKeysResync(t *testing.T) {
	const every, margin = 300 * time.Millisecond, time.Second
	url, schema := pgtest.URL(t)
	logs := &testlog.Buffer{}
	s := openKeys(t, url, KeysOptions{ResyncEvery: every, Now: keystest.NewClock(keystest.T0).Now,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	var syncs atomic.Int64
	s.OnSync = func(err error) {
		if err == nil {
			syncs.Add(1)
		}
	}
	pgtest.Exec(t, `ALTER TABLE `+schema+`.gateway_keys DISABLE TRIGGER gateway_keys_changed`)
	watchKeys(t, s)
	keystest.WaitFor(t, "listening", func() bool { return syncs.Load() > 0 })

	// within waits until the key's presence is want, failing after
	// every+margin; it returns how long that took.
	within := func(what, secret string, want bool) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			if _, ok := s.Current().Lookup(secret); ok == want {
				return time.Since(start)
			}
			if time.Since(start) > every+margin {
				t.Fatalf("%s: not within ResyncEvery (%v) + %v", what, every, margin)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	k := keystest.MustCreate(t, s, keys.New{ID: "key_resync", Products: map[string]string{"exercisedb": "Pro"}})
	created := within("created", k.Secret, true)
	if err := s.Delete(context.Background(), k.ID); err != nil {
		t.Fatal(err)
	}
	deleted := within("deleted", k.Secret, false)
	t.Logf("with no notification: in force %v after the insert, out of force %v after the delete", created.Round(time.Millisecond), deleted.Round(time.Millisecond))
	if strings.Contains(logs.String(), "reason=notified") {
		t.Errorf("a reload was notified, the trigger is not disabled:\n%s", logs)
	}
	if !strings.Contains(logs.String(), "reason=periodic") {
		t.Errorf("no periodic reload logged:\n%s", logs)
	}
}

// TestKeysInvalidRow: a row that does not decode (what psql can write
// in a database migrated before 002, or with the constraint dropped) is
// skipped and logged by id; every other key loads and changes keep
// reaching the replica.
func TestKeysInvalidRow(t *testing.T) {
	url, schema := pgtest.URL(t)
	logs := &testlog.Buffer{}
	c := keystest.NewClock(keystest.T0)
	s := openKeys(t, url, KeysOptions{Now: c.Now, Log: slog.New(slog.NewTextHandler(logs, nil))})
	watchKeys(t, s)
	ctx := context.Background()
	pro := map[string]string{"exercisedb": "Pro"}
	good := keystest.MustCreate(t, s, keys.New{ID: "key_b", Products: pro})
	poison := keystest.MustCreate(t, s, keys.New{ID: "key_c", Products: pro})
	keystest.MustCreate(t, s, keys.New{ID: "key_d", Products: pro})
	keystest.InForce(t, s, poison.Secret, true)

	// The new constraint refuses the row; without it (a row written
	// before the migration) the load must cope.
	bad := `UPDATE ` + schema + `.gateway_keys SET products = '{"exercisedb": 1}' WHERE id = 'key_c'`
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, bad); err == nil || !strings.Contains(err.Error(), "gateway_keys_products_plans") {
		t.Errorf("a plan that is a number: %v, want the check gateway_keys_products_plans to refuse it", err)
	}
	pgtest.Exec(t, `ALTER TABLE `+schema+`.gateway_keys DROP CONSTRAINT gateway_keys_products_plans`)
	pgtest.Exec(t, bad)

	keystest.InForce(t, s, poison.Secret, false)
	keystest.InForce(t, s, good.Secret, true)
	if !s.Up() || s.Invalid() != 1 {
		t.Errorf("Up %v, Invalid %d; want true, 1", s.Up(), s.Invalid())
	}
	if !strings.Contains(logs.String(), `key_id=key_c problem="products: want an object`) {
		t.Errorf("the bad row is not logged by id:\n%s", logs)
	}
	if strings.Contains(logs.String(), "key store unreachable") {
		t.Errorf("a bad row is logged as an outage:\n%s", logs)
	}

	// Changes keep flowing.
	after := keystest.MustCreate(t, s, keys.New{ID: "key_e", Products: pro})
	keystest.InForce(t, s, after.Secret, true)
	if err := s.Delete(ctx, good.ID); err != nil {
		t.Fatal(err)
	}
	keystest.InForce(t, s, good.Secret, false)

	// The bad row is named by Get and List, and can be deleted.
	if _, err := s.Get(ctx, "key_c"); !errors.Is(err, keys.ErrInvalidRow) || !strings.Contains(err.Error(), `key "key_c"`) {
		t.Errorf("Get of the bad row: %v, want keys.ErrInvalidRow naming it", err)
	}
	if _, err := s.Update(ctx, "key_c", keys.Change{Disabled: new(bool)}); !errors.Is(err, keys.ErrInvalidRow) {
		t.Errorf("Update of the bad row: %v, want ErrInvalidRow", err)
	}
	for _, tt := range []struct {
		after string
		limit int
		keys  []string
		bad   []string
		more  bool
	}{
		{"", 10, []string{"key_d", "key_e"}, []string{"key_c"}, false},
		{"", 1, []string{"key_d"}, []string{"key_c"}, true},
		{"key_d", 1, []string{"key_e"}, nil, false},
		{"key_a", 1, []string{"key_d"}, []string{"key_c"}, true},
	} {
		p, err := s.List(ctx, tt.after, tt.limit)
		if err != nil {
			t.Fatalf("List(%q, %d): %v", tt.after, tt.limit, err)
		}
		var keys, bad []string
		for _, k := range p.Keys {
			keys = append(keys, k.ID)
		}
		for _, b := range p.Invalid {
			bad = append(bad, b.ID)
		}
		if !slices.Equal(keys, tt.keys) || !slices.Equal(bad, tt.bad) || p.More != tt.more || p.Total != 3 {
			t.Errorf("List(%q, %d) = keys %v, invalid %v, more %v, total %d; want %v, %v, %v, 3",
				tt.after, tt.limit, keys, bad, p.More, p.Total, tt.keys, tt.bad, tt.more)
		}
	}
	if err := s.Delete(ctx, "key_c"); err != nil {
		t.Fatal(err)
	}
	keystest.WaitFor(t, "no invalid row", func() bool { return s.Invalid() == 0 })
}

// TestReconnectDelay checks the backoff between connection attempts: at
// once after a connection that worked, then growing, jittered within the
// upper half, and never longer than reconnectMax however long the outage.
func TestReconnectDelay(t *testing.T) {
	if d := reconnectDelay(0, 0.99); d != 0 {
		t.Errorf("after a connection that worked: %v, want at once", d)
	}
	prev := time.Duration(0)
	for failures := 1; failures < 1000; failures++ {
		lo, hi := reconnectDelay(failures, 0), reconnectDelay(failures, 0.999999)
		if lo <= 0 || hi > reconnectMax || lo < hi/2-time.Millisecond || lo < prev {
			t.Fatalf("after %d failures: between %v and %v (before: from %v); want positive, growing, at most %v, jitter within the upper half",
				failures, lo, hi, prev, reconnectMax)
		}
		prev = lo
	}
	if got := reconnectDelay(1000, 0); got != reconnectMax/2 {
		t.Errorf("after a long outage: at least %v, want %v", got, reconnectMax/2)
	}
}
