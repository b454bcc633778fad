package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/internal/testbin"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// catalogBin is the binary under test, built once per test binary.
func catalogBin(t testing.TB) string { return testbin.Build(t, ".") }

// process is a running catalog binary.
type process struct {
	*testbin.Process
	grpc, admin string
}

// startBinary runs the catalog on free ports and waits until it listens.
func startBinary(t *testing.T, args ...string) *process {
	t.Helper()
	p := testbin.Start(t, catalogBin(t), append([]string{"-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0"}, args...)...)
	var line struct{ GRPC, Admin string }
	p.MustAwaitLog(t, "catalog listening", &line)
	return &process{Process: p, grpc: line.GRPC, admin: line.Admin}
}

func (p *process) dial(t *testing.T) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(p.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func (p *process) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + p.admin + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitServing polls health until the embedded catalogue is loaded.
func waitServing(t *testing.T, conn *grpc.ClientConn) {
	t.Helper()
	hc := healthpb.NewHealthClient(conn)
	testnet.Eventually(t, "SERVING", func() error {
		r, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "exercisedb.catalog.v1.CatalogService"})
		if err != nil {
			return err
		}
		return testnet.Unless(r.Status == healthpb.HealthCheckResponse_SERVING, r.Status.String())
	})
}

func TestBinaryServesEmbeddedCatalogue(t *testing.T) {
	p := startBinary(t)
	conn := p.dial(t)
	waitServing(t, conn)
	resp, err := catalogv1.NewCatalogServiceClient(conn).ListExercises(context.Background(), &catalogv1.ListExercisesRequest{
		Filter: &catalogv1.ExerciseFilter{BodyParts: []string{"chest"}}, Limit: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Exercises) != 5 || resp.Total < 20 || !resp.HasNextPage || resp.CatalogueVersion == "" {
		t.Errorf("chest page = %d records, total %d, next %v, version %q", len(resp.Exercises), resp.Total, resp.HasNextPage, resp.CatalogueVersion)
	}
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready", "/metrics": "exercisedb_catalog_records", "/metrics ": "exercisedb_build_info{goversion="} {
		path = strings.TrimSpace(path)
		if code, body := p.get(t, path); code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s = %d %q, want 200 containing %q", path, code, body, want)
		}
	}
	if _, body := p.get(t, "/metrics"); !strings.Contains(body, `grpc_server_handled_total{grpc_code="OK",grpc_method="ListExercises"`) {
		t.Errorf("metrics lack the gRPC server counters")
	}
}

// TestBinaryDrainsOnSIGTERM checks the shutdown order: health turns
// NOT_SERVING and readiness fails, a call in flight (an open stream)
// still completes, and the process exits cleanly once it is done.
func TestBinaryDrainsOnSIGTERM(t *testing.T) {
	p := startBinary(t, "-shutdown-timeout", "20s")
	conn := p.dial(t)
	waitServing(t, conn)
	ctx := context.Background()
	watch, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := watch.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("watch: %v %v", r, err)
	}
	inFlight, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	listServices := &reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}
	if err := inFlight.Send(listServices); err != nil {
		t.Fatal(err)
	}
	if _, err := inFlight.Recv(); err != nil {
		t.Fatal(err)
	}

	p.Signal(t, syscall.SIGTERM)
	if r, err := watch.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("after SIGTERM, watch: %v %v; want NOT_SERVING", r, err)
	}
	if code, body := p.get(t, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Errorf("GET /readyz while draining = %d %q, want 503 shutting down", code, body)
	}
	// The call in flight goes on working while the server drains.
	if err := inFlight.Send(listServices); err != nil {
		t.Fatal(err)
	}
	if _, err := inFlight.Recv(); err != nil {
		t.Fatalf("call in flight broken by shutdown: %v", err)
	}
	select {
	case <-p.Exited():
		t.Fatalf("exited with calls in flight: %v", p.ExitErr())
	case <-time.After(200 * time.Millisecond):
	}
	watch.CloseSend()
	inFlight.CloseSend()
	if _, err := inFlight.Recv(); !errors.Is(err, io.EOF) {
		t.Logf("closing the stream: %v", err)
	}
	conn.Close()
	select {
	case <-p.Exited():
		if p.ExitErr() != nil {
			t.Fatalf("exit: %v", p.ExitErr())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still running after its calls finished")
	}
}

