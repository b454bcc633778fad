package pgstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the versioned schema changes, NNN_what.sql, applied in
// order and never edited once released: add a file instead.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrate applies the migrations the database lacks, all in one
// transaction (PostgreSQL's DDL is transactional, so a failure leaves the
// schema as it was), recording each version in gateway_keys_migrations. An
// advisory lock serialises replicas that start together.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(files)
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.gateway_keys_migrations'))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS gateway_keys_migrations (
			version integer PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var done []int
		rows, _ := tx.Query(ctx, `SELECT version FROM gateway_keys_migrations`)
		if done, err = pgx.CollectRows(rows, pgx.RowTo[int]); err != nil {
			return err
		}
		for _, f := range files {
			name := strings.TrimPrefix(f, "migrations/")
			num, _, _ := strings.Cut(name, "_")
			version, err := strconv.Atoi(num)
			if err != nil {
				return fmt.Errorf("migration %s: the name must start with its number", name)
			}
			if slices.Contains(done, version) {
				continue
			}
			sql, err := migrations.ReadFile(f)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO gateway_keys_migrations (version) VALUES ($1)`, version); err != nil {
				return err
			}
		}
		return nil
	})
}
