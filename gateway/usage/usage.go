// Package usage meters the requests made with each API key: how many per
// key, product and UTC day, by status class (2xx, 3xx, 4xx, 5xx), and when
// each key was last used. Customers read their own figures through
// /api/v1/usage, operators any key's through the admin API.
//
// Recording is on the hot path of every request, so it never writes to a
// store: a [Meter] adds to counters in memory (sharded by key, no
// allocation once a key's counter for the day exists) and flushes them
// every Interval to its store: Redis (HINCRBY in one pipeline, per-day
// hashes that expire after Retention), PostgreSQL (one upsert statement
// into the tables gateway/pgstore/migrations makes), or, with neither, a
// table in the process's memory. A flush that fails keeps its counts and
// is retried at the next one, up to MaxPending counters; a crash loses
// what was not flushed yet, at most one Interval of counts.
//
// Reads (KeyUsage, Totals) add this process's unflushed counts to the
// store's, excluding flushes meanwhile, so every count is read exactly once.
package usage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// Defaults of Options.
const (
	DefaultInterval     = time.Second
	DefaultFlushTimeout = 2 * time.Second
	DefaultRetention    = 40 * 24 * time.Hour
	DefaultMaxPending   = 100_000
	// maxDays bounds the days one read may cover.
	maxDays = 400
	// refreshLastEvery is how many flushes pass between two reads of the
	// other replicas' last-use times from the store.
	refreshLastEvery = 60
)

// shardCount is the number of independently locked parts of the buffer,
// so requests of different keys rarely wait for each other.
const shardCount = 32

// ErrRange is returned for a read whose to is before its from, or that
// covers more than 400 days.
var ErrRange = errors.New("usage: invalid day range")

// Classes are request counts by status class.
type Classes struct {
	Success     int64 `json:"2xx"`
	Redirect    int64 `json:"3xx"`
	ClientError int64 `json:"4xx"`
	ServerError int64 `json:"5xx"`
}

// Total is the sum of the classes.
func (c Classes) Total() int64 { return c.Success + c.Redirect + c.ClientError + c.ServerError }

// DayUsage is a key's requests to one product on one UTC day.
type DayUsage struct {
	// Date is the UTC day, as 2006-01-02.
	Date     string  `json:"date"`
	Product  string  `json:"product"`
	Requests int64   `json:"requests"` // Status.Total()
	Status   Classes `json:"status"`
}

// counts are requests by class: 2xx, 3xx, 4xx, 5xx.
type counts [4]int64

func (n *counts) add(o counts) {
	for i := range n {
		n[i] += o[i]
	}
}

func (n counts) classes() Classes { return Classes{n[0], n[1], n[2], n[3]} }

// day is a UTC calendar day, as days since 1970-01-01.
type day int64

const secondsPerDay = 24 * 60 * 60

func dayOf(t time.Time) day {
	s := t.Unix()
	d := s / secondsPerDay
	if s%secondsPerDay < 0 {
		d--
	}
	return day(d)
}

func (d day) time() time.Time { return time.Unix(int64(d)*secondsPerDay, 0).UTC() }

func (d day) String() string { return d.time().Format(time.DateOnly) }

// bucket is what one counter counts: a key's requests to a product on a day.
type bucket struct {
	keyID, product string
	day            day
}

// cell is a bucket's counts and the minute (Unix seconds / 60) of its
// latest request.
type cell struct {
	n      counts
	minute int64
}

// row is a bucket with its counts, as the stores write and read them.
type row struct {
	bucket
	n counts
}

// store is where flushed counts live.
type store interface {
	// add adds rows and raises the keys' last use (Unix seconds, whole
	// minutes) to last; an error means nothing or not all was added.
	add(ctx context.Context, rows []row, last map[string]int64, now time.Time) error
	// read returns keyID's rows of the days from..to (inclusive).
	read(ctx context.Context, keyID string, from, to day) ([]row, error)
	// lastUsed returns every key's last use (Unix seconds) from since on,
	// and forgets the earlier ones: a key deleted or left unused for the
	// retention leaves nothing behind.
	lastUsed(ctx context.Context, since int64) (map[string]int64, error)
}

