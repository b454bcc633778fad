package tlsfiles

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/exercisedb/exercisedb/internal/testcerts"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestGRPC runs gRPC over ServerConfig and ClientCredentials, with a
// client rotation: a connection made after it uses the new material.
func TestGRPC(t *testing.T) {
	dir := t.TempDir()
	ca1, ca2 := testcerts.NewCA(t, "ca1"), testcerts.NewCA(t, "ca2")
	serve := func(ca *testcerts.CA, name string) string {
		cert, key := ca.Server(t, "catalog").Write(t, dir, name)
		caFile := filepath.Join(dir, name+"-ca.crt")
		testcerts.WriteFile(t, caFile, ca.PEM)
		log, _ := newLog()
		s, err := Load(Files{CertFile: cert, KeyFile: key, CAFile: caFile}, log)
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(s.ServerConfig())))
		healthpb.RegisterHealthServer(srv, health.NewServer())
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(srv.Stop)
		return ln.Addr().String()
	}
	check := func(addr string, creds credentials.TransportCredentials) error {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_, err = healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
		return err
	}
	old, rotated := serve(ca1, "old"), serve(ca2, "rotated")

	cert, key := ca1.Client(t, "gateway").Write(t, dir, "client")
	caFile := filepath.Join(dir, "client-ca.crt")
	testcerts.WriteFile(t, caFile, ca1.PEM)
	log, _ := newLog()
	client, err := Load(Files{CertFile: cert, KeyFile: key, CAFile: caFile}, log)
	if err != nil {
		t.Fatal(err)
	}
	watch(t, client)
	creds := client.ClientCredentials("catalog")
	if err := check(old, creds); err != nil {
		t.Fatalf("mTLS call: %v", err)
	}
	if err := check(old, insecure.NewCredentials()); err == nil {
		t.Error("a plaintext call succeeded")
	}
	ca2.Client(t, "gateway").Write(t, dir, "client")
	testcerts.WriteFile(t, caFile, ca2.PEM)
	testnet.Eventually(t, "a new connection uses the rotated files", func() error { return check(rotated, creds.Clone()) })
	if err := check(old, creds); err == nil {
		t.Error("after rotation, the old CA's server is still trusted")
	}
}
