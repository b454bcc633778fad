package usage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
	"github.com/exercisedb/exercisedb/gateway/pgstore"
	"github.com/exercisedb/exercisedb/internal/pgtest"
)

// noon is a fixed instant the tests count at.
var noon = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func clock(t time.Time) func() time.Time { return func() time.Time { return t } }

// stores returns the stores every test of the shared suite runs on: the
// memory store; with REDIS_URL, Redis under a prefix of the test's own;
// with DATABASE_URL, PostgreSQL in a schema of the test's own.
func stores(t *testing.T) map[string]func(t *testing.T) store {
	return map[string]func(t *testing.T) store{
		"memory": func(*testing.T) store { return newMemoryStore(DefaultRetention) },
		"redis": func(t *testing.T) store {
			c := redistest.Client(t)
			return &redisStore{client: c, prefix: redistest.Prefix(t, c), ttl: DefaultRetention}
		},
		"postgres": func(t *testing.T) store {
			return &postgresStore{pool: postgresPool(t), retention: day(DefaultRetention / (24 * time.Hour))}
		},
	}
}

// postgresPool returns a pool on a schema of the test's own, migrated as
// the key store migrates it (the usage tables are its migration 003).
func postgresPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return newPool(t, postgresURL(t))
}

// postgresURL returns the URL of a schema of the test's own, migrated.
func postgresURL(t *testing.T) string {
	t.Helper()
	url, _ := pgtest.URL(t)
	k, err := pgstore.OpenKeys(context.Background(), url, pgstore.KeysOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	return url
}

// newPool returns a pool on url, closed when the test ends.
func newPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestStores holds both stores to one behaviour: added counts read back by
// key and day, summed over adds; last use only moves forward.
func TestStores(t *testing.T) {
	today := dayOf(noon)
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			add := func(rows []row, last map[string]int64) {
				t.Helper()
				if err := s.add(ctx, rows, last, noon); err != nil {
					t.Fatal(err)
				}
			}
			add([]row{
				{bucket{"key_a", "exercisedb", today}, counts{3, 1, 2, 0}},
				{bucket{"key_a", "exercisedb-video", today}, counts{1, 0, 0, 1}},
				{bucket{"key_a", "exercisedb", today - 1}, counts{5, 0, 0, 0}},
				{bucket{"key_b", "exercisedb", today}, counts{7, 0, 0, 0}},
			}, map[string]int64{"key_a": 600, "key_b": 1200})
			add([]row{{bucket{"key_a", "exercisedb", today}, counts{1, 0, 0, 0}}}, map[string]int64{"key_a": 60})

			got, err := s.read(ctx, "key_a", today-1, today)
			if err != nil {
				t.Fatal(err)
			}
			want := map[bucket]counts{
				{"key_a", "exercisedb", today}:       {4, 1, 2, 0},
				{"key_a", "exercisedb-video", today}: {1, 0, 0, 1},
				{"key_a", "exercisedb", today - 1}:   {5, 0, 0, 0},
			}
			if diff := cmp.Diff(want, byBucket(got)); diff != "" {
				t.Errorf("read (-want +got):\n%s", diff)
			}
			got, err = s.read(ctx, "key_a", today, today)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Errorf("read of today: %d rows, want 2", len(got))
			}
			last, err := s.lastUsed(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]int64{"key_a": 600, "key_b": 1200}, last); diff != "" {
				t.Errorf("lastUsed (-want +got):\n%s", diff)
			}
			// A last use older than since is forgotten, not only left out.
			for range 2 {
				last, err = s.lastUsed(ctx, 1000)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(map[string]int64{"key_b": 1200}, last); diff != "" {
					t.Errorf("lastUsed since 1000 (-want +got):\n%s", diff)
				}
			}
			if last, _ = s.lastUsed(ctx, 0); len(last) != 1 {
				t.Errorf("after a read since 1000, lastUsed = %v, want key_a forgotten", last)
			}
		})
	}
}

func byBucket(rows []row) map[bucket]counts {
	m := map[bucket]counts{}
	for _, r := range rows {
		m[r.bucket] = r.n
	}
	return m
}

