// Package config reads the gateway's YAML configuration
// (docs/configuration.md), strictly (an unknown key is an error naming it and its line),
// with defaults in one place and environment overrides for addresses and
// secrets.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
)

// Config is the gateway's configuration.
type Config struct {
	Listen      string `yaml:"listen"`
	AdminListen string `yaml:"admin_listen"`
	// DocsURL is the base of the error envelope's docs links. Empty means
	// the gateway's own /docs at the host the request was sent to.
	DocsURL   string    `yaml:"docs_url"`
	Catalog   Catalog   `yaml:"catalog"`
	KeysFile  string    `yaml:"keys_file"` // relative to the configuration file
	RateLimit RateLimit `yaml:"rate_limit"`
	Products  []Product `yaml:"products"`

	// KeysPostgresURL, when set, keeps the keys in PostgreSQL instead of
	// KeysFile: postgres://user:password@host:port/db?sslmode=...
	KeysPostgresURL string `yaml:"keys_postgres_url"`

	// Settings beyond the contract's minimal format.

	// AuthFailures limits failed authentications per client address.
	AuthFailures Rate `yaml:"auth_failures"`
	// FreeLimits throttle, in each replica's memory, the requests that no
	// plan counts.
	FreeLimits FreeLimits `yaml:"free_limits"`
	// ShutdownTimeout bounds how long requests in flight may run at shutdown.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	Log             Log           `yaml:"log"`
	// TrustedProxies lists the addresses (CIDRs) whose X-Forwarded-For is
	// believed when finding a client's address; empty trusts none.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// ResponseCache keeps rendered responses of the current catalogue
	// version.
	ResponseCache ResponseCache `yaml:"response_cache"`
	// Compression gzips large response bodies for clients that accept it.
	Compression Compression `yaml:"compression"`

	// TLS, when set, makes the public listener speak HTTPS (HTTP/2 and
	// HTTP/1.1); the files are re-read when they change.
	TLS *TLS `yaml:"tls"`
	// H2C serves HTTP/2 without TLS (prior knowledge) beside HTTP/1.1 on a
	// plain listener, for a proxy in front that speaks h2c.
	H2C  bool `yaml:"h2c"`
	CORS CORS `yaml:"cors"`
	// Shutdown.DrainDelay is how long readiness fails before the public
	// listener closes, so that load balancers stop sending first.
	Shutdown Shutdown `yaml:"shutdown"`
	Admin    Admin    `yaml:"admin"`
	// Media configures the media files (demonstrations, posters, muscle
	// maps) that the gateway serves at /media and links from responses.
	Media MediaServing `yaml:"media"`
}

// MediaServing configures the gateway's own media URLs.
type MediaServing struct {
	// PublicURL is this gateway's origin as clients reach it, such as
	// https://api.example.com: media URLs are PublicURL/media/... .
	// Empty: http(s)://listen.
	PublicURL string `yaml:"public_url"`
	// SigningSecret keys the signature that every media URL the gateway
	// issues carries (so that a URL it did not issue, or one altered, is
	// refused). Replicas must share it, and URLs stay valid only as long
	// as it does. Empty: a random secret per process. Environment:
	// GATEWAY_MEDIA_SIGNING_SECRET.
	SigningSecret string `yaml:"signing_secret"`
	// Timeout bounds the catalog call that draws a file not yet cached.
	Timeout time.Duration `yaml:"timeout"`
	// Cache keeps the files served most recently.
	Cache ByteCache `yaml:"cache"`
}

// ByteCache is a cache bounded in entries and in bytes.
type ByteCache struct {
	MaxEntries int   `yaml:"max_entries"`
	MaxBytes   int64 `yaml:"max_bytes"`
}

// ResponseCache configures the cache of rendered responses.
type ResponseCache struct {
	Enabled    bool `yaml:"enabled"`
	MaxEntries int  `yaml:"max_entries"`
	// MaxBytes bounds the memory of the entries: keys, entity tags and
	// bodies in every coding.
	MaxBytes int64 `yaml:"max_bytes"`
}

// Compression configures the content codings of responses.
type Compression struct {
	Enabled bool `yaml:"enabled"`
}

// TLS is a certificate and its key, in PEM files.
type TLS struct {
	CertFile string `yaml:"cert_file"` // relative to the configuration file
	KeyFile  string `yaml:"key_file"`
}

// CORS lists the browser origins allowed to call the API.
type CORS struct {
	// AllowedOrigins are origins such as https://app.example.com, one
	// wildcard in the host (https://*.example.com), or "*" for any.
	AllowedOrigins []string `yaml:"allowed_origins"`
}