// Options configure a Meter. Zero fields take the defaults.
type Options struct {
	// Redis, if not nil, is where counts are flushed, under Prefix + "usage:".
	Redis  redis.UniversalClient
	Prefix string
	// Postgres, if not nil and Redis is nil, is where counts are flushed:
	// the tables gateway_usage and gateway_usage_last of its search_path,
	// which pgstore.OpenKeys's migrations make. With neither, counts stay
	// in this process's memory, lost when it exits.
	Postgres *pgxpool.Pool
	// Interval is the time between two flushes. Default DefaultInterval.
	Interval time.Duration
	// FlushTimeout bounds one flush. Default DefaultFlushTimeout.
	FlushTimeout time.Duration
	// Retention is how long a day's counts are kept. Default DefaultRetention.
	Retention time.Duration
	// MaxPending bounds the counters (key, product, day) kept while the
	// store fails; counts of further ones are dropped. Default DefaultMaxPending.
	MaxPending int
	// Now is the clock of the reads; nil means time.Now.
	Now func() time.Time
	// Log receives one line when the store fails and one when it is back.
	Log *slog.Logger
}

// Stats are a Meter's figures.
type Stats struct {
	// Flushes counts the flushes that had counts to write; FlushErrors,
	// those of them that failed.
	Flushes, FlushErrors uint64
	// Pending is the number of counters waiting for the store.
	Pending int
	// Dropped is the number of requests not counted because MaxPending
	// counters were waiting.
	Dropped uint64
}

// Meter counts requests per key, product and day. It is safe for
// concurrent use.
type Meter struct {
	now        func() time.Time
	interval   time.Duration
	timeout    time.Duration
	retention  time.Duration
	maxPending int
	log        *slog.Logger
	store      store

	seed   maphash.Seed
	shards [shardCount]shard

	// flushMu is held by a flush for writing and by reads for reading: a
	// count is then in exactly one of the shards, pending and the store.
	flushMu sync.RWMutex
	pending map[bucket]*cell // drained from the shards, not yet stored
	down    bool             // the last flush failed

	lastMu sync.RWMutex
	last   map[string]int64 // key id → Unix seconds of its last use, flushed

	flushes, flushErrors, dropped atomic.Uint64
	pendingLen                    atomic.Int64
}

type shard struct {
	mu sync.Mutex
	m  map[bucket]*cell
	_  [40]byte // keep each shard on its own cache line
}

// New returns a Meter; Run flushes it.
func New(o Options) *Meter {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = DefaultFlushTimeout
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	var s store
	switch {
	case o.Redis != nil:
		s = &redisStore{client: o.Redis, prefix: o.Prefix + "usage:", ttl: o.Retention}
	case o.Postgres != nil:
		s = &postgresStore{pool: o.Postgres, retention: day(o.Retention / (24 * time.Hour))}
	default:
		s = newMemoryStore(o.Retention)
	}
	m := &Meter{
		now: o.Now, interval: o.Interval, timeout: o.FlushTimeout, retention: o.Retention, maxPending: o.MaxPending, log: o.Log, store: s,
		seed: maphash.MakeSeed(), pending: map[bucket]*cell{}, last: map[string]int64{},
	}
	for i := range m.shards {
		m.shards[i].m = map[bucket]*cell{}
	}
	return m
}

// Record counts one request made with keyID to product, answered with
// status at t. Statuses outside 200-599 are not counted. It does not
// allocate once the key's counter for the product and day exists.
func (m *Meter) Record(t time.Time, keyID, product string, status int) {
	class := status/100 - 2
	if class < 0 || class >= len(counts{}) {
		return
	}
	b := bucket{keyID: keyID, product: product, day: dayOf(t)}
	s := &m.shards[maphash.String(m.seed, keyID)%shardCount]
	s.mu.Lock()
	c := s.m[b]
	if c == nil {
		c = new(cell)
		// Never pin a larger string the names may be cut from.
		b.keyID, b.product = strings.Clone(keyID), strings.Clone(product)
		s.m[b] = c
	}
	c.n[class]++
	c.minute = max(c.minute, t.Unix()/60)
	s.mu.Unlock()
}