// A health watcher that does not leave on its own (grpc-go's client-side
// health checking, a Watch-based probe) must not hold the drain until its
// deadline: its stream ends once it has heard NOT_SERVING.
func TestBinaryEndsHealthWatchesOnSIGTERM(t *testing.T) {
	p := startBinary(t, "-shutdown-timeout", "20s")
	conn := p.dial(t)
	waitServing(t, conn)
	// Well before the shutdown deadline: a stream that is not ended fails.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var watches []grpc.ServerStreamingClient[healthpb.HealthCheckResponse]
	for _, service := range []string{"", "exercisedb.catalog.v1.CatalogService"} {
		w, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := w.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("watch %q: %v %v", service, r, err)
		}
		watches = append(watches, w)
	}
	p.Signal(t, syscall.SIGTERM)
	for _, w := range watches {
		if r, err := w.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Fatalf("after SIGTERM, watch: %v %v; want NOT_SERVING", r, err)
		}
		if r, err := w.Recv(); status.Code(err) != codes.Unavailable {
			t.Errorf("after NOT_SERVING, watch: %v %v; want the stream to end with Unavailable", r, err)
		}
	}
	// The connection stays open: the process must exit all the same.
	select {
	case <-p.Exited():
		if p.ExitErr() != nil {
			t.Fatalf("exit: %v", p.ExitErr())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10s after SIGTERM with only health watchers connected")
	}
}

func TestBinaryRefusesABadCatalogue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(`{"format":"exercisedb-catalogue/v1","vocabularies":{},"exercises":[{"id":"x","nam":"typo"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := testbin.Run(t, catalogBin(t), "-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-data", path)
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, `exercises[0] (id "x"): unknown field "nam"`) {
		t.Errorf("stderr does not name the record and field:\n%s", r.Stderr)
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		r := testbin.Run(t, catalogBin(t), arg)
		if r.Code != 0 {
			t.Errorf("catalog %s: exit %d, want 0; stderr: %s", arg, r.Code, r.Stderr)
		}
		for _, want := range []string{"-tls-client-ca", "CATALOG_TLS_CLIENT_CA", "-reflection", "-pprof", "-version"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("catalog %s does not mention %s:\n%s", arg, want, r.Stdout)
			}
		}
	}
	r := testbin.Run(t, catalogBin(t), "-version")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "catalog ") || strings.Count(r.Stdout, "\n") != 1 || !strings.Contains(r.Stdout, runtime.Version()) {
		t.Errorf("catalog -version: exit %d, %q; want exit 0 and one line with the Go version", r.Code, r.Stdout)
	}
	r = testbin.Run(t, catalogBin(t), "-bogus")
	if r.Code != 1 || !strings.Contains(r.Stderr, "catalog -h") {
		t.Errorf("catalog -bogus: exit %d, %q; want exit 1 and a pointer to -h", r.Code, r.Stderr)
	}
}

func TestBinaryNamesAnAddressItCannotUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tt := range []struct{ flag, want string }{
		{"-listen", "-listen (CATALOG_LISTEN): listen tcp " + taken.Addr().String()},
		{"-admin", "-admin (CATALOG_ADMIN): listen tcp " + taken.Addr().String()},
	} {
		args := []string{"-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0", tt.flag, taken.Addr().String()}
		r := testbin.Run(t, catalogBin(t), args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, tt.want) {
			t.Errorf("%s on a taken port: exit %d\n%s\nwant exit 1 and %q", tt.flag, r.Code, r.Stderr, tt.want)
		}
	}
}
