package systemtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/grpcapi"
	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/httpapi"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/respcache"
	"github.com/exercisedb/exercisedb/gateway/usage"
	"github.com/exercisedb/exercisedb/internal/testlog"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// The test keys, by id. Each is subscribed as testKeys says.
var testKeys = map[string]struct {
	key      string
	products string // YAML flow map
	disabled bool
}{
	"key_basic":    {"exdb_basic_test_key", "{exercisedb: Basic}", false},
	"key_pro":      {"exdb_pro_test_key", "{exercisedb: Pro}", false},
	"key_ultra":    {"exdb_ultra_test_key", "{exercisedb: Ultra}", false},
	"key_mega":     {"exdb_mega_test_key", "{exercisedb: Mega, exercisedb-video: Mega}", false},
	"key_disabled": {"exdb_disabled_test_key", "{exercisedb: Mega}", true},
	"key_video":    {"exdb_video_test_key", "{exercisedb-video: Mega}", false},
	"key_noplan":   {"exdb_noplan_test_key", "{exercisedb: Gold}", false},
	"key_capped":   {"exdb_capped_test_key", "{exercisedb-video: Pro}", false},
}

// clock is the fixed instant of the limiters, so headers are reproducible.
var clock = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// system is the catalog and the gateway in one process.
type system struct {
	reg     *prometheus.Registry // the gateway's metrics
	catReg  *prometheus.Registry // the catalog's metrics
	svc     *grpcapi.Service
	cache   *respcache.Cache
	handler http.Handler
	gateway *httptest.Server
	catalog *grpc.Server
	log     *testlog.Buffer
}

// options adjust a system before it starts.
type options struct {
	catalogDown bool     // the gateway's catalog connection leads nowhere
	nilCatalog  bool     // no catalog client at all: every catalog call panics
	cache       bool     // a response cache that follows the catalogue version
	tracing     bool     // OpenTelemetry on both sides (global provider)
	embedded    bool     // the embedded catalogue instead of testdata/catalogue.json
	cors        []string // allowed CORS origins
	compression bool     // gzip for clients that accept it
	noDocsURL   bool     // docs_url unset: links from the request's host
	// media makes the products serve the gateway's own media
	// (testdata/gateway-media.yaml) instead of image_url templates.
	media bool
	// reword gives every catalog error other words (see rewording).
	reword bool
}

// start runs the catalog (testdata/catalogue.json) over bufconn and the
// gateway (testdata/gateway.yaml) through httptest.
func start(t testing.TB, opts options) *system {
	t.Helper()
	data, err := os.ReadFile("testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	if opts.embedded {
		data = dataset.Default()
	}
	cat, err := exercise.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	ln := bufconn.Listen(1 << 20)
	s := &system{log: &testlog.Buffer{}, svc: &grpcapi.Service{}, reg: prometheus.NewRegistry(), catReg: prometheus.NewRegistry()}
	if opts.embedded {
		// The embedded catalogue ships with its changelog, as cmd/catalog serves it.
		if s.svc.Changelog, err = changelog.Decode(bytes.NewReader(dataset.Changelog())); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.NewJSONHandler(s.log, nil))
	svc := s.svc
	svc.Swap(cat)
	var serverOpts []grpc.ServerOption
	clientOpts := []grpc.DialOption{grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) })}
	streams := 4 // the gateway's default: calls travel over Exchange
	if opts.tracing {
		streams = 0 // as cmd/gateway does: one RPC, so one span, per call
		serverOpts = append(serverOpts, grpc.StatsHandler(otelgrpc.NewServerHandler()))
		clientOpts = append(clientOpts, grpc.WithStatsHandler(otelgrpc.NewClientHandler()))
	}
	if opts.reword {
		serverOpts = append(serverOpts, rewording()...)
	}
	srv, health := grpcapi.NewServer(svc, logging.NewLines(log, nil, ""), s.catReg, serverOpts...)
	grpcapi.SetServing(health, true)
	go srv.Serve(ln)
	s.catalog = srv
	t.Cleanup(srv.Stop)
	if opts.catalogDown {
		srv.Stop()
	}

	client, err := catalogclient.New("passthrough:///bufnet", 2*time.Second, streams, clientOpts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	if err := client.Instrument(log, s.reg); err != nil {
		t.Fatal(err)
	}
	var catalogClient = client
	if opts.nilCatalog {
		catalogClient = nil
	}

	cfgFile := "testdata/gateway.yaml"
	if opts.media {
		cfgFile = "testdata/gateway-media.yaml"
	}
	cfgData, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(cfgData, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	products, err := plan.NewTable(cfg.Products)
	if err != nil {
		t.Fatal(err)
	}
	var keysYAML strings.Builder
	keysYAML.WriteString("keys:\n")
	for id, k := range testKeys {
		fmt.Fprintf(&keysYAML, "  - id: %s\n    name: test\n    hash: %s\n    products: %s\n    disabled: %v\n", id, keys.Hash(k.key), k.products, k.disabled)
	}
	set, err := keys.Parse([]byte(keysYAML.String()))
	if err != nil {
		t.Fatal(err)
	}
	if opts.cache {
		if s.cache, err = respcache.New(100, 8<<20); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { client.Watch(ctx, s.cache.SetVersion); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	if opts.noDocsURL {
		cfg.DocsURL = ""
	}
	now := func() time.Time { return clock }
	h, err := httpapi.New(httpapi.Deps{
		Products:    products,
		Keys:        func() *keys.Set { return set },
		Limits:      limit.NewMemory(now),
		Failures:    limit.NewFailures(limit.Rate{Requests: 3, Per: time.Minute, Burst: 3}, now),
		Catalog:     catalogClient,
		DocsURL:     cfg.DocsURL,
		Log:         log,
		Metrics:     s.reg,
		Now:         now,
		Cache:       s.cache,
		Tracing:     opts.tracing,
		CORSOrigins: opts.cors,
		Compression: opts.compression,
		Usage:       usage.New(usage.Options{Now: now}),
		Media:       httpapi.MediaDeps{Signer: medialink.NewSigner([]byte(testMediaSecret), "http://media.test")},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.handler = h
	s.gateway = httptest.NewServer(h)
	t.Cleanup(s.gateway.Close)
	return s
}

// testMediaSecret signs the system's media URLs.
const testMediaSecret = "system test media secret"

// request is one HTTP request to the gateway.
type request struct {
	method  string // GET if empty
	path    string
	host    string // X-Gateway-Host; api.example.test if empty, "-" for none
	keyID   string // a testKeys id, a literal key if not one, "" for none
	headers map[string]string
	again   map[string]string // headers sent a second time
}

func (s *system) do(t testing.TB, r request) (*http.Response, []byte) {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	req, err := http.NewRequest(r.method, s.gateway.URL+r.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	switch r.host {
	case "":
		req.Header.Set("X-Gateway-Host", "api.example.test")
	case "-":
	default:
		req.Header.Set("X-Gateway-Host", r.host)
	}
	if k, ok := testKeys[r.keyID]; ok {
		req.Header.Set("X-Gateway-Key", k.key)
	} else if r.keyID != "" {
		req.Header.Set("X-Gateway-Key", r.keyID)
	}
	for k, v := range r.headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	for k, v := range r.again {
		req.Header.Add(k, v)
	}
	resp, err := s.gateway.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}
