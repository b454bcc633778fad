package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "catalog-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "catalog")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic("building catalog: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// process is a running catalog binary.
type process struct {
	cmd         *exec.Cmd
	grpc, admin string
	exited      chan struct{} // closed when the process has exited
	exitErr     error         // its exit status, set before exited closes

	mu     sync.Mutex
	logged []string // the log lines so far
}

// waitLog waits until the process logs a line containing s.
func (p *process) waitLog(t *testing.T, s string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p.mu.Lock()
		lines := p.logged
		p.mu.Unlock()
		for _, l := range lines {
			if strings.Contains(l, s) {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the catalog did not log %q", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startBinary runs the catalog on free ports and waits until it listens.
func startBinary(t *testing.T, args ...string) *process {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
	})
	listening := make(chan struct{ grpc, admin string }, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, GRPC, Admin string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "catalog listening" {
				listening <- struct{ grpc, admin string }{line.GRPC, line.Admin}
			}
			p.mu.Lock()
			p.logged = append(p.logged, sc.Text())
			p.mu.Unlock()
			t.Log(sc.Text())
		}
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	select {
	case addr := <-listening:
		p.grpc, p.admin = addr.grpc, addr.admin
	case <-p.exited:
		t.Fatalf("catalog exited before listening: %v", p.exitErr)
	case <-time.After(20 * time.Second):
		t.Fatal("catalog did not start listening")
	}
	return p
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
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "exercisedb.catalog.v1.CatalogService"})
		if err == nil && r.Status == healthpb.HealthCheckResponse_SERVING {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not SERVING: %v %v", r, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
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

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
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
	case <-p.exited:
		t.Fatalf("exited with calls in flight: %v", p.exitErr)
	case <-time.After(200 * time.Millisecond):
	}
	watch.CloseSend()
	inFlight.CloseSend()
	if _, err := inFlight.Recv(); !errors.Is(err, io.EOF) {
		t.Logf("closing the stream: %v", err)
	}
	conn.Close()
	select {
	case <-p.exited:
		if p.exitErr != nil {
			t.Fatalf("exit: %v", p.exitErr)
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
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
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
	case <-p.exited:
		if p.exitErr != nil {
			t.Fatalf("exit: %v", p.exitErr)
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
	out, err := exec.Command(binary, "-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-data", path).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	if !strings.Contains(string(out), `exercises[0] (id "x"): unknown field "nam"`) {
		t.Errorf("output does not name the record and field:\n%s", out)
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		var stdout strings.Builder
		cmd := exec.Command(binary, arg)
		cmd.Stdout = &stdout
		if err := cmd.Run(); err != nil {
			t.Errorf("catalog %s: %v, want exit 0", arg, err)
		}
		for _, want := range []string{"-tls-client-ca", "CATALOG_TLS_CLIENT_CA", "-reflection", "-pprof", "-version"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("catalog %s does not mention %s:\n%s", arg, want, stdout.String())
			}
		}
	}
	out, err := exec.Command(binary, "-version").Output()
	if err != nil || !strings.HasPrefix(string(out), "catalog ") || strings.Count(string(out), "\n") != 1 || !strings.Contains(string(out), runtime.Version()) {
		t.Errorf("catalog -version: %v, %q; want exit 0 and one line with the Go version", err, out)
	}
	out, err = exec.Command(binary, "-bogus").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "catalog -h") {
		t.Errorf("catalog -bogus: %v, %q; want exit 1 and a pointer to -h", err, out)
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
		out, err := exec.Command(binary, args...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), tt.want) {
			t.Errorf("%s on a taken port: %v\n%s\nwant exit 1 and %q", tt.flag, err, out, tt.want)
		}
	}
}
