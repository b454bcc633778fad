package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/pgstore"
	"github.com/exercisedb/exercisedb/gateway/redisconn"
	metering "github.com/exercisedb/exercisedb/gateway/usage" // main has its own usage (the help text)
)

// usageMeter builds the meter of usage: in Redis where the rate limits
// are (rate_limit.store: redis, under <redis_prefix>usage:), else in
// PostgreSQL where the keys are (keysPostgresURL, whose migrations the key
// store has applied), else in memory; and registers its figures in reg. It
// flushes until stop is called, which flushes what is left and returns
// once that is written: call it after the last request was answered.
func usageMeter(ctx context.Context, c config.RateLimit, keysPostgresURL string, reg prometheus.Registerer, log *slog.Logger) (meter *metering.Meter, stop func(), err error) {
	o := metering.Options{Log: log.With(slog.String("component", "usage"))}
	closeClient := func() {}
	switch {
	case c.Store == "redis":
		// A client of its own: a flush must not wait for, nor hold, the
		// connections of the limit checks on the hot path.
		client, err := redisconn.Open(c.RedisURL)
		if err != nil {
			return nil, nil, fmt.Errorf("rate_limit.redis_url: %w", err)
		}
		o.Redis, o.Prefix = client, c.RedisPrefix
		closeClient = func() { client.Close() }
		log.Info("usage counted in Redis", slog.String("prefix", c.RedisPrefix+"usage:"))
	case keysPostgresURL != "":
		// A pool of its own, as for Redis: a flush must not wait for the
		// admin operations' connections. It connects on first use, so a
		// database down now delays nothing: the flushes retry.
		cfg, err := pgxpool.ParseConfig(keysPostgresURL)
		if err != nil {
			return nil, nil, fmt.Errorf("keys_postgres_url: %w", err)
		}
		if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
			cfg.ConnConfig.RuntimeParams["application_name"] = pgstore.ApplicationName
		}
		cfg.MaxConns = 2 // a flush at a time, and the usage reads
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("keys_postgres_url: %w", err)
		}
		o.Postgres = pool
		closeClient = pool.Close
		log.Info("usage counted in PostgreSQL", slog.String("tables", "gateway_usage, gateway_usage_last"))
	default:
		log.Info("usage counted in memory: lost when the process exits")
	}
	meter = metering.New(o)
	stats := func(f func(metering.Stats) float64) func() float64 {
		return func() float64 { return f(meter.Stats()) }
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "exercisedb_gateway_usage_flush_errors_total",
			Help: "Flushes of usage counts that failed (kept and retried at the next flush).",
		}, stats(func(s metering.Stats) float64 { return float64(s.FlushErrors) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "exercisedb_gateway_usage_pending",
			Help: "Usage counters (key, product, day) waiting for the store after a failed flush.",
		}, stats(func(s metering.Stats) float64 { return float64(s.Pending) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "exercisedb_gateway_usage_dropped_total",
			Help: "Requests not counted in usage because too many counters were waiting for the store.",
		}, stats(func(s metering.Stats) float64 { return float64(s.Dropped) })),
	)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		meter.Run(runCtx)
		close(done)
	}()
	return meter, func() {
		cancel()
		<-done
		closeClient()
	}, nil
}
