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

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/httpapi"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/respcache"
	"github.com/exercisedb/exercisedb/pkg/admin"
	"github.com/exercisedb/exercisedb/pkg/serve"
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
		reloads.WithLabelValues(map[bool]string{true: "ok", false: "error"}[err == nil]).Inc()
	}
	if cfg.RateLimit.Store != "memory" {
		return fmt.Errorf("rate_limit.store %q is not available yet: use memory", cfg.RateLimit.Store)
	}
	catalog, err := catalogclient.New(cfg.Catalog.Target, cfg.Catalog.Timeout)
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
		Limits:         limit.NewMemory(time.Now),
		Failures:       limit.NewFailures(limit.Rate{Requests: auth.Requests, Per: auth.Per, Burst: auth.Burst}, time.Now),
		Catalog:        catalog,
		DocsURL:        cfg.DocsURL,
		Log:            log,
		Metrics:        reg,
		TrustedProxies: cfg.TrustedProxies,
		Cache:          cache,
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
