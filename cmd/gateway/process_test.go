package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// Helpers of the tests that run the real gateway and catalog binaries.

// pollTimeout bounds every wait for something to happen: generous, since a
// loaded two-core machine running -race may be slow, and it is never a
// threshold that an assertion measures.
const pollTimeout = 30 * time.Second

// pollStep is the pause between two attempts of a poll.
const pollStep = 50 * time.Millisecond

// Hosts of the two products of testConfig.
const (
	gifHost   = "exercisedb.example.com"
	videoHost = "exercisedb-video.example.com"
)

// Media templates of the two products of testConfig.
const (
	gifPrefix, gifSuffix     = "https://media.example.com/gif/360p/", ".gif"
	videoPrefix, videoSuffix = "https://media.example.com/video/360p/", ".mp4"
)

// eventually calls cond until it reports true, and fails the test if it has
// not within pollTimeout. cond also returns a description of what it saw,
// for the failure message.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last saw: %s", what, pollTimeout, saw)
		}
		time.Sleep(pollStep)
	}
}

// process is a running binary whose stderr (JSON log lines) is collected.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has exited
	exitErr error         // its exit status, set before exited closes

	mu    sync.Mutex
	lines []string
	grew  chan struct{} // closed and replaced when a line is added
}

// start runs bin with args. The process is killed when the test ends, and
// its log is shown if the test failed.
func start(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{}), grew: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			close(p.grew)
			p.grew = make(chan struct{})
			p.mu.Unlock()
		}
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			lines := p.log()
			lines = lines[max(0, len(lines)-40):]
			t.Logf("last lines of %s's log:\n%s", filepath.Base(bin), strings.Join(lines, "\n"))
		}
	})
	return p
}

// log returns the lines logged so far.
func (p *process) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// logEntries decodes the JSON lines logged so far whose msg is msg.
func (p *process) logEntries(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range p.log() {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// awaitLog waits until the process logs a JSON line whose msg is msg and
// decodes that line into v. It fails if the process exits first or the line
// does not come within pollTimeout.
func (p *process) awaitLog(msg string, v any) error {
	timeout := time.After(pollTimeout)
	for seen := 0; ; {
		p.mu.Lock()
		lines, grew := p.lines[seen:], p.grew
		seen = len(p.lines)
		p.mu.Unlock()
		for _, line := range lines {
			var m struct{ Msg string }
			if json.Unmarshal([]byte(line), &m) == nil && m.Msg == msg {
				return json.Unmarshal([]byte(line), v)
			}
		}
		select {
		case <-grew:
		case <-p.exited:
			// Lines logged just before the exit are in by now.
			if e := p.logEntries(msg); len(e) > 0 {
				b, _ := json.Marshal(e[0])
				return json.Unmarshal(b, v)
			}
			tail := p.log()
			tail = tail[max(0, len(tail)-5):]
			return fmt.Errorf("exited (%v) before logging %q:\n%s", p.exitErr, msg, strings.Join(tail, "\n"))
		case <-timeout:
			return fmt.Errorf("did not log %q within %v", msg, pollTimeout)
		}
	}
}

// signal sends sig to the process.
func (p *process) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("sending %v: %v", sig, err)
	}
}

// waitExit waits for the process to exit and fails unless it exits 0.
func (p *process) waitExit(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		if p.exitErr != nil {
			t.Fatalf("exit: %v, want exit status 0", p.exitErr)
		}
	case <-time.After(3 * pollTimeout): // beyond testConfig's shutdown_timeout
		t.Fatalf("still running %v later", 3*pollTimeout)
	}
}

// catalog is a running catalog binary.
type catalog struct {
	*process
	grpc string
}

// startCatalogAt runs the catalog with its gRPC listener on addr and waits
// until its catalogue is loaded. An error means the process exited or did
// not start, for example because addr is taken.
func startCatalogAt(t *testing.T, addr string) (*catalog, error) {
	t.Helper()
	p := start(t, catalogBin, "-listen", addr, "-admin", "127.0.0.1:0")
	var line struct{ GRPC string }
	if err := p.awaitLog("catalog listening", &line); err != nil {
		return nil, err
	}
	if err := p.awaitLog("catalogue loaded", &struct{}{}); err != nil {
		return nil, err
	}
	return &catalog{process: p, grpc: line.GRPC}, nil
}