// Run flushes every Interval until ctx ends, then flushes once more within
// FlushTimeout and returns. Call it once; stop it only after the last
// request was recorded, or that request's count is lost.
func (m *Meter) Run(ctx context.Context) {
	m.refreshLast(ctx)
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.timeout)
			if err := m.Flush(fctx); err != nil {
				m.log.Error("usage counts lost at shutdown", slog.Int("counters", int(m.pendingLen.Load())), slog.String("error", err.Error()))
			}
			cancel()
			return
		case <-t.C:
			// Shutdown does not cut a flush short: a write cancelled
			// after the store applied it would be retried, and counted
			// twice. FlushTimeout still bounds it.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.timeout)
			_ = m.Flush(fctx) // failures are logged once per outage and retried
			if n%refreshLastEvery == 0 {
				m.refreshLast(fctx)
			}
			cancel()
		}
	}
}

// Flush writes the counts recorded so far to the store. On failure they
// are kept for the next flush (up to MaxPending counters).
func (m *Meter) Flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	m.drain()
	if len(m.pending) == 0 {
		return nil
	}
	rows := make([]row, 0, len(m.pending))
	last := map[string]int64{}
	for b, c := range m.pending {
		rows = append(rows, row{bucket: b, n: c.n})
		last[b.keyID] = max(last[b.keyID], c.minute*60)
	}
	m.flushes.Add(1)
	if err := m.store.add(ctx, rows, last, m.now()); err != nil {
		m.flushErrors.Add(1)
		if !m.down {
			m.down = true
			m.log.Error("usage store unavailable: counts are kept in memory and retried",
				slog.Int("counters", len(m.pending)), slog.String("error", err.Error()))
		}
		return fmt.Errorf("usage: flush: %w", err)
	}
	if m.down {
		m.down = false
		m.log.Info("usage store available again", slog.Int("counters", len(m.pending)))
	}
	clear(m.pending)
	m.pendingLen.Store(0)
	m.raiseLast(last)
	return nil
}

// drain moves the shards' counts to pending. A counter that counted
// nothing since the last drain is deleted; the others are zeroed and kept,
// so that recording into them does not allocate. flushMu is held.
func (m *Meter) drain() {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		for b, c := range s.m {
			if c.n == (counts{}) {
				delete(s.m, b)
				continue
			}
			p := m.pending[b]
			if p == nil {
				if len(m.pending) >= m.maxPending {
					var total int64
					for _, n := range c.n {
						total += n
					}
					m.dropped.Add(uint64(total))
					*c = cell{}
					continue
				}
				p = new(cell)
				m.pending[b] = p
			}
			p.n.add(c.n)
			p.minute = max(p.minute, c.minute)
			*c = cell{}
		}
		s.mu.Unlock()
	}
	m.pendingLen.Store(int64(len(m.pending)))
}

// raiseLast moves the keys' last use up to last (never down).
func (m *Meter) raiseLast(last map[string]int64) {
	m.lastMu.Lock()
	defer m.lastMu.Unlock()
	for id, t := range last {
		if t > m.last[id] {
			m.last[id] = t
		}
	}
}

// refreshLast learns the other replicas' last-use times from the store,
// and forgets those older than the retention, as the store does the days.
func (m *Meter) refreshLast(ctx context.Context) {
	since := m.now().Add(-m.retention).Unix()
	last, err := m.store.lastUsed(ctx, since)
	if err != nil {
		m.log.Debug("usage: last-use times not read", slog.String("error", err.Error()))
		return
	}
	m.lastMu.Lock()
	maps.DeleteFunc(m.last, func(_ string, t int64) bool { return t < since })
	m.lastMu.Unlock()
	m.raiseLast(last)
}

