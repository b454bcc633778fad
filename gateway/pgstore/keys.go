package pgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/exercisedb/exercisedb/gateway/keys"
)

// ApplicationName is the application_name of the gateway's connections,
// unless the URL sets one: it tells them apart in pg_stat_activity.
const ApplicationName = "exercisedb-gateway"

// Keys holds the keys in PostgreSQL, in the table gateway_keys of the
// URL's schema (search_path), and every replica's keys.Set in memory. Watch
// keeps the keys.Set current: it LISTENs on a channel that a trigger notifies
// on every change, reloads the table on each notification, every
// ResyncEvery, and after every reconnection. While the database is
// unreachable the keys.Set last loaded stays in force.
type Keys struct {
	// OnSync, when not nil, is called after every load attempt of Watch
	// (a failed connection counts as one), with its error. Set it before
	// Watch; calls come one at a time.
	OnSync func(err error)

	opts    KeysOptions
	pool    *pgxpool.Pool
	listen  *pgx.ConnConfig
	channel string
	cur     atomic.Pointer[keys.Set]
	up      atomic.Bool
	invalid atomic.Int64 // rows the last load skipped
}

// KeysOptions are the choices of OpenKeys; the zero value is
// ready for use.
type KeysOptions struct {
	Log *slog.Logger
	// ResyncEvery is the period of the full reload that backs up the
	// notifications; default 30s.
	ResyncEvery time.Duration
	// Now is the clock of expiry checks; nil means time.Now.
	Now func() time.Time
}

// OpenKeys connects to the database at url, applies the schema's
// migrations and loads the keys. An unreachable database is an error: a
// gateway that never had keys cannot serve.
func OpenKeys(ctx context.Context, url string, o KeysOptions) (*Keys, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ResyncEvery <= 0 {
		o.ResyncEvery = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("keys_postgres_url: %w", err)
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = ApplicationName
	}
	cfg.MaxConns = 4 // admin operations only: requests never query
	// Admin operations are rare: check each pooled connection before use,
	// so that one the server dropped meanwhile fails no operation.
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return true }
	listen := cfg.ConnConfig.Copy()
	// A wait for a notification that times out must leave the connection
	// usable, without the cancel request pgx sends by default.
	listen.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("keys_postgres_url: %w", err)
	}
	s := &Keys{opts: o, pool: pool, listen: listen}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "3F000" { // invalid_schema_name
			return nil, fmt.Errorf("key store: PostgreSQL at %s: no schema of the search_path (%q) exists to create the keys table in: create it (CREATE SCHEMA) or fix search_path in keys_postgres_url",
				where(cfg.ConnConfig), cmp.Or(cfg.ConnConfig.RuntimeParams["search_path"], "the server's default"))
		}
		return nil, fmt.Errorf("key store: PostgreSQL at %s: migrations: %w", where(cfg.ConnConfig), err)
	}
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("key store: %w", err)
	}
	s.channel = schema + ".gateway_keys"
	set, err := s.load(ctx, pool)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("key store: %w", err)
	}
	s.cur.Store(set)
	s.up.Store(true)
	o.Log.Info("keys loaded from PostgreSQL", "database", where(cfg.ConnConfig), "schema", schema, "keys", set.Len())
	return s, nil
}

// where names a database in messages: host, port and name, never a password.
func where(c *pgx.ConnConfig) string {
	return fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database)
}

// Current returns the keys.Set last loaded.
func (s *Keys) Current() *keys.Set { return s.cur.Load() }

// Up reports whether the last load attempt succeeded.
func (s *Keys) Up() bool { return s.up.Load() }

// Invalid returns the number of rows the last successful load skipped
// because they do not decode into a key.
func (s *Keys) Invalid() int { return int(s.invalid.Load()) }

// Close closes the pool of the admin operations.
func (s *Keys) Close() { s.pool.Close() }

