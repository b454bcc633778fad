package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/pkg/admin"
	"github.com/exercisedb/exercisedb/pkg/english"
)

func (c *Config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for name, v := range map[string]string{"listen": c.Listen, "admin_listen": c.AdminListen, "catalog.target": c.Catalog.Target, "keys_file": c.KeysFile} {
		if v == "" {
			bad("%s: empty", name)
		}
	}
	for _, a := range [...]struct{ name, v string }{{"listen", c.Listen}, {"admin_listen", c.AdminListen}} {
		if err := validAddress(a.v); a.v != "" && err != nil {
			bad("%s %q: %v", a.name, a.v, err)
		}
	}
	if u, err := url.Parse(c.DocsURL); c.DocsURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		bad("docs_url %q: want an absolute http(s) URL", c.DocsURL)
	}
	if c.Media.PublicURL != "" && !absoluteHTTP(c.Media.PublicURL) {
		bad("media.public_url %q: want an absolute http(s) URL such as https://api.example.com", c.Media.PublicURL)
	}
	if s := c.Media.SigningSecret; s != "" && len(s) < 16 {
		bad("media.signing_secret: want at least 16 characters, got %d", len(s))
	}
	if c.Media.Timeout <= 0 {
		bad("media.timeout: want a positive duration such as 30s")
	}
	if c.Media.Cache.MaxEntries < 1 || c.Media.Cache.MaxBytes < 1 {
		bad("media.cache: want positive max_entries and max_bytes")
	}
	if c.Catalog.Timeout <= 0 {
		bad("catalog.timeout: want a positive duration such as 2s")
	}
	if c.Catalog.Streams < 0 || c.Catalog.Streams > 64 {
		bad("catalog.streams: want 0 (one RPC per call) to 64, got %d", c.Catalog.Streams)
	}
	if c.ShutdownTimeout <= 0 {
		bad("shutdown_timeout: want a positive duration such as 10s")
	}
	if c.RateLimit.Store == StoreRedis {
		if u, err := url.Parse(c.RateLimit.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
			bad("rate_limit.redis_url: want redis://host:port/db or rediss://...")
		} else if q := u.Query(); q.Has("password") || q.Has("username") {
			bad("rate_limit.redis_url: put the user and password in the URL's user information (redis://user:password@host:port/db, or redis://:password@... without a user), not in parameters")
		}
	}
	if c.RateLimit.Replicas < 1 {
		bad("rate_limit.replicas: want at least 1")
	}
	if err := c.AuthFailures.validate(); err != nil {
		bad("auth_failures: %v", err)
	}
	if err := c.FreeLimits.PerKey.validate(); err != nil {
		bad("free_limits.per_key: %v", err)
	}
	if err := c.FreeLimits.PerAddress.validate(); err != nil {
		bad("free_limits.per_address: %v", err)
	}
	if c.Catalog.MaxInFlightPerKey < 0 {
		bad("catalog.max_in_flight_per_key: must not be negative")
	}
	if c.Log.Format != "json" && c.Log.Format != "text" {
		bad("log.format %q: want json or text", c.Log.Format)
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, strings.ToLower(c.Log.Level)) {
		bad("log.level %q: want debug, info, warn or error", c.Log.Level)
	}
	if c.ResponseCache.Enabled && c.ResponseCache.MaxEntries < 1 {
		bad("response_cache.max_entries: want at least 1, or enabled: false")
	}
	if c.ResponseCache.Enabled && c.ResponseCache.MaxBytes < 1 {
		bad("response_cache.max_bytes: want at least 1, or enabled: false")
	}
	if c.TLS != nil && (c.TLS.CertFile == "" || c.TLS.KeyFile == "") {
		bad("tls: want both cert_file and key_file")
	}
	if t := c.Catalog.TLS; t != nil && (t.CertFile == "") != (t.KeyFile == "") {
		bad("catalog.tls: want both cert_file and key_file, or neither")
	}
	if c.TLS != nil && c.H2C {
		bad("h2c: only without tls (over TLS, HTTP/2 is negotiated anyway)")
	}
	for _, o := range c.CORS.AllowedOrigins {
		if err := validOrigin(o); err != nil {
			bad("cors.allowed_origins: %q: %v", o, err)
		}
	}
	if c.Shutdown.DrainDelay < 0 {
		bad("shutdown.drain_delay: want a duration of 0 or more, such as 5s")
	}
	if h := c.Admin.TokenHash; h != "" {
		if err := admin.CheckTokenHash(h); err != nil {
			bad("admin.token_hash: %v", err)
		}
	}
	if v := c.KeysPostgresURL; v != "" {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			bad("keys_postgres_url: want postgres://[user[:password]@]host[:port]/database[?sslmode=...]")
		}
	}
	if len(c.Products) == 0 {
		bad("products: none configured")
	}
	names, hosts := map[string]bool{}, map[string]string{}
	for i, p := range c.Products {
		where := fmt.Sprintf("products[%d] (%s)", i, p.Name)
		switch {
		case p.Name == "":
			bad("products[%d]: name: empty", i)
		case names[p.Name]:
			bad("%s: name: duplicate", where)
		}
		names[p.Name] = true
		if len(p.Hosts) == 0 {
			bad("%s: hosts: none", where)
		}
		for _, h := range p.Hosts {
			h = strings.ToLower(h)
			if other, dup := hosts[h]; dup {
				bad("%s: host %q is also a host of %s", where, h, other)
			}
			hosts[h] = p.Name
		}
		if p.Media.Kind == "" {
			bad("%s: media.kind: want gif or video", where)
		}
		if p.Media.ImageURL != "" && !strings.Contains(p.Media.ImageURL, "{mediaKey}") {
			bad("%s: media.image_url %q: must contain {mediaKey}", where, p.Media.ImageURL)
		}
		if p.Media.BaseURL != "" && !absoluteHTTP(p.Media.BaseURL) {
			bad("%s: media.base_url %q: want an absolute http(s) URL", where, p.Media.BaseURL)
		}
		if len(p.Plans) == 0 {
			bad("%s: plans: none", where)
		}
		for name, plan := range p.Plans {
			if err := plan.validate(); err != nil {
				bad("%s: plans.%s: %v", where, name, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (p Plan) validate() error {
	var errs []error
	if len(p.Operations) == 0 {
		errs = append(errs, errors.New("operations: none (use [\"*\"] for every operation)"))
	}
	if p.Rate != nil {
		if err := p.Rate.validate(); err != nil {
			errs = append(errs, fmt.Errorf("rate: %w", err))
		}
	}
	if p.Quota != nil {
		if p.Quota.Requests < 1 {
			errs = append(errs, errors.New("quota.requests: want at least 1"))
		}
		if p.Quota.Per == 0 {
			errs = append(errs, errors.New("quota.per: want day or month"))
		}
	}
	if p.RecordCap < 0 {
		errs = append(errs, errors.New("record_cap: must not be negative"))
	}
	if h := p.MaxMediaHeight; h != 0 && !slices.Contains(medialink.Heights, h) {
		heights := make([]string, len(medialink.Heights))
		for i, h := range medialink.Heights {
			heights[i] = strconv.Itoa(h)
		}
		errs = append(errs, fmt.Errorf("max_media_height %d: want %s", h, english.List(heights, "or")))
	}
	return errors.Join(errs...)
}

func (r Rate) validate() error {
	switch {
	case r.Requests < 1:
		return errors.New("requests: want at least 1")
	case r.Per <= 0:
		return errors.New("per: want a positive duration such as 1s")
	case r.Burst < 0:
		return errors.New("burst: must not be negative")
	}
	return nil
}

// validOrigin accepts "*" or scheme://host[:port], with at most one "*" in
// the host, as a browser sends it in Origin (no path, no trailing slash).
func validOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(strings.Replace(o, "*", "wildcard", 1))
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return errors.New("want * or an origin such as https://app.example.com")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("an origin has no path, query or user: scheme://host[:port] only")
	case strings.Count(o, "*") > 1:
		return errors.New("at most one * in an origin")
	}
	return nil
}

// validAddress checks a listen address as net.Listen will read it, so
// that a typo fails at start naming its setting rather than at bind time
// with net's words: host:port, the host optional (every interface), the
// port a number up to 65535 or a service name (0: any free port).
func validAddress(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	switch {
	case err != nil:
		return errors.New("want host:port, such as 127.0.0.1:8080, or :8080 for every interface")
	case port == "":
		return errors.New("want a port after the colon, such as 127.0.0.1:8080")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("port %q: want a number from 0 to 65535", port)
	}
	return nil
}

// SettingName names a setting for an error found after loading (a listen
// address that cannot be bound), with the environment variable that can
// set it, since the value may have come from either.
func SettingName(setting string) string {
	for _, o := range overrides {
		if o.setting == setting {
			return setting + " (environment " + o.name + ")"
		}
	}
	return setting
}

// absoluteHTTP reports whether s is an absolute http or https URL.
func absoluteHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
