package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/pkg/tlsfiles"
)

// catalogTransport returns the transport of the catalog connections, for
// catalogclient.New (whose own insecure default it overrides): TLS from
// catalog.tls, else plaintext. follow keeps the files current until ctx
// ends, re-reading them also on each value from hup; each new connection
// uses what they hold then. Their figures go to reg under files="catalog".
func catalogTransport(c *config.CatalogTLS, hup <-chan os.Signal, reg prometheus.Registerer, log *slog.Logger) (opt grpc.DialOption, follow func(context.Context) error, err error) {
	if c == nil {
		return grpc.WithTransportCredentials(insecure.NewCredentials()), func(context.Context) error { return nil }, nil
	}
	files, err := tlsfiles.Load(tlsfiles.Files{CAFile: c.CAFile, CertFile: c.CertFile, KeyFile: c.KeyFile}, log)
	if err != nil {
		return nil, nil, err
	}
	reg.MustRegister(files.Collector("catalog"))
	return grpc.WithTransportCredentials(files.ClientCredentials(c.ServerName)),
		func(ctx context.Context) error { return files.Watch(ctx, hup) }, nil
}
