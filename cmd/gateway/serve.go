package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"

	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/httpapi"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/respcache"
	"github.com/exercisedb/exercisedb/pkg/admin"
	"github.com/exercisedb/exercisedb/pkg/serve"
	"github.com/exercisedb/exercisedb/pkg/telemetry"
)

// runServer runs the gateway until ctx ends.
func runServer(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "gateway.yaml", "`path` of the YAML configuration")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	// Take SIGHUP over first: its default action would kill the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := config.Load(*configPath, getenv)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.Log)
	log.Info("gateway starting", "config", cfg.Redacted())

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	products, err := plan.NewTable(cfg.Products)
	if err != nil {
		return err
	}
	keyStore, err := keys.Open(cfg.KeysFile, log)
	if err != nil {
		return fmt.Errorf("keys file: %w", err)
	}
	reloads := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "exercisedb_gateway_key_reloads_total", Help: "Reloads of the keys file, by result.",
	}, []string{"result"})
	reg.MustRegister(reloads)
	keyStore.OnReload = func(err error) {
		result := "ok"
		if err != nil {
			result = "error"
		}
		reloads.WithLabelValues(result).Inc()
	}
	limits, closeLimits, err := limitStore(ctx, cfg.RateLimit, reg, log)
	if err != nil {
		return err
	}
	defer closeLimits()
	shutdownTracing, err := telemetry.Setup(ctx, "gateway", getenv)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer shutdownTracing(context.WithoutCancel(ctx))
	tracing := telemetry.Enabled(getenv)
	streams := cfg.Catalog.Streams
	if tracing {
		streams = 0 // one RPC, so one span, per call
	}
	catalog, err := catalogclient.New(cfg.Catalog.Target, cfg.Catalog.Timeout, streams, catalogDialOptions(reg, tracing)...)
	if err != nil {
		return err
	}
	defer catalog.Close()
	var cache *respcache.Cache
	if cfg.ResponseCache.Enabled {
		if cache, err = respcache.New(cfg.ResponseCache.MaxEntries); err != nil {
			return err
		}
	}
	auth := cfg.AuthFailures
	handler, err := httpapi.New(httpapi.Deps{
		Products:       products,
		Keys:           keyStore.Current,
		Limits:         limits,
		Failures:       limit.NewFailures(limit.Rate{Requests: auth.Requests, Per: auth.Per, Burst: auth.Burst}, time.Now),
		Catalog:        catalog,
		DocsURL:        cfg.DocsURL,
		Log:            log,
		Metrics:        reg,
		TrustedProxies: cfg.TrustedProxies,
		Cache:          cache,
		Tracing:        tracing,
	})
	if err != nil {
		return err
	}

	var draining atomic.Bool
	ready := func() error {
		if draining.Load() {
			return errors.New("shutting down")
		}
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return catalog.Ready(ctx)
	}
	publicLn, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	adminLn, err := net.Listen("tcp", cfg.AdminListen)
	if err != nil {
		publicLn.Close()
		return err
	}
	log.Info("gateway listening", "http", publicLn.Addr().String(), "admin", adminLn.Addr().String())

	err = serve.Phased(ctx, []func(context.Context) error{
		func(ctx context.Context) error {
			return serve.HTTP(ctx, publicLn, publicServer(handler), cfg.ShutdownTimeout)
		},
		func(ctx context.Context) error { return keyStore.Watch(ctx, hup) },
		func(ctx context.Context) error {
			if cache == nil {
				return nil
			}
			return catalog.Watch(ctx, cache.SetVersion)
		},
	}, func(ctx context.Context) error {
		return serve.HTTP(ctx, adminLn, admin.Server(admin.Handler(ready, reg)), cfg.ShutdownTimeout)
	}, func() {
		log.Info("gateway shutting down")
		draining.Store(true)
	})
	if err != nil {
		return err
	}
	log.Info("gateway stopped")
	return nil
}

// catalogDialOptions instruments the catalog connection: go-grpc-middleware's
// client metrics, and otelgrpc's spans when tracing is on.
func catalogDialOptions(reg prometheus.Registerer, tracing bool) []grpc.DialOption {
	metrics := grpcprom.NewClientMetrics(grpcprom.WithClientHandlingTimeHistogram())
	reg.MustRegister(metrics)
	opts := []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(metrics.UnaryClientInterceptor()),
		grpc.WithChainStreamInterceptor(metrics.StreamClientInterceptor()),
	}
	if tracing {
		opts = append(opts, grpc.WithStatsHandler(otelgrpc.NewClientHandler()))
	}
	return opts
}

func publicServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

func newLogger(w io.Writer, c config.Log) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToLower(c.Level))) // validated by config
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// limitStore builds the store of rate_limit: a Memory, or the Redis store
// behind a limit.Resilient (breaker, on_store_error policy, cache of
// refusals) whose figures it registers in reg. closeStore releases the Redis
// client.
func limitStore(ctx context.Context, c config.RateLimit, reg prometheus.Registerer, log *slog.Logger) (store limit.Store, closeStore func(), err error) {
	if c.Store != "redis" {
		log.Info("rate limits in memory: each replica counts alone")
		return limit.NewMemory(time.Now), func() {}, nil
	}
	policy, err := limit.ParsePolicy(c.OnStoreError)
	if err != nil {
		return nil, nil, err
	}
	client, err := limit.NewRedisClient(c.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("rate_limit.redis_url: %w", err)
	}
	redis.SetLogger(redisLog{log}) // the client's own messages; outages are logged by the Resilient
	r := limit.NewResilient(limit.NewRedis(client, c.RedisPrefix, time.Now), limit.ResilientOptions{Policy: policy, Log: log, Replicas: c.Replicas})
	stats := func(f func(limit.Stats) uint64) func() float64 {
		return func() float64 { return float64(f(r.Stats())) }
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "exercisedb_gateway_limit_store_calls_total",
			Help: "Rate limit decisions sent to the shared store (Redis).",
		}, stats(func(s limit.Stats) uint64 { return s.Calls })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "exercisedb_gateway_limit_store_errors_total",
			Help: "Rate limit decisions the shared store (Redis) failed to make.",
		}, stats(func(s limit.Stats) uint64 { return s.Errors })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "exercisedb_gateway_limit_fallback_total",
			Help: "Rate limit decisions made by rate_limit.on_store_error because the shared store was unavailable.",
		}, stats(func(s limit.Stats) uint64 { return s.Fallbacks })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "exercisedb_gateway_limit_cached_refusals_total",
			Help: "Requests refused from this replica's cache of keys known to be over their limit, without asking the shared store.",
		}, stats(func(s limit.Stats) uint64 { return s.Cached })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "exercisedb_gateway_limit_store_state",
			Help: "State of the circuit breaker in front of the shared store: 0 closed, 1 half-open, 2 open (store unavailable).",
		}, func() float64 { return float64(r.Stats().State) }),
	)
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		log.Warn("rate limit store unreachable at start", slog.String("on_store_error", policy.String()), slog.String("error", err.Error()))
	}
	log.Info("rate limits in Redis, shared by every replica", slog.String("prefix", c.RedisPrefix), slog.String("on_store_error", policy.String()))
	return r, func() { client.Close() }, nil
}

// redisLog passes go-redis's own messages (a failed dial, a pool event) to
// the log at debug level.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client", slog.String("detail", fmt.Sprintf(format, v...)))
}