// querier is what load needs of a pool or a connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// load reads every key into a new keys.Set. A row that does not decode is
// skipped and logged, with its id and what is wrong: one bad row must not
// stop every change from reaching the replicas.
func (s *Keys) load(ctx context.Context, q querier) (*keys.Set, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := q.Query(ctx, `SELECT `+keyColumns+` FROM gateway_keys`)
	if err != nil {
		return nil, err
	}
	var stored []keys.Stored
	var invalid []*keys.RowError
	for rows.Next() {
		k, hash, err := scanKey(rows)
		var bad *keys.RowError
		if errors.As(err, &bad) {
			invalid = append(invalid, bad)
			continue
		}
		if err != nil {
			rows.Close()
			return nil, err
		}
		stored = append(stored, keys.Stored{Key: k, Hash: hash})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, bad := range invalid {
		s.opts.Log.Error("key store: a row of gateway_keys is invalid and skipped; its key is refused until the row is fixed or deleted",
			"key_id", bad.ID, "problem", bad.Problem)
	}
	s.invalid.Store(int64(len(invalid)))
	return keys.NewSet(stored) // scanKey checked every hash
}

const keyColumns = `id, name, hash, products, disabled, expires_at, created_at`

// scanKey reads a row of keyColumns. A row that is read but does not
// decode into a key is a *keys.RowError, with the key as far as it decoded (its
// ID at least).
func scanKey(row pgx.Row) (keys.Key, string, error) {
	var k keys.Key
	var hash string
	var products []byte // decoded here, not by Scan: a failed Scan ends the rows
	var expires *time.Time
	if err := row.Scan(&k.ID, &k.Name, &hash, &products, &k.Disabled, &expires, &k.CreatedAt); err != nil {
		return keys.Key{}, "", err
	}
	if expires != nil {
		k.ExpiresAt = expires.UTC()
	}
	k.CreatedAt = k.CreatedAt.UTC()
	if !keys.ValidHash(hash) {
		return k, "", &keys.RowError{ID: k.ID, Problem: "hash: want \"sha256:\" followed by 64 lowercase hex digits"}
	}
	if err := json.Unmarshal(products, &k.Products); err != nil || k.Products == nil {
		return k, "", &keys.RowError{ID: k.ID, Problem: `products: want an object of product name to plan name, such as {"exercisedb": "Pro"}`}
	}
	if len(k.Products) == 0 {
		return k, "", &keys.RowError{ID: k.ID, Problem: "products: empty; a key needs at least one product and its plan"}
	}
	for product, plan := range k.Products {
		if strings.TrimSpace(product) == "" || strings.TrimSpace(plan) == "" {
			return k, "", &keys.RowError{ID: k.ID, Problem: "products: an empty product or plan name"}
		}
	}
	return k, hash, nil
}

// nullTime is t, or SQL NULL when t is zero.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// fail wraps a database error; keys.ErrNotFound and input errors pass.
func fail(err error) error {
	var in *keys.InputError
	if err == nil || errors.Is(err, keys.ErrNotFound) || errors.Is(err, keys.ErrDisabled) || errors.Is(err, keys.ErrDuplicateID) ||
		errors.Is(err, keys.ErrInvalidRow) || errors.As(err, &in) {
		return err
	}
	return fmt.Errorf("%w: %w", keys.ErrUnavailable, err)
}

// Create inserts the key.
func (s *Keys) Create(ctx context.Context, n keys.New) (keys.Created, error) {
	c, hash, err := keys.Prepare(n, s.opts.Now())
	if err != nil {
		return keys.Created{}, err
	}
	return c, fail(s.insert(ctx, s.pool, c.Key, hash))
}

// execer is what insert needs of a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func (s *Keys) insert(ctx context.Context, e execer, k keys.Key, hash string) error {
	_, err := e.Exec(ctx, `INSERT INTO gateway_keys (id, name, hash, products, disabled, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, k.ID, k.Name, hash, k.Products, k.Disabled, nullTime(k.ExpiresAt), k.CreatedAt)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "gateway_keys_pkey" {
		return fmt.Errorf("key %q: %w", k.ID, keys.ErrDuplicateID)
	}
	return err
}

// List reads one page in id order. A row of the page that does not
// decode is left out of Keys and reported in Invalid.
func (s *Keys) List(ctx context.Context, after string, limit int) (keys.Page, error) {
	var p keys.Page
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM gateway_keys`).Scan(&p.Total); err != nil {
			return err
		}
		// Read batches until limit+1 keys decode or the rows end. A bad
		// row belongs to this page when it comes before the page's last
		// key; after it, to the next page (whose cursor is that key).
		var ks []keys.Key
		p.Invalid = nil
		for cursor, full := after, true; full && len(ks) <= limit; {
			rows, _ := tx.Query(ctx, `SELECT `+keyColumns+` FROM gateway_keys WHERE id > $1 ORDER BY id LIMIT $2`, cursor, limit+1)
			n := 0
			for rows.Next() && len(ks) <= limit {
				n++
				k, _, err := scanKey(rows)
				var bad *keys.RowError
				switch {
				case errors.As(err, &bad):
					if len(ks) < limit {
						p.Invalid = append(p.Invalid, bad)
					}
				case err != nil:
					rows.Close()
					return err
				default:
					ks = append(ks, k)
				}
				cursor = k.ID
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			full = n == limit+1
		}
		p.More = len(ks) > limit
		p.Keys = ks[:min(limit, len(ks))]
		return nil
	})
	return p, fail(err)
}