// TestBurstCounted records a burst from many goroutines while flushes run:
// every request is counted once, before and after the last flush.
func TestBurstCounted(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			m := New(Options{Now: clock(noon)})
			m.store = open(t)
			const workers, each = 8, 500
			var wg sync.WaitGroup
			done := make(chan struct{})
			go func() {
				for {
					select {
					case <-done:
						return
					default:
						if err := m.Flush(context.Background()); err != nil {
							t.Error(err)
							return
						}
					}
				}
			}()
			for range workers {
				wg.Go(func() {
					for i := range each {
						status := 200
						if i%10 == 0 {
							status = 429
						}
						m.Record(noon, "key_burst", "exercisedb", status)
					}
				})
			}
			wg.Wait()
			today, month, err := m.Totals(context.Background(), "key_burst", "exercisedb", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if today != workers*each || month != workers*each {
				t.Errorf("before the last flush: today %d, month %d; want %d", today, month, workers*each)
			}
			close(done)
			if err := m.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			got, err := m.KeyUsage(context.Background(), "key_burst", noon, noon)
			if err != nil {
				t.Fatal(err)
			}
			want := []DayUsage{{Date: "2026-11-24", Product: "exercisedb", Requests: workers * each,
				Status: Classes{Success: workers * each * 9 / 10, ClientError: workers * each / 10}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("KeyUsage after the flush (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDaysAndProducts counts by UTC day and product, and Totals sums today
// and this month for one product.
func TestDaysAndProducts(t *testing.T) {
	m := New(Options{Now: clock(noon)})
	lastMonth := time.Date(2026, 10, 31, 23, 59, 59, 0, time.UTC)
	firstOfMonth := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	m.Record(lastMonth, "key_a", "exercisedb", 200)
	m.Record(firstOfMonth, "key_a", "exercisedb", 200)
	m.Record(firstOfMonth, "key_a", "exercisedb", 304)
	m.Record(noon, "key_a", "exercisedb", 503)
	m.Record(noon, "key_a", "exercisedb-video", 200)
	m.Record(noon, "key_b", "exercisedb", 200)
	m.Record(noon, "key_a", "exercisedb", 101) // not a class that is counted
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Record(noon, "key_a", "exercisedb", 404) // unflushed

	today, month, err := m.Totals(context.Background(), "key_a", "exercisedb", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if today != 2 || month != 4 {
		t.Errorf("Totals = %d today, %d this month; want 2, 4", today, month)
	}
	// A key made today (an id used before by a deleted key) counts today's
	// requests only; one made tomorrow, by a skewed clock, none.
	for _, tt := range []struct {
		since        time.Time
		today, month int64
	}{
		{noon.Add(-time.Hour), 2, 2},
		{firstOfMonth.Add(time.Hour), 2, 4},
		{noon.Add(24 * time.Hour), 0, 0},
	} {
		today, month, err := m.Totals(context.Background(), "key_a", "exercisedb", tt.since)
		if err != nil || today != tt.today || month != tt.month {
			t.Errorf("Totals since %v = %d, %d, %v; want %d, %d", tt.since, today, month, err, tt.today, tt.month)
		}
	}
	got, err := m.KeyUsage(context.Background(), "key_a", lastMonth, noon)
	if err != nil {
		t.Fatal(err)
	}
	want := []DayUsage{
		{Date: "2026-10-31", Product: "exercisedb", Requests: 1, Status: Classes{Success: 1}},
		{Date: "2026-11-01", Product: "exercisedb", Requests: 2, Status: Classes{Success: 1, Redirect: 1}},
		{Date: "2026-11-24", Product: "exercisedb", Requests: 2, Status: Classes{ClientError: 1, ServerError: 1}},
		{Date: "2026-11-24", Product: "exercisedb-video", Requests: 1, Status: Classes{Success: 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("KeyUsage (-want +got):\n%s", diff)
	}
	for _, r := range [][2]time.Time{{noon, lastMonth}, {noon.AddDate(-2, 0, 0), noon}} {
		if _, err := m.KeyUsage(context.Background(), "key_a", r[0], r[1]); !errors.Is(err, ErrRange) {
			t.Errorf("KeyUsage(%v, %v) error = %v, want ErrRange", r[0], r[1], err)
		}
	}
}

// TestLastUsed is the minute of the latest request, known after a flush.
func TestLastUsed(t *testing.T) {
	m := New(Options{Now: clock(noon)})
	m.Record(noon.Add(90*time.Second), "key_a", "exercisedb", 200)
	m.Record(noon.Add(30*time.Second), "key_a", "exercisedb", 500)
	if _, ok := m.LastUsed("key_a"); ok {
		t.Error("LastUsed before a flush: known")
	}
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, ok := m.LastUsed("key_a"); !ok || !got.Equal(noon.Add(time.Minute)) {
		t.Errorf("LastUsed = %v, %v; want %v", got, ok, noon.Add(time.Minute))
	}
	if _, ok := m.LastUsed("key_never"); ok {
		t.Error("LastUsed of an unused key: known")
	}

	// Past the retention, a key's last use is forgotten like its days, so
	// deleted keys leave nothing behind.
	now := noon.Add(DefaultRetention + time.Hour)
	m.now = func() time.Time { return now }
	m.refreshLast(context.Background())
	if got, ok := m.LastUsed("key_a"); ok {
		t.Errorf("LastUsed after the retention = %v, want forgotten", got)
	}
	if last, _ := m.store.lastUsed(context.Background(), 0); len(last) != 0 {
		t.Errorf("the store still holds %v", last)
	}
}

// failing is a store whose adds fail while down is set.
type failing struct {
	store
	down atomic.Bool
}

func (f *failing) add(ctx context.Context, rows []row, last map[string]int64, now time.Time) error {
	if f.down.Load() {
		return errors.New("store down")
	}
	return f.store.add(ctx, rows, last, now)
}

// TestStoreDown keeps the counts of failed flushes and writes them once
// the store is back, up to MaxPending counters; recording never fails.
func TestStoreDown(t *testing.T) {
	m := New(Options{Now: clock(noon), MaxPending: 2})
	f := &failing{store: m.store}
	m.store = f
	f.down.Store(true)
	ctx := context.Background()
	for range 3 {
		m.Record(noon, "key_a", "exercisedb", 200)
		m.Record(noon, "key_b", "exercisedb", 200)
		if err := m.Flush(ctx); err == nil {
			t.Fatal("Flush to a store that is down: no error")
		}
	}
	m.Record(noon, "key_c", "exercisedb", 200) // a third counter: over MaxPending
	m.Record(noon, "key_c", "exercisedb", 200)
	if err := m.Flush(ctx); err == nil {
		t.Fatal("Flush to a store that is down: no error")
	}
	if s := m.Stats(); s.Pending != 2 || s.Dropped != 2 || s.FlushErrors != 4 {
		t.Errorf("Stats = %+v, want 2 pending, 2 dropped, 4 errors", s)
	}
	f.down.Store(false)
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"key_a", "key_b"} {
		rows, err := f.store.read(ctx, id, dayOf(noon), dayOf(noon))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].n != (counts{3}) {
			t.Errorf("%s stored as %v, want 3 successes", id, rows)
		}
	}
	if s := m.Stats(); s.Pending != 0 {
		t.Errorf("Stats after recovery = %+v, want nothing pending", s)
	}
}

// TestRunFlushesOnStop: when Run's context ends, what was recorded is
// flushed before Run returns.
func TestRunFlushesOnStop(t *testing.T) {
	c := redistest.Client(t)
	prefix := redistest.Prefix(t, c)
	m := New(Options{Redis: c, Prefix: prefix, Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	for range 7 {
		m.Record(time.Now(), "key_stop", "exercisedb", 200)
	}
	cancel()
	<-done
	got, err := c.HGetAll(context.Background(), prefix+"usage:{key_stop}:"+time.Now().UTC().Format(time.DateOnly)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if got["exercisedb:2xx"] != "7" {
		t.Errorf("Redis holds %v after Run returned, want exercisedb:2xx 7", got)
	}
	ttl := c.TTL(context.Background(), prefix+"usage:{key_stop}:"+time.Now().UTC().Format(time.DateOnly)).Val()
	if ttl < DefaultRetention || ttl > DefaultRetention+24*time.Hour {
		t.Errorf("TTL = %v, want the retention after the day's end", ttl)
	}
}

// TestRedisUnreachable: with Redis down, Record goes on, flushes fail and
// keep the counts, and reads fail rather than report too little.
func TestRedisUnreachable(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	m := New(Options{Redis: c, Prefix: "test:"})
	checkUnreachable(t, m, "Redis")
}

// TestPostgresReplicas: two meters (two replicas, each with its pool) on
// one database flush every 5 ms while both record requests of the same 20
// keys and two products, so their upserts meet on the same rows. After
// both stop, the table holds every request exactly once; each meter reads
// the other's counts, and its last uses after a refresh.
func TestPostgresReplicas(t *testing.T) {
	url := postgresURL(t)
	const workers, each, nkeys = 4, 500, 20
	var meters [2]*Meter
	var runs sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	for i := range meters {
		meters[i] = New(Options{Postgres: newPool(t, url), Interval: 5 * time.Millisecond})
		runs.Go(func() { meters[i].Run(ctx) })
	}
	products := [2]string{"exercisedb", "exercisedb-video"}
	statuses := [4]int{200, 200, 429, 503}
	var recorders sync.WaitGroup
	for i, m := range meters {
		for w := range workers {
			recorders.Go(func() {
				for j := range each {
					m.Record(time.Now(), fmt.Sprintf("key_%02d", j%nkeys), products[j%2], statuses[(j/2+w)%4])
				}
			})
		}
		m.Record(time.Now(), fmt.Sprintf("key_only%d", i), "exercisedb", 200)
	}
	recorders.Wait()
	cancel()
	runs.Wait()

	// Every request once: 2 meters x workers x each, by class.
	const total = 2 * workers * each
	conn := newPool(t, url)
	got := map[string]int64{}
	rows, _ := conn.Query(context.Background(), `SELECT class, sum(n)::bigint FROM gateway_usage WHERE key_id LIKE 'key\_%' AND key_id NOT LIKE 'key\_only%' GROUP BY class`)
	var class string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&class, &n}, func() error { got[class] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"2xx": total / 2, "4xx": total / 4, "5xx": total / 4}, got); diff != "" {
		t.Errorf("gateway_usage by class (-want +got):\n%s", diff)
	}
	for i, m := range meters {
		if s := m.Stats(); s.FlushErrors != 0 || s.Pending != 0 || s.Dropped != 0 {
			t.Errorf("meter %d: %+v, want no error, nothing pending or dropped", i, s)
		}
		// key_00 had every 20th request of each worker of both meters.
		var sum int64
		days, err := m.KeyUsage(context.Background(), "key_00", time.Now(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range days {
			sum += d.Requests
		}
		if sum != total/nkeys {
			t.Errorf("meter %d reads %d requests of key_00, want %d from both meters", i, sum, total/nkeys)
		}
		other := fmt.Sprintf("key_only%d", 1-i)
		if today, _, err := m.Totals(context.Background(), other, "exercisedb", time.Time{}); err != nil || today != 1 {
			t.Errorf("meter %d: Totals of %s = %d, %v; want the other meter's 1", i, other, today, err)
		}
		m.refreshLast(context.Background())
		if last, ok := m.LastUsed(other); !ok || time.Since(last) > 2*time.Minute {
			t.Errorf("meter %d: LastUsed of %s = %v, %v; want the other meter's, this minute", i, other, last, ok)
		}
	}
}

// TestPostgresFlushWhole: a flush is one statement, added whole or not at
// all. With gateway_usage_last gone, a flush fails and adds no count
// either; once the table is back the retried flush adds each count once.
func TestPostgresFlushWhole(t *testing.T) {
	url := postgresURL(t)
	pool := newPool(t, url)
	m := New(Options{Postgres: pool})
	ctx := context.Background()
	for range 3 {
		m.Record(time.Now(), "key_a", "exercisedb", 200)
	}
	exec := func(sql string) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER TABLE gateway_usage_last RENAME TO gateway_usage_last_away`)
	if err := m.Flush(ctx); err == nil {
		t.Fatal("Flush without gateway_usage_last: no error")
	}
	var n int64
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(n), 0)::bigint FROM gateway_usage`).Scan(&n); err != nil || n != 0 {
		t.Errorf("a failed flush added %d counts (%v), want none", n, err)
	}
	if s := m.Stats(); s.Pending != 1 {
		t.Errorf("Stats = %+v, want the counter pending", s)
	}
	exec(`ALTER TABLE gateway_usage_last_away RENAME TO gateway_usage_last`)
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(n), 0)::bigint FROM gateway_usage`).Scan(&n); err != nil || n != 3 {
		t.Errorf("after the retry: %d counts (%v), want 3", n, err)
	}
}

// TestPostgresPrune: the first flush of a day deletes the days past the
// retention; the days within it stay.
func TestPostgresPrune(t *testing.T) {
	pool := postgresPool(t)
	m := New(Options{Postgres: pool, Now: clock(noon)})
	ctx := context.Background()
	old, kept := noon.Add(-DefaultRetention-24*time.Hour), noon.Add(-DefaultRetention+24*time.Hour)
	m.Record(old, "key_a", "exercisedb", 200)
	m.Record(kept, "key_a", "exercisedb", 200)
	if err := m.Flush(ctx); err != nil { // pruned before adding: both written
		t.Fatal(err)
	}
	m.now = clock(noon.Add(24 * time.Hour))
	m.Record(noon, "key_a", "exercisedb", 200)
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, _ := pool.Query(ctx, `SELECT day FROM gateway_usage ORDER BY day`)
	days, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range days {
		got = append(got, d.Format(time.DateOnly))
	}
	if want := []string{kept.Format(time.DateOnly), noon.Format(time.DateOnly)}; !cmp.Equal(want, got) {
		t.Errorf("days after a flush of the next day: %v, want %v", got, want)
	}
}

// TestPostgresUnreachable: with PostgreSQL down, Record goes on, flushes
// fail and keep the counts, and reads fail rather than report too little.
func TestPostgresUnreachable(t *testing.T) {
	pool := newPool(t, "postgres://127.0.0.1:1/none?connect_timeout=1")
	m := New(Options{Postgres: pool})
	checkUnreachable(t, m, "PostgreSQL")
}

// BenchmarkRecord is the per-request cost of metering, for one key and
// for requests of many keys from every core.
func BenchmarkRecord(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		m := New(Options{})
		now := time.Now()
		b.ReportAllocs()
		for b.Loop() {
			m.Record(now, "key_bench", "exercisedb", 200)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		m := New(Options{})
		ids := make([]string, 1024)
		for i := range ids {
			ids[i] = "key_" + strconv.Itoa(i)
		}
		now := time.Now()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				m.Record(now, ids[i%len(ids)], "exercisedb", 200)
				i++
			}
		})
	})
}

// checkUnreachable: with the store m writes to unreachable, a flush fails
// and keeps the count pending, and a read fails rather than report too
// little.
func checkUnreachable(t *testing.T, m *Meter, store string) {
	t.Helper()
	m.Record(noon, "key_a", "exercisedb", 200)
	if err := m.Flush(context.Background()); err == nil {
		t.Fatalf("Flush to an unreachable %s: no error", store)
	}
	m.Record(noon, "key_a", "exercisedb", 200)
	if s := m.Stats(); s.Pending != 1 || s.FlushErrors != 1 {
		t.Errorf("Stats = %+v, want 1 pending, 1 error", s)
	}
	if _, _, err := m.Totals(context.Background(), "key_a", "exercisedb", time.Time{}); err == nil {
		t.Errorf("Totals with %s unreachable: no error", store)
	}
}
