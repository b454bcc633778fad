package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is a child process: the catalog, the gateway or the reference.
type server struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{} // closed when the process has exited
	err     error         // of Wait, once exited is closed
}

// startServer runs bin with args, on the given cores if cpus is not empty
// (taskset execs the binary, so the pid is the server's), with its output
// in logPath.
func startServer(name, logPath, cpus, bin string, args ...string) (*server, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := pinnedCommand(cpus, bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = childEnv()
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// pinnedCommand runs bin under taskset -c cpus, or directly if cpus is
// empty.
func pinnedCommand(cpus, bin string, args ...string) *exec.Cmd {
	if cpus == "" {
		return exec.Command(bin, args...)
	}
	return exec.Command("taskset", append([]string{"-c", cpus, bin}, args...)...)
}

// childEnv is this process's environment without the variables that
// would override the generated configuration of the servers.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GATEWAY_") || strings.HasPrefix(kv, "CATALOG_") || strings.HasPrefix(kv, "GOMAXPROCS=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop sends SIGTERM, and SIGKILL if the process is still there after
// timeout.
func (s *server) stop(timeout time.Duration) {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// failure describes an exit that was not asked for, with the end of the
// server's output.
func (s *server) failure() error {
	return fmt.Errorf("%s exited (%v); its output ends:\n%s", s.name, s.err, s.logTail(2048))
}

func (s *server) logTail(n int64) string {
	f, err := os.Open(s.logPath)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		_, _ = f.Seek(-n, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// waitReady polls url until it answers 200, each server in watch is
// still running, and ctx or the timeout has not ended.
func waitReady(ctx context.Context, url string, timeout time.Duration, watch ...*server) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	last := "no answer"
	for {
		for _, s := range watch {
			select {
			case <-s.exited:
				return s.failure()
			default:
			}
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(b))
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready within %v: %s", url, timeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freeAddrs returns n loopback addresses whose ports were free a moment
// ago, chosen here so that no server's log need be read for them; a lost
// race shows as a server that exits at start, and the caller tries again.
func freeAddrs(n int) ([]string, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	addrs := make([]string, n)
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		addrs[i] = ln.Addr().String()
	}
	return addrs, nil
}

// system is the catalog and the gateway under test.
type system struct {
	catalog, gateway *server
	gatewayURL       string // http://127.0.0.1:port
	gatewayAdmin     string // http://127.0.0.1:port (/readyz, /metrics)
	catalogAdmin     string
	keys             map[string]string // key by keySpec name
}

// startSystem creates the keys and starts the catalog and the gateway
// from bin, in dir, on the given cores.
// keysPostgres, if not empty, keeps the gateway's keys in that PostgreSQL
// database instead of a keys file.
func startSystem(ctx context.Context, bin, dir, cpus, keysPostgres string) (*system, error) {
	var errs []error
	for attempt := range 3 {
		sys, err := tryStartSystem(ctx, bin, filepath.Join(dir, fmt.Sprintf("system-%d", attempt)), cpus, keysPostgres)
		if err == nil {
			return sys, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, errors.Join(errs...)
}

func tryStartSystem(ctx context.Context, bin, dir, cpus, keysPostgres string) (_ *system, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	addrs, err := freeAddrs(4)
	if err != nil {
		return nil, err
	}
	catalogListen, catalogAdmin, gatewayListen, gatewayAdmin := addrs[0], addrs[1], addrs[2], addrs[3]
	cfg := gatewayConfig(gatewayListen, gatewayAdmin, catalogListen, keysPostgres)
	if _, err := parseGatewayConfig(cfg); err != nil {
		return nil, fmt.Errorf("generated gateway configuration: %w", err)
	}
	cfgPath := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	gatewayBin, catalogBin := filepath.Join(bin, "gateway"), filepath.Join(bin, "catalog")
	sys := &system{
		gatewayURL:   "http://" + gatewayListen,
		gatewayAdmin: "http://" + gatewayAdmin,
		catalogAdmin: "http://" + catalogAdmin,
		keys:         map[string]string{},
	}
	// The keys file must exist before the gateway starts.
	for _, k := range keySpecs {
		args := []string{"keys", "create", "-config", cfgPath, "-name", k.Name}
		for _, p := range k.Products {
			args = append(args, "-product", p+"="+k.Plan)
		}
		cmd := exec.CommandContext(ctx, gatewayBin, args...)
		cmd.Env = childEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("gateway keys create -name %s: %v: %s", k.Name, err, bytes.TrimSpace(stderr.Bytes()))
		}
		sys.keys[k.Name] = strings.TrimSpace(string(out))
	}

	defer func() {
		if err != nil {
			sys.stop()
		}
	}()
	sys.catalog, err = startServer("catalog", filepath.Join(dir, "catalog.log"), cpus, catalogBin,
		"-listen", catalogListen, "-admin", catalogAdmin, "-log-level", "info", "-log-format", "json") // a line per call, as deployed
	if err != nil {
		return sys, err
	}
	if err := waitReady(ctx, sys.catalogAdmin+"/readyz", 30*time.Second, sys.catalog); err != nil {
		return sys, err
	}
	sys.gateway, err = startServer("gateway", filepath.Join(dir, "gateway.log"), cpus, gatewayBin, "-config", cfgPath)
	if err != nil {
		return sys, err
	}
	if err := waitReady(ctx, sys.gatewayAdmin+"/readyz", 30*time.Second, sys.catalog, sys.gateway); err != nil {
		return sys, err
	}
	return sys, nil
}

// stop ends the gateway, then the catalog.
func (s *system) stop() {
	if s.gateway != nil {
		s.gateway.stop(15 * time.Second)
	}
	if s.catalog != nil {
		s.catalog.stop(15 * time.Second)
	}
}
