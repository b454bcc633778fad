package config

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/pkg/admin"
)

// specExample is the configuration of the contract's minimal format,
// verbatim.
const specExample = `listen: 127.0.0.1:8080
admin_listen: 127.0.0.1:9091        # /healthz /readyz /metrics
docs_url: http://127.0.0.1:8080/docs
catalog:
  target: 127.0.0.1:9090            # any grpc-go target, e.g. dns:///catalog:9090
  timeout: 2s
keys_file: keys.yaml                # relative to this file
rate_limit:
  store: memory                     # memory | redis
  redis_url: redis://127.0.0.1:6379/0
  redis_prefix: "gw:"               # namespace of every key the gateway writes
  on_store_error: allow             # allow (local fallback) | deny
products:
  - name: exercisedb
    hosts: [exercisedb.example.com]
    media:
      kind: gif                     # gif | video
      image_url: https://media.example.com/gif/360p/{mediaKey}.gif
    plans:
      Basic:
        operations: [exercisesByBodyParts, exerciseTypes, bodyParts, muscles, liveness]
        rate: {requests: 5, per: 1s, burst: 5}
        quota: {requests: 1000, per: month}
        record_cap: 100
      Mega:
        operations: ["*"]           # every operation
        # no rate, no quota, no record_cap: unlimited
`

func noEnv(string) string { return "" }

