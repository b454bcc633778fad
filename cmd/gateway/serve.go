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
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"

	"github.com/exercisedb/exercisedb/gateway/adminapi"
	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/httpapi"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/redisconn"
	"github.com/exercisedb/exercisedb/gateway/respcache"
	"github.com/exercisedb/exercisedb/pkg/admin"
	"github.com/exercisedb/exercisedb/pkg/buildinfo"
	"github.com/exercisedb/exercisedb/pkg/logging"
	"github.com/exercisedb/exercisedb/pkg/serve"
	"github.com/exercisedb/exercisedb/pkg/telemetry"
	"github.com/exercisedb/exercisedb/pkg/tlsfiles"
)

// runServer runs the gateway until ctx ends.
func runServer(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help goes to stdout

	configPath := fs.String("config", "gateway.yaml", "`path` of the YAML configuration")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return nil
		}
		return fmt.Errorf("%w (gateway -h lists the commands and flags)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *version {
		fmt.Fprintln(stdout, "gateway", buildinfo.Read())
		return nil
	}
	// Take SIGHUP over first: its default action would kill the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := config.Load(*configPath, getenv)
	if err != nil {
		return err
	}
	// Access lines go out in batches, not a write system call per request;
	// deferred first, the last batch follows "gateway stopped".
	logOut := logging.NewBuffer(stderr, logging.FlushInterval)
	defer logOut.Close()
	log, accessLog := newLoggers(logOut, cfg.Log)
	log.Info("gateway starting", "config", cfg)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), buildinfo.Read().Collector())
	products, err := plan.NewTable(cfg.Products)
	if err != nil {
		return err
	}
	keyStore, err := openKeyStore(ctx, cfg, reg, log)
	if err != nil {
		return err
	}
	defer keyStore.Close()
	auth := limitRate(cfg.AuthFailures)
	limits, failures, closeLimits, err := limitStore(ctx, cfg.RateLimit, auth, reg, log)
	if err != nil {
		return err
	}
	defer closeLimits()
	meter, stopMeter, err := usageMeter(ctx, cfg.RateLimit, cfg.KeysPostgresURL, reg, log)
	if err != nil {
		return err
	}
	// Runs when the servers have stopped: the last flush follows the last request.
	defer stopMeter()
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
	// The TLS files follow SIGHUP too, each source on its own channel: a
	// signal goes to every channel notified.
	publicHup, catalogHup := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(publicHup, syscall.SIGHUP)
	signal.Notify(catalogHup, syscall.SIGHUP)
	defer signal.Stop(publicHup)
	defer signal.Stop(catalogHup)
	catalogCreds, followCatalogCerts, err := catalogTransport(cfg.Catalog.TLS, catalogHup, reg, log)
	if err != nil {
		return fmt.Errorf("catalog.tls: %w", err)
	}
	catalog, err := catalogclient.New(cfg.Catalog.Target, cfg.Catalog.Timeout, streams, append(catalogDialOptions(reg, tracing), catalogCreds)...)
	if err != nil {
		return err
	}
	defer catalog.Close()
	if err := catalog.Instrument(log, reg); err != nil {
		return err
	}
	var cache *respcache.Cache
	if cfg.ResponseCache.Enabled {
		if cache, err = respcache.New(cfg.ResponseCache.MaxEntries, cfg.ResponseCache.MaxBytes); err != nil {
			return err
		}
	}
	handler, err := httpapi.New(httpapi.Deps{
		Products:       products,
		Keys:           keyStore.Current,
		Limits:         limits,
		Failures:       failures,
		Catalog:        catalog,
		DocsURL:        cfg.DocsURL,
		Log:            log,
		AccessLog:      accessLog,
		Metrics:        reg,
		TrustedProxies: cfg.TrustedProxies,
		Cache:          cache,
		Compression:    cfg.Compression.Enabled,
		Tracing:        tracing,
		CORSOrigins:    cfg.CORS.AllowedOrigins,
		Usage:          meter,
		FreeKeys:       limit.NewThrottle(limitRate(cfg.FreeLimits.PerKey), limit.MaxFailureAddrs, nil),
		FreeAddrs:      limit.NewThrottle(limitRate(cfg.FreeLimits.PerAddress), limit.MaxFailureAddrs, nil),
		InFlight:       inFlight(cfg.Catalog.MaxInFlightPerKey),
		InFlightWait:   cfg.Catalog.Timeout,
		Media: httpapi.MediaDeps{
			Signer:  medialink.NewSigner(mediaSecret(cfg.Media.SigningSecret, log), publicURL(cfg)),
			Cache:   httpapi.NewMediaCache(cfg.Media.Cache.MaxEntries, cfg.Media.Cache.MaxBytes),
			Timeout: cfg.Media.Timeout,
		},
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
	public, followCerts, err := publicServer(handler, cfg, publicHup, reg, log)
	if err != nil {
		return err
	}
	publicLn, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("%s: %w", config.SettingName("listen"), err)
	}
	adminLn, err := net.Listen("tcp", cfg.AdminListen)
	if err != nil {
		publicLn.Close()
		return fmt.Errorf("%s: %w", config.SettingName("admin_listen"), err)
	}
	log.Info("gateway listening", "http", publicLn.Addr().String(), "admin", adminLn.Addr().String(),
		"tls", cfg.TLS != nil, "h2c", cfg.H2C)

	err = serve.Phased(ctx, []func(context.Context) error{
		func(ctx context.Context) error { return serve.HTTP(ctx, publicLn, public, cfg.ShutdownTimeout) },
		followCerts,
		followCatalogCerts,
		func(ctx context.Context) error { return keyStore.Watch(ctx, hup) },
		func(ctx context.Context) error {
			if cache == nil {
				return nil
			}
			return catalog.Watch(ctx, cache.SetVersion)
		},
	}, func(ctx context.Context) error {
		// Wrong admin tokens draw on the same budget per address as wrong keys.
		throttle := admin.Throttle(failures.Fail)
		adminOpts := admin.Options{TokenHash: cfg.Admin.TokenHash, Pprof: cfg.Admin.Pprof, Throttle: throttle}
		adminRoutes := adminapi.Mount(admin.Handler(ready, reg, adminOpts), handler, adminapi.Deps{
			Store: keyStore, Products: products, Usage: meter,
			TokenHash: cfg.Admin.TokenHash, Throttle: throttle, DocsURL: cfg.DocsURL, Log: log,
		})
		return serve.HTTP(ctx, adminLn, admin.Server(adminRoutes, logging.ServerErrors(log)), cfg.ShutdownTimeout)
	}, func() {
		// Readiness fails first; the listener stays open for drain_delay,
		// until load balancers have seen it and stopped sending.
		draining.Store(true)
		log.Info("gateway shutting down", slog.Duration("drain_delay", cfg.Shutdown.DrainDelay))
		time.Sleep(cfg.Shutdown.DrainDelay)
	})
	if err != nil {
		return err
	}
	log.Info("gateway stopped")
	return nil
}

