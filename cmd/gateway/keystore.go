package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/pgstore"
)

// openKeyStore opens the keys of the configuration, PostgreSQL when
// keys_postgres_url is set, else the keys file, and registers its metrics
// in reg. A database unreachable at start is an error: with no keys ever
// loaded the gateway could only refuse every request.
func openKeyStore(ctx context.Context, cfg *config.Config, reg prometheus.Registerer, log *slog.Logger) (keys.Store, error) {
	var store keys.Store
	result := func(err error) string {
		if err != nil {
			return "error"
		}
		return "ok"
	}
	if cfg.KeysPostgresURL != "" {
		pg, err := pgstore.OpenKeys(ctx, cfg.KeysPostgresURL, pgstore.KeysOptions{Log: log})
		if err != nil {
			return nil, err
		}
		syncs := prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_key_store_syncs_total",
			Help: "Loads of every key from PostgreSQL (on a notification, a reconnection, SIGHUP or the periodic resync), by result; a failed connection counts as an error.",
		}, []string{"result"})
		reg.MustRegister(syncs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "exercisedb_gateway_key_store_up",
			Help: "1 while the last load of the keys from PostgreSQL succeeded; 0 while the keys last loaded stay in force without updates.",
		}, func() float64 {
			if pg.Up() {
				return 1
			}
			return 0
		}))
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "exercisedb_gateway_key_store_invalid_rows",
			Help: "Rows of gateway_keys that the last load skipped because they do not decode into a key (logged with their id); their keys are refused.",
		}, func() float64 { return float64(pg.Invalid()) }))
		pg.OnSync = func(err error) { syncs.WithLabelValues(result(err)).Inc() }
		store = pg
	} else {
		f, err := keys.Open(cfg.KeysFile, log)
		if err != nil {
			return nil, err // names the file, and says "keys file"
		}
		reloads := prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_gateway_key_reloads_total", Help: "Reloads of the keys file, by result.",
		}, []string{"result"})
		reg.MustRegister(reloads)
		f.OnReload = func(err error) { reloads.WithLabelValues(result(err)).Inc() }
		store = f
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "exercisedb_gateway_keys",
		Help: "Keys in force in this replica's memory, disabled and expired ones included.",
	}, func() float64 { return float64(store.Current().Len()) }))
	return store, nil
}
