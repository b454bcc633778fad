// Command catalog serves the exercise catalogue over gRPC (TLS, or mTLS,
// when given certificates), with health, reflection unless turned off, and
// a plain HTTP admin listener for /healthz, /readyz and /metrics.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/reflection"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/grpcapi"
	"github.com/exercisedb/exercisedb/catalog/media"
	"github.com/exercisedb/exercisedb/pkg/admin"
	"github.com/exercisedb/exercisedb/pkg/buildinfo"
	"github.com/exercisedb/exercisedb/pkg/logging"
	"github.com/exercisedb/exercisedb/pkg/serve"
	"github.com/exercisedb/exercisedb/pkg/telemetry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "catalog:", err)
		os.Exit(1)
	}
}

// run starts the servers, loads the catalogue, and serves until ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	// Take SIGHUP over first: its default action would kill the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := parseConfig(args, getenv, stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	// A line per call goes out in batches, not a write system call each;
	// deferred first, the last batch follows "catalog stopped".
	logOut := logging.NewBuffer(stderr, logging.FlushInterval)
	defer logOut.Close()
	log, callLog := cfg.loggers(logOut)
	log.Info("catalog starting", "config", cfg)

	shutdownTracing, err := telemetry.Setup(ctx, "catalog", getenv)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer shutdownTracing(context.WithoutCancel(ctx))
	var grpcOpts []grpc.ServerOption
	if telemetry.Enabled(getenv) {
		grpcOpts = append(grpcOpts, grpc.StatsHandler(otelgrpc.NewServerHandler()))
	}
	tlsFiles, err := listenerTLS(cfg, log)
	if err != nil {
		return err
	}
	if tlsFiles != nil {
		grpcOpts = append(grpcOpts, grpc.Creds(credentials.NewTLS(tlsFiles.ServerConfig())))
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), buildinfo.Read().Collector())
	if tlsFiles != nil {
		reg.MustRegister(tlsFiles.Collector("grpc"))
	}
	// The changelog shipped with the embedded catalogue; a catalogue loaded
	// from a file gets the versions it covers, if it is one of them.
	history, err := changelog.Decode(bytes.NewReader(dataset.Changelog()))
	if err != nil {
		return fmt.Errorf("embedded changelog: %w", err)
	}
	svc := &grpcapi.Service{Changelog: history, Renderer: media.NewRenderer(grpcapi.DefaultMediaCacheEntries, cfg.MediaCacheBytes, cfg.MediaDir)}
	grpcSrv, health := grpcapi.NewServer(svc, callLog, reg, grpcOpts...)
	if cfg.Reflection {
		reflection.Register(grpcSrv)
	}
	var draining atomic.Bool
	ready := func() error {
		switch {
		case draining.Load():
			return errors.New("shutting down")
		case svc.Catalogue() == nil:
			return errors.New("catalogue loading")
		}
		return nil
	}

	grpcLn, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("-listen (CATALOG_LISTEN): %w", err)
	}
	adminLn, err := net.Listen("tcp", cfg.Admin)
	if err != nil {
		grpcLn.Close()
		return fmt.Errorf("-admin (CATALOG_ADMIN): %w", err)
	}
	log.Info("catalog listening", "grpc", grpcLn.Addr().String(), "admin", adminLn.Addr().String(),
		"tls", tlsFiles != nil, "mtls", cfg.TLSClientCA != "", "reflection", cfg.Reflection)

	// The catalogue loads while the listeners are open, so that health
	// can say NOT_SERVING meanwhile; a failed load stops the process.
	load := func(ctx context.Context) error {
		c, err := loadCatalogue(cfg.Data, cfg.SearchCacheBytes)
		if err != nil {
			return err
		}
		svc.Swap(c)
		grpcapi.SetServing(health, true)
		log.Info("catalogue loaded", "version", c.Version(), "records", c.Len(), "source", cmpOr(cfg.Data, "embedded"))
		<-ctx.Done()
		return nil
	}
	reloads := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "exercisedb_catalog_reloads_total", Help: "Reloads of the catalogue file, by result.",
	}, []string{"result"})
	reg.MustRegister(reloads)
	follow := follower{path: cfg.Data, cacheBytes: cfg.SearchCacheBytes, hup: hup, svc: svc, log: log, reloads: reloads}
	err = serve.Phased(ctx, []func(context.Context) error{
		load,
		follow.run,
		func(ctx context.Context) error {
			if tlsFiles == nil {
				return nil
			}
			// Its own channel: a signal goes to every channel notified.
			tlsHup := make(chan os.Signal, 1)
			signal.Notify(tlsHup, syscall.SIGHUP)
			defer signal.Stop(tlsHup)
			return tlsFiles.Watch(ctx, tlsHup)
		},
		func(ctx context.Context) error { return serve.GRPC(ctx, grpcLn, grpcSrv, cfg.ShutdownTimeout) },
	}, func(ctx context.Context) error {
		return serve.HTTP(ctx, adminLn, admin.Server(admin.Handler(ready, reg, admin.Options{TokenHash: cfg.AdminTokenHash, Pprof: cfg.Pprof}), logging.ServerErrors(log)), cfg.ShutdownTimeout)
	}, func() {
		log.Info("catalog shutting down")
		draining.Store(true)
		health.Shutdown()
		svc.Stop()
	})
	if err != nil {
		return err
	}
	log.Info("catalog stopped")
	return nil
}

// loadCatalogue reads the file at path, or the embedded catalogue when path
// is empty, keeping at most cacheBytes of search results.
func loadCatalogue(path string, cacheBytes int64) (*exercise.Catalogue, error) {
	data := dataset.Default()
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	c, err := exercise.Load(data, exercise.CacheBytes(cacheBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmpOr(path, "embedded catalogue"), err)
	}
	return c, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