// LastUsed returns when keyID was last used, to the minute, as of the last
// flush (and, with Redis or PostgreSQL, as other replicas had flushed it at
// most a minute before), and whether it was used at all in what the store
// retains of it.
func (m *Meter) LastUsed(keyID string) (time.Time, bool) {
	m.lastMu.RLock()
	t, ok := m.last[keyID]
	m.lastMu.RUnlock()
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(t, 0).UTC(), true
}

// KeyUsage returns keyID's requests per UTC day and product, for the days
// from the one of from to the one of to (both included, at most 400), in
// order of day then product; days and products without requests are left
// out. It includes this process's counts not yet flushed.
func (m *Meter) KeyUsage(ctx context.Context, keyID string, from, to time.Time) ([]DayUsage, error) {
	rows, err := m.read(ctx, keyID, dayOf(from), dayOf(to))
	if err != nil {
		return nil, err
	}
	out := make([]DayUsage, 0, len(rows))
	for _, r := range rows {
		out = append(out, DayUsage{Date: r.day.String(), Product: r.product, Requests: r.n.classes().Total(), Status: r.n.classes()})
	}
	return out, nil
}

// Totals returns keyID's requests to product today and this month (UTC,
// as the Meter's clock has it), this process's unflushed counts included,
// leaving out the days before the one of since: a key's figures start on
// the day it was made, not with an earlier key that had its id (zero since
// leaves out nothing).
func (m *Meter) Totals(ctx context.Context, keyID, product string, since time.Time) (today, month int64, err error) {
	now := m.now().UTC()
	first := dayOf(time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC))
	if !since.IsZero() {
		first = max(first, dayOf(since))
	}
	td := dayOf(now)
	if first > td {
		return 0, 0, nil
	}
	rows, err := m.read(ctx, keyID, first, td)
	if err != nil {
		return 0, 0, err
	}
	for _, r := range rows {
		if r.product != product {
			continue
		}
		n := r.n.classes().Total()
		month += n
		if r.day == td {
			today += n
		}
	}
	return today, month, nil
}

// Stats returns the Meter's figures.
func (m *Meter) Stats() Stats {
	return Stats{
		Flushes:     m.flushes.Load(),
		FlushErrors: m.flushErrors.Load(),
		Pending:     int(m.pendingLen.Load()),
		Dropped:     m.dropped.Load(),
	}
}

// read returns keyID's counts of the days from..to, one row per day and
// product, sorted: the store's plus this process's unflushed ones.
func (m *Meter) read(ctx context.Context, keyID string, from, to day) ([]row, error) {
	if to < from || to-from >= maxDays {
		return nil, ErrRange
	}
	m.flushMu.RLock()
	defer m.flushMu.RUnlock()
	stored, err := m.store.read(ctx, keyID, from, to)
	if err != nil {
		return nil, fmt.Errorf("usage: read: %w", err)
	}
	sum := map[bucket]counts{}
	for _, r := range stored {
		n := sum[r.bucket]
		n.add(r.n)
		sum[r.bucket] = n
	}
	mine := func(b bucket, c *cell) {
		if b.keyID == keyID && b.day >= from && b.day <= to {
			n := sum[b]
			n.add(c.n)
			sum[b] = n
		}
	}
	for b, c := range m.pending {
		mine(b, c)
	}
	s := &m.shards[maphash.String(m.seed, keyID)%shardCount]
	s.mu.Lock()
	for b, c := range s.m {
		mine(b, c)
	}
	s.mu.Unlock()
	rows := make([]row, 0, len(sum))
	for b, n := range sum {
		if n != (counts{}) {
			rows = append(rows, row{bucket: b, n: n})
		}
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.day, b.day), strings.Compare(a.product, b.product))
	})
	return rows, nil
}
