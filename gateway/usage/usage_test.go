package usage

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
)

// noon is a fixed instant the tests count at.
var noon = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func clock(t time.Time) func() time.Time { return func() time.Time { return t } }

// stores returns the stores every test of the shared suite runs on: the
// memory store and, with REDIS_URL, Redis under a prefix of the test's own.
func stores(t *testing.T) map[string]func(t *testing.T) store {
	return map[string]func(t *testing.T) store{
		"memory": func(*testing.T) store { return newMemoryStore(DefaultRetention) },
		"redis": func(t *testing.T) store {
			c := redistest.Client(t)
			return &redisStore{client: c, prefix: redistest.Prefix(t, c), ttl: DefaultRetention}
		},
	}
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
	m.Record(noon, "key_a", "exercisedb", 200)
	if err := m.Flush(context.Background()); err == nil {
		t.Fatal("Flush to an unreachable Redis: no error")
	}
	m.Record(noon, "key_a", "exercisedb", 200)
	if s := m.Stats(); s.Pending != 1 || s.FlushErrors != 1 {
		t.Errorf("Stats = %+v, want 1 pending, 1 error", s)
	}
	if _, _, err := m.Totals(context.Background(), "key_a", "exercisedb", time.Time{}); err == nil {
		t.Error("Totals with Redis unreachable: no error")
	}
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
