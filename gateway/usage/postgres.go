package usage

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// postgresStore keeps the counts in PostgreSQL, shared by every replica,
// in the tables the key store's migrations make (gateway/pgstore/migrations,
// 003_gateway_usage.sql, applied by pgstore.OpenKeys): gateway_usage, a
// row per key, UTC day, product and status class with its count n; and
// gateway_usage_last, each key's last use. A flush is one statement (both
// upserts), so it is added whole or not at all; days past the retention
// are deleted by the first flush of each UTC day.
type postgresStore struct {
	pool      *pgxpool.Pool
	retention day

	mu       sync.Mutex
	prunedOn day // the UTC day of the last deletion of old days
}

// upsert adds a flush: the rows' counts to gateway_usage, the last uses to
// gateway_usage_last (raised, never lowered). Both inputs are sorted, so
// that replicas flushing the same rows lock them in the same order.
const upsert = `WITH counts AS (
	INSERT INTO gateway_usage AS t (key_id, day, product, class, n)
	SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::bigint[]) ORDER BY 1, 2, 3, 4
	ON CONFLICT (key_id, day, product, class) DO UPDATE SET n = t.n + EXCLUDED.n
), last AS (
	INSERT INTO gateway_usage_last AS t (key_id, used_at)
	SELECT * FROM unnest($6::text[], $7::timestamptz[]) ORDER BY 1
	ON CONFLICT (key_id) DO UPDATE SET used_at = greatest(t.used_at, EXCLUDED.used_at)
)
SELECT 1`

func (s *postgresStore) add(ctx context.Context, rows []row, last map[string]int64, now time.Time) error {
	if err := s.prune(ctx, dayOf(now)); err != nil {
		return err
	}
	// One input row per (key, day, product, class): ON CONFLICT may not
	// touch a row twice in one statement.
	type cellKey struct {
		bucket
		class int
	}
	sums := map[cellKey]int64{}
	for _, r := range rows {
		for c, n := range r.n {
			if n != 0 {
				sums[cellKey{r.bucket, c}] += n
			}
		}
	}
	cells := slices.SortedFunc(maps.Keys(sums), func(a, b cellKey) int {
		return cmp.Or(strings.Compare(a.keyID, b.keyID), cmp.Compare(a.day, b.day),
			strings.Compare(a.product, b.product), cmp.Compare(a.class, b.class))
	})
	ids, days, products, classes, ns := make([]string, len(cells)), make([]time.Time, len(cells)),
		make([]string, len(cells)), make([]string, len(cells)), make([]int64, len(cells))
	for i, k := range cells {
		ids[i], days[i], products[i], classes[i], ns[i] = k.keyID, k.day.time(), k.product, classNames[k.class], sums[k]
	}
	lastIDs := slices.Sorted(maps.Keys(last))
	lastAt := make([]time.Time, len(lastIDs))
	for i, id := range lastIDs {
		lastAt[i] = time.Unix(last[id], 0).UTC()
	}
	_, err := s.pool.Exec(ctx, upsert, ids, days, products, classes, ns, lastIDs, lastAt)
	return err
}

// prune deletes the days before the retention, once per UTC day of this
// process (each replica does it; the deletions after the first find
// nothing). A failure is retried at the next flush.
func (s *postgresStore) prune(ctx context.Context, today day) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prunedOn == today {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM gateway_usage WHERE day < $1`, (today - s.retention).time()); err != nil {
		return err
	}
	s.prunedOn = today
	return nil
}

func (s *postgresStore) read(ctx context.Context, keyID string, from, to day) ([]row, error) {
	rows, _ := s.pool.Query(ctx, `SELECT day, product, class, n FROM gateway_usage
		WHERE key_id = $1 AND day BETWEEN $2 AND $3`, keyID, from.time(), to.time())
	byBucket := map[bucket]counts{}
	var d time.Time
	var product, class string
	var n int64
	_, err := pgx.ForEachRow(rows, []any{&d, &product, &class, &n}, func() error {
		c := classIndex(class)
		if c < 0 {
			return nil // the table's CHECK lets none through
		}
		b := bucket{keyID: keyID, product: product, day: dayOf(d)}
		x := byBucket[b]
		x[c] += n
		byBucket[b] = x
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]row, 0, len(byBucket))
	for b, n := range byBucket {
		out = append(out, row{bucket: b, n: n})
	}
	return out, nil
}

// lastUsed deletes the last uses before since and returns the others, in
// one statement (the SELECT does not see the DELETE, hence its own WHERE).
func (s *postgresStore) lastUsed(ctx context.Context, since int64) (map[string]int64, error) {
	at := time.Unix(since, 0).UTC()
	rows, _ := s.pool.Query(ctx, `WITH gone AS (DELETE FROM gateway_usage_last WHERE used_at < $1)
		SELECT key_id, used_at FROM gateway_usage_last WHERE used_at >= $1`, at)
	out := map[string]int64{}
	var id string
	var t time.Time
	_, err := pgx.ForEachRow(rows, []any{&id, &t}, func() error {
		out[id] = t.Unix()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