// Shutdown configures how a stopping gateway drains.
type Shutdown struct {
	DrainDelay time.Duration `yaml:"drain_delay"`
}

// Admin configures the admin listener.
type Admin struct {
	// TokenHash, "sha256:<hex>", is the hash of the bearer token that
	// /metrics, /debug/pprof/ and the admin API require; empty leaves
	// /metrics open and the admin API off. /healthz and /readyz never
	// need it, so that probes work.
	TokenHash string `yaml:"token_hash"`
	// Pprof serves the Go profiler at /debug/pprof/.
	Pprof bool `yaml:"pprof"`
}

// Catalog says how to reach the catalog service.
type Catalog struct {
	Target  string        `yaml:"target"` // any grpc-go target, e.g. dns:///catalog:9090
	Timeout time.Duration `yaml:"timeout"`
	// Streams is a setting beyond the contract's minimal format: how many long-lived
	// Exchange streams carry listings and single exercises, many calls to
	// a message; 0 makes each call an RPC of its own. Tracing, when on,
	// makes every call its own RPC, so that each has its span.
	Streams int `yaml:"streams"`
	// TLS, when set, makes the connections to the catalog TLS; absent,
	// they are plaintext.
	TLS *CatalogTLS `yaml:"tls"`
	// MaxInFlightPerKey is how many catalog calls one key may have under
	// way at once on this replica; a request past it waits for one to end
	// (within Timeout). 0: no cap.
	MaxInFlightPerKey int `yaml:"max_in_flight_per_key"`
}

// FreeLimits are rates, kept in each replica's memory, for the requests
// that no plan counts: a refusal costs no shared store anything.
type FreeLimits struct {
	// PerKey bounds a key's requests to free operations (/api/v1/usage),
	// per product.
	PerKey Rate `yaml:"per_key"`
	// PerAddress bounds a client address's requests (IPv6 by /64) to the
	// pages and media that need no key: /docs, /openapi.json, /media.
	PerAddress Rate `yaml:"per_address"`
}

// CatalogTLS is TLS to the catalog, mTLS with a client certificate. File
// names are relative to the configuration file; the files are re-read when
// they change, and new connections use what they hold.
type CatalogTLS struct {
	// CAFile holds the CA certificates that sign the catalog's certificate;
	// empty: the system's roots.
	CAFile string `yaml:"ca_file"`
	// CertFile and KeyFile, both or neither, are the client certificate and
	// its key that the gateway presents: the catalog requires one signed by
	// its -tls-client-ca.
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// ServerName is the name the catalog's certificate must carry; empty:
	// the host of catalog.target.
	ServerName string `yaml:"server_name"`
}

// RateLimit selects where limits are counted.
type RateLimit struct {
	Store        StoreKind    `yaml:"store"`
	RedisURL     string       `yaml:"redis_url"`
	RedisPrefix  string       `yaml:"redis_prefix"`
	OnStoreError limit.Policy `yaml:"on_store_error"`
	// Replicas is how many gateways share the store: while it is down,
	// with on_store_error allow, each one admits 1/Replicas of a plan.
	Replicas int `yaml:"replicas"`
}

// StoreKind is where limits are counted: in each replica's memory or in
// Redis, shared.
type StoreKind string

// The stores.
const (
	StoreMemory StoreKind = "memory"
	StoreRedis  StoreKind = "redis"
)