// limitRate is a configured rate as the limiters take it.
func limitRate(r config.Rate) limit.Rate {
	return limit.Rate{Requests: r.Requests, Per: r.Per, Burst: r.Burst}
}

// inFlight is the cap of each key's requests under way, or nil for none.
func inFlight(perKey int) *limit.InFlight {
	if perKey == 0 {
		return nil
	}
	return limit.NewInFlight(perKey)
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

// publicServer is the server of the public listener: HTTPS with HTTP/2
// and HTTP/1.1 when tls is set, else HTTP/1.1 and, if h2c is set, HTTP/2
// without TLS. follow keeps the certificate current until ctx ends,
// re-reading it also on each value from hup; its figures go to reg under
// files="public".
func publicServer(h http.Handler, cfg *config.Config, hup <-chan os.Signal, reg prometheus.Registerer, log *slog.Logger) (srv *http.Server, follow func(context.Context) error, err error) {
	srv = &http.Server{
		Handler:           h,
		ErrorLog:          logging.ServerErrors(log),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	follow = func(context.Context) error { return nil }
	if cfg.TLS != nil {
		certs, err := tlsfiles.Load(tlsfiles.Files{CertFile: cfg.TLS.CertFile, KeyFile: cfg.TLS.KeyFile}, log)
		if err != nil {
			return nil, nil, err
		}
		reg.MustRegister(certs.Collector("public"))
		srv.TLSConfig = certs.ServerConfig()
		follow = func(ctx context.Context) error { return certs.Watch(ctx, hup) }
	}
	if cfg.H2C {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	return srv, follow, nil
}

// newLoggers returns the gateway's log of events, each written at once,
// and its access log, written in batches.
func newLoggers(w *logging.Buffer, c config.Log) (*slog.Logger, *logging.Lines) {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToLower(c.Level))) // validated by config
	return logging.NewBuffered(w, c.Format, level), logging.NewLines(logging.New(w, c.Format, level), w, c.Format)
}

// limitStore builds the store of rate_limit: a Memory, or the Redis store
// behind a limit.Resilient (breaker, on_store_error policy, cache of
// refusals) whose figures it registers in reg; and the limiter of failed
// authentication, auth per address, counted where the rates are (in Redis
// under <prefix>auth:, always with a local share while Redis is down: a
// wrong key is 401 either way). closeStore releases the Redis client.
func limitStore(ctx context.Context, c config.RateLimit, auth limit.Rate, reg prometheus.Registerer, log *slog.Logger) (store limit.Store, failures *limit.Failures, closeStore func(), err error) {
	if c.Store != "redis" {
		log.Info("rate limits in memory: each replica counts alone")
		return limit.NewMemory(time.Now), limit.NewFailures(auth, time.Now), func() {}, nil
	}
	policy, err := limit.ParsePolicy(c.OnStoreError)
	if err != nil {
		return nil, nil, nil, err
	}
	client, err := redisconn.Open(c.RedisURL)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("rate_limit.redis_url: %w", err)
	}
	redisconn.LogTo(log) // the client's own messages; outages are logged by the Resilient
	r := limit.NewResilient(limit.NewRedis(client, c.RedisPrefix, time.Now), limit.ResilientOptions{Policy: policy, Log: log, Replicas: c.Replicas})
	failures = limit.NewSharedFailures(auth, limit.NewResilient(limit.NewRedis(client, c.RedisPrefix+"auth:", time.Now),
		limit.ResilientOptions{Log: log.With(slog.String("limiter", "auth_failures")), Replicas: c.Replicas}), time.Now)
	reg.MustRegister(r.Collector())
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		log.Warn("rate limit store unreachable at start", slog.String("on_store_error", policy.String()), slog.String("error", err.Error()))
	}
	log.Info("rate limits in Redis, shared by every replica", slog.String("prefix", c.RedisPrefix), slog.String("on_store_error", policy.String()))
	return r, failures, func() { client.Close() }, nil
}