// Get reads one key.
func (s *Keys) Get(ctx context.Context, id string) (keys.Key, error) {
	k, _, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM gateway_keys WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return keys.Key{}, fmt.Errorf("key %q: %w", id, keys.ErrNotFound)
	}
	return k, fail(err)
}

// change runs fn on the key of the given id, locked for the transaction.
func (s *Keys) change(ctx context.Context, id string, fn func(tx pgx.Tx, old keys.Key) error) error {
	return fail(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		old, _, err := scanKey(tx.QueryRow(ctx, `SELECT `+keyColumns+` FROM gateway_keys WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("key %q: %w", id, keys.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return fn(tx, old)
	}))
}

// Update changes the key's row.
func (s *Keys) Update(ctx context.Context, id string, c keys.Change) (keys.Key, error) {
	var out keys.Key
	err := s.change(ctx, id, func(tx pgx.Tx, old keys.Key) error {
		k, err := keys.Apply(old, c, s.opts.Now())
		if err != nil {
			return err
		}
		out = k
		_, err = tx.Exec(ctx, `UPDATE gateway_keys SET name = $2, disabled = $3, products = $4, expires_at = $5, updated_at = now()
			WHERE id = $1`, id, k.Name, k.Disabled, k.Products, nullTime(k.ExpiresAt))
		return err
	})
	return out, err
}

// Rotate ends the old key and inserts the new one in one transaction.
func (s *Keys) Rotate(ctx context.Context, id string, overlap time.Duration) (keys.Created, keys.Key, error) {
	var next keys.Created
	var ended keys.Key
	err := s.change(ctx, id, func(tx pgx.Tx, old keys.Key) error {
		var hash string
		var err error
		if ended, next, hash, err = keys.Rotation(old, overlap, s.opts.Now()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE gateway_keys SET expires_at = $2, updated_at = now() WHERE id = $1`, id, ended.ExpiresAt); err != nil {
			return err
		}
		return s.insert(ctx, tx, next.Key, hash)
	})
	return next, ended, err
}

// Delete removes the key's row.
func (s *Keys) Delete(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM gateway_keys WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		return fmt.Errorf("key %q: %w", id, keys.ErrNotFound)
	}
	return fail(err)
}

var _ keys.Store = (*Keys)(nil)