// startCatalog runs the catalog on a free port.
func startCatalog(t *testing.T) *catalog {
	t.Helper()
	c, err := startCatalogAt(t, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	return c
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// gateway is a running gateway binary.
type gateway struct {
	*process
	http, admin string
}

// startGateway runs the gateway with the configuration at config and waits
// until it listens.
func startGateway(t *testing.T, config string) *gateway {
	t.Helper()
	p := start(t, gatewayBin, "-config", config)
	var line struct{ HTTP, Admin string }
	if err := p.awaitLog("gateway listening", &line); err != nil {
		t.Fatalf("gateway: %v", err)
	}
	return &gateway{process: p, http: line.HTTP, admin: line.Admin}
}

// options of testConfig.
type options struct {
	catalogTimeout string // catalog.timeout; default 2s
}

// testConfig writes a gateway configuration into a new temporary directory
// and returns its path; the keys file is keys.yaml beside it, not created.
// It configures two products, gif and video, with the same plans.
func testConfig(t *testing.T, catalogTarget string, o options) string {
	t.Helper()
	if o.catalogTimeout == "" {
		o.catalogTimeout = "2s"
	}
	config := fmt.Sprintf(`listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
catalog:
  target: %s
  timeout: %s
keys_file: keys.yaml
shutdown_timeout: 60s
# The tests poll with keys that are refused until a reload: do not let
# the failures block the address.
auth_failures: {requests: 100000, per: 1s, burst: 100000}
# They poll /api/v1/usage until its figures settle, as fast as it answers.
free_limits:
  per_key: {requests: 100000, per: 1s, burst: 100000}
log:
  format: json
  level: info
products:
  - name: exercisedb
    hosts: [%s]
    media:
      kind: gif
      image_url: %s{mediaKey}%s
    plans: &plans
      Basic:
        operations: [exercisesByBodyParts, liveness]
        rate: {requests: 5, per: 1s, burst: 5}
        record_cap: 100
      Pro:
        operations: [exercisesByBodyParts, exercises, exercise, exerciseTypes, bodyParts, muscles, equipments, liveness]
        rate: {requests: 50, per: 1s, burst: 100}
        quota: {requests: 20000, per: day}
      Mega:
        operations: ["*"]
  - name: exercisedb-video
    hosts: [%s]
    media:
      kind: video
      image_url: %s{mediaKey}%s
    plans: *plans
`, catalogTarget, o.catalogTimeout, gifHost, gifPrefix, gifSuffix, videoHost, videoPrefix, videoSuffix)
	path := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// keysPath is the keys file of the configuration at config.
func keysPath(config string) string { return filepath.Join(filepath.Dir(config), "keys.yaml") }

// result is the outcome of running a command to its end.
type result struct {
	code           int
	stdout, stderr string
}

// runGateway runs the gateway binary with args to its end.
func runGateway(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(gatewayBin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * pollTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("gateway %s: still running %v later", strings.Join(args, " "), 2*pollTimeout)
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

// newKey runs "gateway keys create" and returns the key it prints.
func newKey(t *testing.T, config, id string, products ...string) string {
	t.Helper()
	args := []string{"keys", "create", "-config", config, "-name", "test " + id, "-id", id}
	for _, p := range products {
		args = append(args, "-product", p)
	}
	r := runGateway(t, args...)
	if r.code != 0 {
		t.Fatalf("keys create: exit %d: %s", r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// keyEntry is an entry of the keys file.
type keyEntry struct {
	ID       string            `yaml:"id"`
	Name     string            `yaml:"name,omitempty"`
	Hash     string            `yaml:"hash"`
	Products map[string]string `yaml:"products"`
	Disabled bool              `yaml:"disabled"`
}

type keysFile struct {
	Keys []keyEntry `yaml:"keys"`
}

func readKeysFile(t *testing.T, path string) keysFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f keysFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// replaceFile replaces path with data as editors and deploy tools do:
// write a temporary file beside it, then rename it over path.
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".new")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// newClient returns a client with keep-alive connections, enough idle
// connections for every concurrent caller, and a generous timeout.
func newClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: false, MaxIdleConns: 64, MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: pollTimeout}
}

// response is an HTTP response read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) String() string {
	return fmt.Sprintf("%d %s", r.status, strings.TrimSpace(string(r.body)))
}

// apiRequest builds a public API request with the key and product host.
func apiRequest(t *testing.T, g *gateway, path, key, host string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+g.http+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Gateway-Key", key)
	req.Header.Set("X-Gateway-Host", host)
	return req
}

// do sends req and reads the whole response.
func do(c *http.Client, req *http.Request) (response, error) {
	resp, err := c.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: body}, err
}

// api calls the public API and fails the test on a transport error.
func api(t *testing.T, c *http.Client, g *gateway, path, key, host string) response {
	t.Helper()
	r, err := do(c, apiRequest(t, g, path, key, host))
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return r
}

// statusOf calls the public API and returns the status, for polls; a
// transport error is status 0.
func statusOf(t *testing.T, c *http.Client, g *gateway, path, key, host string) (int, string) {
	t.Helper()
	r, err := do(c, apiRequest(t, g, path, key, host))
	if err != nil {
		return 0, err.Error()
	}
	return r.status, r.String()
}

// adminGet calls the admin listener; a transport error is status 0.
func adminGet(c *http.Client, g *gateway, path string) (int, string) {
	r, err := do(c, mustRequest("http://"+g.admin+path))
	if err != nil {
		return 0, err.Error()
	}
	return r.status, string(r.body)
}

func mustRequest(url string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		panic(err)
	}
	// The token of the tests that configure admin.token_hash (withKeyService);
	// without a token hash, the admin routes ignore it.
	req.Header.Set("Authorization", "Bearer "+adminToken)
	return req
}

// counter returns the value of the metric sample named name (with its
// labels, as exposed), 0 when absent.
func counter(t *testing.T, c *http.Client, g *gateway, name string) float64 {
	t.Helper()
	code, body := adminGet(c, g, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("metric %s: %v", name, err)
	}
	return v
}

// refused reports whether err is a connection refused by the peer: nothing
// listens at the address.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// callGate is a TCP proxy between the gateway and the catalog that can hold
// the next gRPC call: it parses the HTTP/2 frames the gateway sends, and
// while a hold is armed, the first HEADERS frame (the start of a call) and
// everything after it wait until release. It tells the test, without
// timing, that a request is inside the gateway's catalog call.
type callGate struct {
	addr string

	mu      sync.Mutex
	armed   bool
	held    chan struct{} // closed when a call is held
	release chan struct{} // closed to let it through
}

func newCallGate(t *testing.T, target string) *callGate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &callGate{addr: ln.Addr().String()}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			track(in)
			track(out)
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(in, out); in.Close() }()
			go func() { defer wg.Done(); g.forward(out, in); out.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		g.mu.Lock()
		if g.armed {
			close(g.release)
			g.armed = false
		}
		g.mu.Unlock()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return g
}

// hold arms the gate; the returned channel is closed when a call is held.
func (g *callGate) hold() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.held, g.release = true, make(chan struct{}), make(chan struct{})
	return g.held
}

// open lets the held call, and every later one, through.
func (g *callGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.armed {
		g.armed = false
		close(g.release)
	}
}

// forward copies the client's HTTP/2 connection preface and frames from src
// to dst, holding at a HEADERS frame while the gate is armed.
func (g *callGate) forward(dst io.Writer, src io.Reader) {
	const frameHeaders = 0x1
	preface := make([]byte, len("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
	if _, err := io.ReadFull(src, preface); err != nil {
		return
	}
	if _, err := dst.Write(preface); err != nil {
		return
	}
	header := make([]byte, 9)
	for {
		if _, err := io.ReadFull(src, header); err != nil {
			return
		}
		payload := make([]byte, int(header[0])<<16|int(header[1])<<8|int(header[2]))
		if _, err := io.ReadFull(src, payload); err != nil {
			return
		}
		if header[3] == frameHeaders {
			g.mu.Lock()
			armed, held, release := g.armed, g.held, g.release
			if armed {
				select {
				case <-held:
				default:
					close(held)
				}
			}
			g.mu.Unlock()
			if armed {
				<-release
			}
		}
		if _, err := dst.Write(append(header, payload...)); err != nil {
			return
		}
	}
}
