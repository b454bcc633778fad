package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/catalog/grpcapi"
	"github.com/exercisedb/exercisedb/pkg/filewatch"
)

// follower reloads the catalogue file on SIGHUP and when it changes. A new
// catalogue is swapped in whole: calls in flight finish on the one they
// started with, and watchers (the gateways) hear of the new version. A
// file that fails to load leaves the previous catalogue in force.
type follower struct {
	path string // empty: the embedded catalogue, which cannot change
	// cacheBytes bounds each catalogue's search results.
	cacheBytes int64
	hup        <-chan os.Signal
	svc        *grpcapi.Service
	log        *slog.Logger
	reloads    *prometheus.CounterVec
}

func (f follower) run(ctx context.Context) error {
	if f.path == "" {
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-f.hup:
				f.log.Info("SIGHUP: the embedded catalogue is served; nothing to reload")
			}
		}
	}
	return filewatch.Watch(ctx, f.path, f.hup, f.log, nil, f.reload)
}

func (f follower) reload(why filewatch.Reason) {
	c, err := loadCatalogue(f.path, f.cacheBytes)
	if err != nil {
		f.reloads.WithLabelValues("error").Inc()
		f.log.Error("catalogue reload failed; the previous catalogue stays", "err", err)
		return
	}
	f.reloads.WithLabelValues("ok").Inc()
	if old := f.svc.Catalogue(); old != nil && old.Version() == c.Version() {
		f.log.Info("catalogue unchanged", "version", c.Version())
		return
	}
	f.svc.Swap(c)
	f.log.Info("catalogue reloaded", "version", c.Version(), "records", c.Len(), "on_signal", why == filewatch.Signal)
}
