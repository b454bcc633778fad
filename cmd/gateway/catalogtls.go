package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/pkg/tlsfiles"
)

// catalogTransport returns the transport of the catalog connections, for
// catalogclient.New (whose own insecure default it overrides): TLS from
// catalog.tls, else plaintext. follow keeps the files current until ctx
// ends, re-reading them also on each value from hup; each new connection
// uses what they hold then. Their figures go to reg under files="catalog".
// catalog.tls without files (only server_name, or {}) is TLS verified
// against the system's roots, with nothing to follow.
func catalogTransport(c *config.CatalogTLS, hup <-chan os.Signal, reg prometheus.Registerer, log *slog.Logger) (opt grpc.DialOption, follow func(context.Context) error, err error) {
	noFollow := func(context.Context) error { return nil }
	switch {
	case c == nil:
		return grpc.WithTransportCredentials(insecure.NewCredentials()), noFollow, nil
	case c.CAFile == "" && c.CertFile == "" && c.KeyFile == "":
		return grpc.WithTransportCredentials(credentials.NewTLS(tlsfiles.SystemClientConfig(c.ServerName))), noFollow, nil
	}
	files, err := tlsfiles.Load(tlsfiles.Files{CAFile: c.CAFile, CertFile: c.CertFile, KeyFile: c.KeyFile}, log)
	if err != nil {
		return nil, nil, err
	}
	reg.MustRegister(files.Collector("catalog"))
	return grpc.WithTransportCredentials(files.ClientCredentials(c.ServerName)),
		func(ctx context.Context) error { return files.Watch(ctx, hup) }, nil
}
