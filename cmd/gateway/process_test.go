package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/internal/testbin"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// Helpers of the tests that run the real gateway and catalog binaries.

// pollTimeout bounds every wait for something to happen; it is never a
// threshold that an assertion measures.
const pollTimeout = testnet.PollTimeout

// exitTimeout bounds the wait for a gateway to exit after SIGTERM: beyond
// testConfig's shutdown_timeout.
const exitTimeout = 3 * pollTimeout

// gatewayBin and catalogBin are the binaries under test, built once per
// test binary.
func gatewayBin(t testing.TB) string { return testbin.Build(t, ".") }
func catalogBin(t testing.TB) string { return testbin.Build(t, "../catalog") }

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

// catalog is a running catalog binary.
type catalog struct {
	*testbin.Process
	grpc string
}

// startCatalogAt runs the catalog with its gRPC listener on addr and waits
// until its catalogue is loaded. An error means the process exited or did
// not start, for example because addr is taken.
func startCatalogAt(t *testing.T, addr string) (*catalog, error) {
	t.Helper()
	p := testbin.Start(t, catalogBin(t), "-listen", addr, "-admin", "127.0.0.1:0")
	var line struct{ GRPC string }
	if err := p.AwaitLog("catalog listening", &line); err != nil {
		return nil, err
	}
	if err := p.AwaitLog("catalogue loaded", nil); err != nil {
		return nil, err
	}
	return &catalog{Process: p, grpc: line.GRPC}, nil
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

// gateway is a running gateway binary.
type gateway struct {
	*testbin.Process
	http, admin string
}

// startGateway runs the gateway with the configuration at config and waits
// until it listens.
func startGateway(t *testing.T, config string) *gateway {
	t.Helper()
	p := testbin.Start(t, gatewayBin(t), "-config", config)
	var line struct{ HTTP, Admin string }
	if err := p.AwaitLog("gateway listening", &line); err != nil {
		t.Fatalf("gateway: %v", err)
	}
	return &gateway{Process: p, http: line.HTTP, admin: line.Admin}
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

// runGateway runs the gateway binary with args to its end.
func runGateway(t *testing.T, args ...string) testbin.Result {
	t.Helper()
	return testbin.Run(t, gatewayBin(t), args...)
}

// newKey runs "gateway keys create" and returns the key it prints.
func newKey(t *testing.T, config, id string, products ...string) string {
	t.Helper()
	args := []string{"keys", "create", "-config", config, "-name", "test " + id, "-id", id}
	for _, p := range products {
		args = append(args, "-product", p)
	}
	r := runGateway(t, args...)
	if r.Code != 0 {
		t.Fatalf("keys create: exit %d: %s", r.Code, r.Stderr)
	}
	return strings.TrimSpace(r.Stdout)
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