// UnmarshalYAML decodes rate_limit.store; a bad value is reported with its
// line, as the decoder reports its own errors.
func (k *StoreKind) UnmarshalYAML(n *yaml.Node) error {
	switch v := StoreKind(n.Value); v {
	case StoreMemory, StoreRedis:
		*k = v
		return nil
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: rate_limit.store %q: want memory or redis", n.Line, n.Value)}}
}

// Product is one product variant sold through the gateway.
type Product struct {
	Name  string          `yaml:"name"`
	Hosts []string        `yaml:"hosts"`
	Media Media           `yaml:"media"`
	Plans map[string]Plan `yaml:"plans"`
}

// Media says which media the product sells and where they are served.
type Media struct {
	Kind medialink.Kind `yaml:"kind"`
	// ImageURL, a template with {mediaKey}, makes imageUrl point at media
	// hosted elsewhere under the product's own names; include=media is
	// then not offered. Empty: the gateway's media (or BaseURL's).
	ImageURL string `yaml:"image_url"`
	// BaseURL is where a published media set lives (a CDN in front of an
	// object store): media URLs are BaseURL/<key>/<digest>/<file>. Empty:
	// the gateway's own /media, with signed URLs.
	BaseURL string `yaml:"base_url"`
}

// Plan is a subscription plan of a product.
type Plan struct {
	// Operations are the operations the plan may call, as package plan
	// names them (it holds their list, and refuses a name not in it), or
	// "*" for every one.
	Operations []string `yaml:"operations"`
	Rate       *Rate    `yaml:"rate"`
	Quota      *Quota   `yaml:"quota"`
	RecordCap  int      `yaml:"record_cap"`
	// MaxMediaHeight is the tallest demonstration the plan offers: 180,
	// 360 or 720 pixels. 0 means the default, 360.
	MaxMediaHeight int `yaml:"max_media_height"`
}

// Rate is requests per interval with a burst.
type Rate struct {
	Requests int           `yaml:"requests"`
	Per      time.Duration `yaml:"per"`
	Burst    int           `yaml:"burst"`
}

// Quota is requests per calendar day or month.
type Quota struct {
	Requests int          `yaml:"requests"`
	Per      limit.Period `yaml:"per"`
}

// Log configures the logger.
type Log struct {
	Format string `yaml:"format"` // json | text
	Level  string `yaml:"level"`  // debug | info | warn | error
}

// Environment variables that override the file, and the setting each one
// overrides.
var overrides = []struct {
	name, setting string
	field         func(*Config) *string
}{
	{"GATEWAY_LISTEN", "listen", func(c *Config) *string { return &c.Listen }},
	{"GATEWAY_ADMIN_LISTEN", "admin_listen", func(c *Config) *string { return &c.AdminListen }},
	{"GATEWAY_DOCS_URL", "docs_url", func(c *Config) *string { return &c.DocsURL }},
	{"GATEWAY_CATALOG_TARGET", "catalog.target", func(c *Config) *string { return &c.Catalog.Target }},
	{"GATEWAY_KEYS_FILE", "keys_file", func(c *Config) *string { return &c.KeysFile }},
	{"GATEWAY_KEYS_POSTGRES_URL", "keys_postgres_url", func(c *Config) *string { return &c.KeysPostgresURL }},
	{"GATEWAY_REDIS_URL", "rate_limit.redis_url", func(c *Config) *string { return &c.RateLimit.RedisURL }},
	{"GATEWAY_LOG_FORMAT", "log.format", func(c *Config) *string { return &c.Log.Format }},
	{"GATEWAY_LOG_LEVEL", "log.level", func(c *Config) *string { return &c.Log.Level }},
	{"GATEWAY_ADMIN_TOKEN_HASH", "admin.token_hash", func(c *Config) *string { return &c.Admin.TokenHash }},
	{"GATEWAY_MEDIA_PUBLIC_URL", "media.public_url", func(c *Config) *string { return &c.Media.PublicURL }},
	{"GATEWAY_MEDIA_SIGNING_SECRET", "media.signing_secret", func(c *Config) *string { return &c.Media.SigningSecret }},
}

// EnvironmentHelp lists the environment variables that override settings,
// one per line, for the binary's -h: the settings in a column a space
// beyond the longest name.
func EnvironmentHelp() string {
	width := 0
	for _, o := range overrides {
		width = max(width, len(o.name))
	}
	var b strings.Builder
	for _, o := range overrides {
		fmt.Fprintf(&b, "  %-*s %s\n", width, o.name, o.setting)
	}
	return b.String()
}

// Load reads the file at path, applies defaults and the environment (read
// through getenv), and validates the result. Relative file names (keys_file,
// certificates) are made relative to the file's directory.
func Load(path string, getenv func(string) string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(data, getenv)
	if err != nil {
		return nil, blameFile(err, path)
	}
	for _, f := range c.files() {
		if *f != "" && !filepath.IsAbs(*f) {
			*f = filepath.Join(filepath.Dir(path), *f)
		}
	}
	return c, nil
}

// blameFile prefixes with path the errors of err that are not an
// EnvError.
func blameFile(err error, path string) error {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for i, e := range errs {
		var env *EnvError
		if !errors.As(e, &env) {
			errs[i] = fmt.Errorf("%s: %w", path, e)
		}
	}
	return errors.Join(errs...)
}

// files are the settings that name files.
func (c *Config) files() []*string {
	files := []*string{&c.KeysFile}
	if c.TLS != nil {
		files = append(files, &c.TLS.CertFile, &c.TLS.KeyFile)
	}
	if t := c.Catalog.TLS; t != nil {
		files = append(files, &t.CAFile, &t.CertFile, &t.KeyFile)
	}
	return files
}

// Parse decodes a configuration, then applies defaults, the environment
// and validation.
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	c := defaults()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// An empty document is fine: every field has a default.
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, cleanYAMLError(err)
	}
	fromEnv := map[string]string{} // setting → variable that set it
	for _, o := range overrides {
		if v := getenv(o.name); v != "" {
			*o.field(c) = v
			fromEnv[o.setting] = o.name
		}
	}
	c.DocsURL = strings.TrimSuffix(c.DocsURL, "/")
	if err := c.validate(); err != nil {
		return nil, blameEnvironment(err, fromEnv)
	}
	return c, nil
}

