package main

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/internal/testbin"
	"github.com/exercisedb/exercisedb/internal/testcerts"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// tlsFiles writes a server key pair of ca for 127.0.0.1 and ca as the
// client CA into dir, and returns the catalog's flags for them.
func tlsFiles(t *testing.T, dir string, ca *testcerts.CA) []string {
	t.Helper()
	cert, key := ca.Server(t, "catalog", "127.0.0.1").Write(t, dir, "server")
	clientCA := filepath.Join(dir, "client-ca.crt")
	testcerts.WriteFile(t, clientCA, ca.PEM)
	return []string{"-tls-cert", cert, "-tls-key", key, "-tls-client-ca", clientCA}
}

// tlsClient trusts ca and presents pair, if not nil.
func tlsClient(t *testing.T, ca *testcerts.CA, pair *testcerts.Pair) grpc.DialOption {
	t.Helper()
	cfg := &tls.Config{RootCAs: ca.Pool()}
	if pair != nil {
		cfg.Certificates = []tls.Certificate{pair.TLS(t)}
	}
	return grpc.WithTransportCredentials(credentials.NewTLS(cfg))
}

// check makes a health check over a new connection with creds.
func (p *process) check(t *testing.T, creds grpc.DialOption) error {
	t.Helper()
	conn, err := grpc.NewClient(p.grpc, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	return err
}

// TestBinaryMTLS: with -tls-client-ca, only clients with a certificate of
// that CA get in; with -reflection=false reflection is not offered.
func TestBinaryMTLS(t *testing.T) {
	ca, other := testcerts.NewCA(t, "catalog CA"), testcerts.NewCA(t, "other CA")
	p := startBinary(t, append(tlsFiles(t, t.TempDir(), ca), "-reflection=false")...)
	var line map[string]any
	p.MustAwaitLog(t, "catalog listening", &line)
	if line["tls"] != true || line["mtls"] != true || line["reflection"] != false {
		t.Errorf("the start does not say TLS, mTLS and reflection: %v", line)
	}
	gateway, stranger := ca.Client(t, "gateway"), other.Client(t, "gateway")
	for _, tt := range []struct {
		name  string
		creds grpc.DialOption
	}{
		{"plaintext", grpc.WithTransportCredentials(insecure.NewCredentials())},
		{"no client certificate", tlsClient(t, ca, nil)},
		{"client certificate of another CA", tlsClient(t, ca, &stranger)},
	} {
		if err := p.check(t, tt.creds); err == nil {
			t.Errorf("%s: a call succeeded", tt.name)
		}
	}

	conn, err := grpc.NewClient(p.grpc, tlsClient(t, ca, &gateway))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitServing(t, conn)
	if _, err := catalogv1.NewCatalogServiceClient(conn).ListExercises(context.Background(), &catalogv1.ListExercisesRequest{Limit: 1}); err != nil {
		t.Errorf("ListExercises over mTLS: %v", err)
	}
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("reflection with -reflection=false: %v, want Unimplemented", err)
	}
	if code, body := p.get(t, "/healthz"); code != 200 {
		t.Errorf("the admin listener over plain HTTP: %d %s", code, body)
	}
}

// TestBinaryTLSOnly: without -tls-client-ca any TLS client gets in, and
// reflection is on by default.
func TestBinaryTLSOnly(t *testing.T) {
	ca := testcerts.NewCA(t, "catalog CA")
	p := startBinary(t, tlsFiles(t, t.TempDir(), ca)[:4]...)
	conn, err := grpc.NewClient(p.grpc, tlsClient(t, ca, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitServing(t, conn)
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Errorf("reflection by default: %v", err)
	}
	if err := p.check(t, grpc.WithTransportCredentials(insecure.NewCredentials())); err == nil {
		t.Error("a plaintext call succeeded")
	}
}

// TestBinaryCertificateRotation replaces the server certificate and the
// client CA with a new CA's while the catalog runs.
func TestBinaryCertificateRotation(t *testing.T) {
	dir := t.TempDir()
	ca1, ca2 := testcerts.NewCA(t, "CA 1"), testcerts.NewCA(t, "CA 2")
	p := startBinary(t, tlsFiles(t, dir, ca1)...)
	p.MustAwaitLog(t, "following TLS files", nil)
	client1, client2 := ca1.Client(t, "gateway"), ca2.Client(t, "gateway")
	waitServing(t, dial(t, p, tlsClient(t, ca1, &client1)))

	tlsFiles(t, dir, ca2)
	testnet.Eventually(t, "a client of the new CA gets in", func() error { return p.check(t, tlsClient(t, ca2, &client2)) })
	if err := p.check(t, tlsClient(t, ca1, &client1)); err == nil {
		t.Error("after rotation, a client of the old CA still gets in")
	}
	p.MustAwaitLog(t, "TLS files reloaded", nil)
	if _, body := p.get(t, "/metrics"); !strings.Contains(body, `exercisedb_tls_last_reload_successful{files="grpc"} 1`) ||
		!strings.Contains(body, `exercisedb_tls_certificate_expiry_timestamp_seconds{files="grpc"}`) {
		t.Errorf("no TLS figures of the gRPC listener on /metrics:\n%s", body)
	}
}

func dial(t *testing.T, p *process, creds grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(p.grpc, creds)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestBinaryRefusesBadTLS: a wrong flag set or a bad file stops the start
// with an error naming it.
func TestBinaryRefusesBadTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.NewCA(t, "CA")
	cert, _ := ca.Server(t, "catalog").Write(t, dir, "server")
	_, otherKey := ca.Server(t, "catalog").Write(t, dir, "other")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-tls-cert", cert}, "-tls-cert needs -tls-key"},
		{[]string{"-tls-client-ca", cert}, "-tls-client-ca needs -tls-cert and -tls-key"},
		{[]string{"-tls-cert", cert, "-tls-key", otherKey}, "other.key"},
		{[]string{"-tls-cert", cert, "-tls-key", otherKey + ".missing"}, "other.key.missing"},
	} {
		r := testbin.Run(t, catalogBin(t), append([]string{"-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0"}, tt.args...)...)
		if r.Code != 1 || !strings.Contains(r.Stderr, tt.want) {
			t.Errorf("%v: exit %d, want exit status 1 and a message containing %q:\n%s", tt.args, r.Code, tt.want, r.Stderr)
		}
	}
}
