// Package config reads the gateway's YAML configuration: the format of
// SPEC.md, strictly (an unknown key is an error naming it and its line),
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

	// Additions to SPEC.md's format.

	// AuthFailures limits failed authentications per client address.
	AuthFailures Rate `yaml:"auth_failures"`
	// ShutdownTimeout bounds how long requests in flight may run at shutdown.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	Log             Log           `yaml:"log"`
	// TrustedProxies lists the addresses (CIDRs) whose X-Forwarded-For is
	// believed when finding a client's address; empty trusts none.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// ResponseCache keeps rendered responses of the current catalogue
	// version.
	ResponseCache ResponseCache `yaml:"response_cache"`
}

// ResponseCache configures the cache of rendered responses.
type ResponseCache struct {
	Enabled    bool `yaml:"enabled"`
	MaxEntries int  `yaml:"max_entries"`
}

// Catalog says how to reach the catalog service.
type Catalog struct {
	Target  string        `yaml:"target"` // any grpc-go target, e.g. dns:///catalog:9090
	Timeout time.Duration `yaml:"timeout"`
	// Streams is an addition to SPEC.md's format: how many long-lived
	// Exchange streams carry listings and single exercises, many calls to
	// a message; 0 makes each call an RPC of its own. Tracing, when on,
	// makes every call its own RPC, so that each has its span.
	Streams int `yaml:"streams"`
}

// RateLimit selects where limits are counted.
type RateLimit struct {
	Store        string `yaml:"store"` // memory | redis
	RedisURL     string `yaml:"redis_url"`
	RedisPrefix  string `yaml:"redis_prefix"`
	OnStoreError string `yaml:"on_store_error"` // allow | deny
	// Replicas is how many gateways share the store: while it is down,
	// with on_store_error allow, each one admits 1/Replicas of a plan.
	Replicas int `yaml:"replicas"`
}

// Product is one product variant sold through the gateway.
type Product struct {
	Name  string          `yaml:"name"`
	Hosts []string        `yaml:"hosts"`
	Media Media           `yaml:"media"`
	Plans map[string]Plan `yaml:"plans"`
}

// Media says how the product renders image URLs.
type Media struct {
	Kind     string `yaml:"kind"`      // gif | video
	ImageURL string `yaml:"image_url"` // template with {mediaKey}
}

// Plan is a subscription plan of a product.
type Plan struct {
	Operations []string `yaml:"operations"`
	Rate       *Rate    `yaml:"rate"`
	Quota      *Quota   `yaml:"quota"`
	RecordCap  int      `yaml:"record_cap"`
}

// Rate is requests per interval with a burst.
type Rate struct {
	Requests int           `yaml:"requests"`
	Per      time.Duration `yaml:"per"`
	Burst    int           `yaml:"burst"`
}

// Quota is requests per calendar day or month.
type Quota struct {
	Requests int    `yaml:"requests"`
	Per      string `yaml:"per"` // day | month
}

// Log configures the logger.
type Log struct {
	Format string `yaml:"format"` // json | text
	Level  string `yaml:"level"`  // debug | info | warn | error
}

// Environment variables that override the file.
var overrides = []struct {
	name  string
	field func(*Config) *string
}{
	{"GATEWAY_LISTEN", func(c *Config) *string { return &c.Listen }},
	{"GATEWAY_ADMIN_LISTEN", func(c *Config) *string { return &c.AdminListen }},
	{"GATEWAY_DOCS_URL", func(c *Config) *string { return &c.DocsURL }},
	{"GATEWAY_CATALOG_TARGET", func(c *Config) *string { return &c.Catalog.Target }},
	{"GATEWAY_KEYS_FILE", func(c *Config) *string { return &c.KeysFile }},
	{"GATEWAY_REDIS_URL", func(c *Config) *string { return &c.RateLimit.RedisURL }},
	{"GATEWAY_LOG_FORMAT", func(c *Config) *string { return &c.Log.Format }},
	{"GATEWAY_LOG_LEVEL", func(c *Config) *string { return &c.Log.Level }},
}

// Load reads the file at path, applies defaults and the environment (read
// through getenv), and validates the result. A relative keys_file is made
// relative to the file's directory.
func Load(path string, getenv func(string) string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(data, getenv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !filepath.IsAbs(c.KeysFile) {
		c.KeysFile = filepath.Join(filepath.Dir(path), c.KeysFile)
	}
	return c, nil
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
	for _, o := range overrides {
		if v := getenv(o.name); v != "" {
			*o.field(c) = v
		}
	}
	c.DocsURL = strings.TrimSuffix(c.DocsURL, "/")
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// defaults is the one place where defaults live.
func defaults() *Config {
	return &Config{
		Listen:          "127.0.0.1:8080",
		AdminListen:     "127.0.0.1:9091",
		Catalog:         Catalog{Target: "127.0.0.1:9090", Timeout: 2 * time.Second, Streams: 4},
		KeysFile:        "keys.yaml",
		RateLimit:       RateLimit{Store: "memory", RedisURL: "redis://127.0.0.1:6379/0", RedisPrefix: "gw:", OnStoreError: "allow", Replicas: 2},
		AuthFailures:    Rate{Requests: 10, Per: time.Minute, Burst: 10},
		ShutdownTimeout: 10 * time.Second,
		Log:             Log{Format: "json", Level: "info"},
		ResponseCache:   ResponseCache{Enabled: true, MaxEntries: 2048},
	}
}

var unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)

// cleanYAMLError rewrites the decoder's Go type names into words a user of
// the file understands.
func cleanYAMLError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = unknownField.ReplaceAllString(msg, `unknown key "$1"`)
	return errors.New(msg)
}

// Redacted returns a copy safe to log: the password of the Redis URL is
// masked.
func (c *Config) Redacted() Config {
	out := *c
	if u, err := url.Parse(c.RateLimit.RedisURL); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			out.RateLimit.RedisURL = u.String()
		}
	}
	return out
}