// EnvError is a setting's error whose value came from an environment
// variable, so that the message names the variable, not the file.
type EnvError struct {
	Var string
	Err error
}

func (e *EnvError) Error() string { return "environment " + e.Var + ": " + e.Err.Error() }
func (e *EnvError) Unwrap() error { return e.Err }

// blameEnvironment wraps in an EnvError each of validate's errors (they
// start with the setting's name) whose setting came from the environment.
func blameEnvironment(err error, fromEnv map[string]string) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(fromEnv) == 0 {
		return err
	}
	errs := joined.Unwrap()
	for i, e := range errs {
		setting, _, _ := strings.Cut(e.Error(), ":")
		setting, _, _ = strings.Cut(setting, " ")
		if v, ok := fromEnv[setting]; ok {
			errs[i] = &EnvError{Var: v, Err: e}
		}
	}
	return errors.Join(errs...)
}

// defaults is the one place where defaults live.
func defaults() *Config {
	return &Config{
		Listen:       "127.0.0.1:8080",
		AdminListen:  "127.0.0.1:9091",
		Catalog:      Catalog{Target: "127.0.0.1:9090", Timeout: 2 * time.Second, Streams: 4, MaxInFlightPerKey: 4},
		KeysFile:     "keys.yaml",
		RateLimit:    RateLimit{Store: "memory", RedisURL: "redis://127.0.0.1:6379/0", RedisPrefix: "gw:", OnStoreError: limit.Allow, Replicas: 2},
		AuthFailures: Rate{Requests: 10, Per: time.Minute, Burst: 10},
		FreeLimits: FreeLimits{
			PerKey:     Rate{Requests: 5, Per: time.Second, Burst: 10},
			PerAddress: Rate{Requests: 100, Per: time.Second, Burst: 200},
		},
		ShutdownTimeout: 10 * time.Second,
		Log:             Log{Format: "json", Level: "info"},
		ResponseCache:   ResponseCache{Enabled: true, MaxEntries: 2048, MaxBytes: 16 << 20},
		Compression:     Compression{Enabled: true},
		Media: MediaServing{
			Timeout: 30 * time.Second,
			Cache:   ByteCache{MaxEntries: 4096, MaxBytes: 32 << 20},
		},
	}
}

var (
	unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)
	wrongType    = regexp.MustCompile("cannot unmarshal !!\\w+ `(.*?)` into (\\S+)")
)

// cleanYAMLError rewrites the decoder's Go type names into words a user of
// the file understands.
func cleanYAMLError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = unknownField.ReplaceAllString(msg, `unknown key "$1"`)
	msg = wrongType.ReplaceAllStringFunc(msg, func(m string) string {
		sub := wrongType.FindStringSubmatch(m)
		return fmt.Sprintf("%q is not %s", sub[1], yamlKind(sub[2]))
	})
	return errors.New(msg)
}

// yamlKind words what a setting of the Go type typ takes.
func yamlKind(typ string) string {
	typ = strings.TrimPrefix(typ, "*")
	switch {
	case typ == "time.Duration":
		return "a duration (such as 2s or 500ms)"
	case typ == "bool":
		return "true or false"
	case typ == "string":
		return "a string"
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case strings.HasPrefix(typ, "[]"):
		return "a list"
	default: // maps and the configuration's structs
		return "a mapping of keys to values"
	}
}

// Redacted returns a copy safe to log: the passwords of the Redis and
// PostgreSQL URLs, the media signing secret and the admin token's hash
// are masked (a hash lets anyone who reads it try tokens offline).
func (c *Config) Redacted() Config {
	out := *c
	out.RateLimit.RedisURL = maskPassword(c.RateLimit.RedisURL)
	out.KeysPostgresURL = maskPassword(c.KeysPostgresURL)
	if out.Media.SigningSecret != "" {
		out.Media.SigningSecret = "xxxxx"
	}
	if scheme, _, ok := strings.Cut(out.Admin.TokenHash, ":"); ok {
		out.Admin.TokenHash = scheme + ":xxxxx"
	} else if out.Admin.TokenHash != "" {
		out.Admin.TokenHash = "xxxxx"
	}
	return out
}

// maskPassword masks the password of a Redis or PostgreSQL URL, in its
// user information or its password parameter. What does not parse as a
// URL (a key=value DSN, which validate refuses) is masked whole.
func maskPassword(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		if s == "" {
			return ""
		}
		return "xxxxx"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
