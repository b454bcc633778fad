package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/internal/testbin"
	"github.com/exercisedb/exercisedb/internal/testcerts"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// withCatalogTLS adds catalog.tls (YAML lines under catalog:) to the
// configuration at path.
func withCatalogTLS(t *testing.T, path, tlsYAML string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(data), "catalog:\n", "catalog:\n  tls:\n"+tlsYAML, 1)
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogMTLS runs the catalog with mTLS and two gateways: one with
// the client certificate serves, one without it is not ready.
func TestCatalogMTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.NewCA(t, "internal CA")
	cert, key := ca.Server(t, "catalog").Write(t, dir, "catalog")
	caFile := filepath.Join(dir, "ca.crt")
	testcerts.WriteFile(t, caFile, ca.PEM)
	p := testbin.Start(t, catalogBin(t), "-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0",
		"-tls-cert", cert, "-tls-key", key, "-tls-client-ca", caFile)
	var line struct{ GRPC string }
	p.MustAwaitLog(t, "catalog listening", &line)

	config := testConfig(t, line.GRPC, options{})
	testcerts.WriteFile(t, filepath.Join(filepath.Dir(config), "ca.crt"), ca.PEM)
	ca.Client(t, "gateway").Write(t, filepath.Dir(config), "client")
	// Relative names: beside the configuration.
	withCatalogTLS(t, config, "    ca_file: ca.crt\n    cert_file: client.crt\n    key_file: client.key\n    server_name: catalog\n")
	k := newKey(t, config, "key_mtls", "exercisedb=Pro")
	g := startGateway(t, config)
	c := newClient(t)
	testnet.Eventually(t, "a listing through mTLS", func() error {
		code, body := statusOf(t, c, g, "/api/v1/exercises?limit=1", k, gifHost)
		return testnet.Unless(code == http.StatusOK, body)
	})

	noCert := testConfig(t, line.GRPC, options{})
	withCatalogTLS(t, noCert, fmt.Sprintf("    ca_file: %s\n    server_name: catalog\n", caFile))
	if err := os.WriteFile(keysPath(noCert), []byte("keys: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g2 := startGateway(t, noCert)
	testnet.Eventually(t, "/readyz 503: the catalog requires a client certificate", func() error {
		code, body := adminGet(c, g2, "/readyz")
		return testnet.Unless(code == http.StatusServiceUnavailable && strings.Contains(body, "certificate required"), body)
	})
}

// TestCatalogTransportSystemRoots: catalog.tls without files (only
// server_name, or {}) is TLS verified against the system's roots: a
// catalog whose certificate they do not vouch for is refused by
// verification, not reached in plaintext, and the handshake asks for
// server_name.
func TestCatalogTransportSystemRoots(t *testing.T) {
	ca := testcerts.NewCA(t, "a CA of no system")
	cert := ca.Server(t, "catalog", "127.0.0.1").TLS(t)
	names := make(chan string, 10)
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{
		GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
			names <- h.ServerName
			return &cert, nil
		},
	})))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)

	// In order, the handshakes of the case that reads names first: a
	// case without a server name sends "" (the target is an address),
	// which must not be read as the next case's.
	for _, tc := range []struct {
		name string
		c    *config.CatalogTLS
	}{{"server_name only", &config.CatalogTLS{ServerName: "catalog"}}, {"{}", &config.CatalogTLS{}}} {
		c := tc.c
		t.Run(tc.name, func(t *testing.T) {
			for len(names) > 0 {
				<-names
			}
			opt, follow, err := catalogTransport(c, nil, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatalf("catalogTransport: %v", err)
			}
			if err := follow(t.Context()); err != nil {
				t.Errorf("follow: %v", err)
			}
			conn, err := grpc.NewClient(ln.Addr().String(), opt)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
			if err == nil || !strings.Contains(err.Error(), "x509: certificate signed by unknown authority") {
				t.Errorf("a call to a catalog with a certificate of another CA: %v, want refused by verification", err)
			}
			if c.ServerName != "" {
				if got := <-names; got != c.ServerName {
					t.Errorf("the handshake asked for %q, want server_name %q", got, c.ServerName)
				}
			}
		})
	}
}