func TestParseSpecExample(t *testing.T) {
	c, err := Parse([]byte(specExample), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Listen: "127.0.0.1:8080", AdminListen: "127.0.0.1:9091", DocsURL: "http://127.0.0.1:8080/docs",
		Catalog:   Catalog{Target: "127.0.0.1:9090", Timeout: 2 * time.Second, Streams: 4, MaxInFlightPerKey: 4},
		KeysFile:  "keys.yaml",
		RateLimit: RateLimit{Store: StoreMemory, RedisURL: "redis://127.0.0.1:6379/0", RedisPrefix: "gw:", OnStoreError: limit.Allow, Replicas: 2},
		Products: []Product{{
			Name: "exercisedb", Hosts: []string{"exercisedb.example.com"},
			Media: Media{Kind: medialink.GIF, ImageURL: "https://media.example.com/gif/360p/{mediaKey}.gif"},
			Plans: map[string]Plan{
				"Basic": {
					Operations: []string{"exercisesByBodyParts", "exerciseTypes", "bodyParts", "muscles", "liveness"},
					Rate:       &Rate{Requests: 5, Per: time.Second, Burst: 5},
					Quota:      &Quota{Requests: 1000, Per: limit.Month},
					RecordCap:  100,
				},
				"Mega": {Operations: []string{"*"}},
			},
		}},
		AuthFailures: Rate{Requests: 10, Per: time.Minute, Burst: 10},
		FreeLimits: FreeLimits{
			PerKey:     Rate{Requests: 5, Per: time.Second, Burst: 10},
			PerAddress: Rate{Requests: 100, Per: time.Second, Burst: 200},
		},
		ShutdownTimeout: 10 * time.Second,
		Log:             Log{Format: "json", Level: "info"},
		ResponseCache:   ResponseCache{Enabled: true, MaxEntries: 2048, MaxBytes: 16 << 20},
		Media:           MediaServing{Timeout: 30 * time.Second, Cache: ByteCache{MaxEntries: 4096, MaxBytes: 32 << 20}},
		Compression:     Compression{Enabled: true},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Bad values of the settings that parse themselves are all reported, each
// with its line, as the decoder reports its own errors.
func TestBadValuesTogether(t *testing.T) {
	in := strings.NewReplacer("kind: gif", "kind: png", "per: month", "per: week").Replace(specExample)
	_, err := Parse([]byte(in), noEnv)
	want := "line 17: media.kind \"png\": want gif or video\n  line 23: quota.per \"week\": want day or month"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		old, new string // replace old by new in the SPEC example
		want     string
	}{
		{"unknown top-level key", "listen:", "listn:", `line 1: unknown key "listn"`},
		{"unknown nested key", "  timeout: 2s", "  timeout: 2s\n  retries: 3", `line 7: unknown key "retries"`},
		{"unknown plan key", "        record_cap: 100", "        record_cap: 100\n        recordcap: 1", `unknown key "recordcap"`},
		{"bad duration", "timeout: 2s", "timeout: soon", `line 6: "soon" is not a duration (such as 2s or 500ms)`},
		{"duration without a unit", "timeout: 2s", "timeout: 2", `line 6: "2" is not a duration (such as 2s or 500ms)`},
		{"number as text", "record_cap: 100", "record_cap: lots", `"lots" is not a whole number`},
		{"list as a word", "hosts: [exercisedb.example.com]", "hosts: exercisedb.example.com", `line 15: "exercis..." is not a list`},
		{"bad store", "store: memory", "store: etcd", `line 9: rate_limit.store "etcd": want memory or redis`},
		{"bad failure mode", "on_store_error: allow", "on_store_error: maybe", `line 12: rate_limit.on_store_error "maybe": want allow or deny`},
		{"bad media kind", "kind: gif", "kind: png", `line 17: media.kind "png": want gif or video`},
		{"template without key", "{mediaKey}.gif", "x.gif", `must contain {mediaKey}`},
		{"bad quota period", "per: month", "per: week", `line 23: quota.per "week": want day or month`},
		{"no media kind", "      kind: gif                     # gif | video\n", "", `products[0] (exercisedb): media.kind: want gif or video`},
		{"quota without period", "quota: {requests: 1000, per: month}", "quota: {requests: 1000}", `plans.Basic: quota.per: want day or month`},
		{"bad media height", "record_cap: 100", "record_cap: 100\n        max_media_height: 480", `max_media_height 480: want 180, 360 or 720`},
		{"zero rate", "requests: 5,", "requests: 0,", `rate: requests: want at least 1`},
		{"negative cap", "record_cap: 100", "record_cap: -1", `record_cap: must not be negative`},
		{"no hosts", "hosts: [exercisedb.example.com]", "hosts: []", `hosts: none`},
		{"negative streams", "  timeout: 2s", "  timeout: 2s\n  streams: -1", `catalog.streams: want 0 (one RPC per call) to 64, got -1`},
		{"bad docs url", "docs_url: http://127.0.0.1:8080/docs", "docs_url: /docs", `docs_url "/docs"`},
		{"listen without a port", "listen: 127.0.0.1:8080", "listen: 127.0.0.1", `listen "127.0.0.1": want host:port`},
		{"listen with an empty port", "listen: 127.0.0.1:8080", `listen: "127.0.0.1:"`, `listen "127.0.0.1:": want a port`},
		{"admin_listen with a bad port", "admin_listen: 127.0.0.1:9091", "admin_listen: 127.0.0.1:99999", `admin_listen "127.0.0.1:99999": port "99999"`},
		{"zero cache bytes", "listen:", "response_cache: {max_bytes: 0}\nlisten:", `response_cache.max_bytes: want at least 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(specExample, tt.old, tt.new, 1)
			if in == specExample {
				t.Fatalf("example does not contain %q", tt.old)
			}
			_, err := Parse([]byte(in), noEnv)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestEnvironmentOverrides(t *testing.T) {
	envTokenHash, fileTokenHash := admin.HashToken("from the environment"), admin.HashToken("from the file")
	env := map[string]string{
		"GATEWAY_LISTEN": "0.0.0.0:80", "GATEWAY_ADMIN_LISTEN": "0.0.0.0:81", "GATEWAY_CATALOG_TARGET": "dns:///catalog:9090",
		"GATEWAY_REDIS_URL": "redis://:secret@redis:6379/1", "GATEWAY_KEYS_FILE": "/etc/gw/keys.yaml", "GATEWAY_DOCS_URL": "https://docs.example.com/",
		"GATEWAY_ADMIN_TOKEN_HASH": envTokenHash,
	}
	// The file's admin.token_hash is overridden, not only filled in.
	in := specExample + "admin:\n  token_hash: " + fileTokenHash + "\n"
	c, err := Parse([]byte(in), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	got := []string{c.Listen, c.AdminListen, c.Catalog.Target, c.RateLimit.RedisURL, c.KeysFile, c.DocsURL, c.Admin.TokenHash}
	want := []string{"0.0.0.0:80", "0.0.0.0:81", "dns:///catalog:9090", "redis://:secret@redis:6379/1", "/etc/gw/keys.yaml", "https://docs.example.com", envTokenHash}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r := c.Redacted(); strings.Contains(r.RateLimit.RedisURL, "secret") || c.RateLimit.RedisURL != env["GATEWAY_REDIS_URL"] {
		t.Errorf("Redacted = %q; original %q", r.RateLimit.RedisURL, c.RateLimit.RedisURL)
	}
}

func TestLoadResolvesKeysFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(path, []byte(specExample), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.KeysFile != filepath.Join(dir, "keys.yaml") {
		t.Errorf("KeysFile = %q, want it next to the configuration", c.KeysFile)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), noEnv); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

func TestEmptyFileNeedsProducts(t *testing.T) {
	if _, err := Parse(nil, noEnv); err == nil || !strings.Contains(err.Error(), "products: none configured") {
		t.Errorf("err = %v", err)
	}
}

// TestShippedConfigurations loads every configuration the repository
// ships, so that none of them rots.
func TestShippedConfigurations(t *testing.T) {
	for _, path := range []string{"../../dev/gateway.yaml", "../../deploy/compose/gateway.yaml"} {
		if _, err := Load(path, noEnv); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestLogValue(t *testing.T) {
	c, err := Parse([]byte(`
rate_limit: {store: redis, redis_url: "redis://:hunter2@redis:6379/0"}
products:
  - name: p
    hosts: [h]
    media: {kind: gif, image_url: "https://m/{mediaKey}"}
    plans: {Pro: {operations: ["*"], rate: {requests: 5, per: 1s, burst: 5}}}
`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	slog.New(slog.NewJSONHandler(&b, nil)).Info("starting", "config", c)
	out := b.String()
	for _, want := range []string{`"timeout":"2s"`, `"per":"1s"`, `"requests":5`, `"listen":"127.0.0.1:8080"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log line lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "0xc") {
		t.Errorf("log line shows a secret or a pointer:\n%s", out)
	}
}

// TestEnvironmentErrors: a bad value from the environment is blamed on the
// variable, a bad value from the file on the file.
func TestEnvironmentErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(path, []byte("log: {level: loud}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GATEWAY_LOG_FORMAT": "xml", "GATEWAY_REDIS_URL": "http://nope", "GATEWAY_LISTEN": "nonsense"}
	_, err := Load(path, func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"environment GATEWAY_LOG_FORMAT: log.format \"xml\"",
		"environment GATEWAY_LISTEN: listen \"nonsense\": want host:port",
		path + ": log.level \"loud\"",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), path+": log.format") {
		t.Errorf("the environment's error is blamed on the file:\n%v", err)
	}
}
