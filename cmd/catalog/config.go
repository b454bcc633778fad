package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/exercisedb/exercisedb/pkg/admin"
	"github.com/exercisedb/exercisedb/pkg/buildinfo"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// config is everything the catalog binary can be told. Each flag may also
// be set by an environment variable; a flag given on the command line wins.
type config struct {
	Listen          string        // gRPC address
	Admin           string        // address of /healthz, /readyz, /metrics
	Data            string        // catalogue file; empty means the embedded one
	LogFormat       string        // json or text
	LogLevel        slog.Level    // debug, info, warn or error
	ShutdownTimeout time.Duration // how long calls in flight may take at shutdown
	// TLS of the gRPC listener: a key pair, and a CA whose certificates
	// clients must present (mTLS). All empty: plaintext.
	TLSCert, TLSKey, TLSClientCA string
	Reflection                   bool   // whether gRPC server reflection is offered
	Pprof                        bool   // the profiler on the admin listener
	AdminTokenHash               string // protects /metrics and the profiler
	// MediaCacheBytes bounds the media files kept after drawing them.
	MediaCacheBytes int64
	// SearchCacheBytes bounds the filter results and ranked lists kept.
	SearchCacheBytes int64
	// MediaDir holds media files rendered beforehand, served rather than
	// drawn; empty: every file is drawn.
	MediaDir string
}

// errHelp is returned by parseConfig when it printed the help or the
// version, as asked: the command then exits 0.
var errHelp = errors.New("help printed")

// flagValues are where the flags of newFlagSet land.
type flagValues struct {
	cfg            config
	level, timeout string // parsed after the flags
	mediaCache     string
	searchCache    string
	version        bool
	envErr         error // a boolean variable that is not one
}

// newFlagSet defines every flag of the catalog, each defaulting to its
// environment variable (read through getenv) when that is set and not
// empty, else to the built-in default. docs/catalog.md lists them.
func newFlagSet(getenv func(string) string) (*flag.FlagSet, *flagValues) {
	fs := flag.NewFlagSet("catalog", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; help goes to stdout
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	v := &flagValues{}
	cfg := &v.cfg
	fs.StringVar(&cfg.Listen, "listen", env("CATALOG_LISTEN", "127.0.0.1:9090"), "gRPC listen `address` (env CATALOG_LISTEN)")
	fs.StringVar(&cfg.Admin, "admin", env("CATALOG_ADMIN", "127.0.0.1:9092"), "`address` of /healthz, /readyz and /metrics (env CATALOG_ADMIN)")
	fs.StringVar(&cfg.Data, "data", env("CATALOG_DATA", ""), "catalogue `file` to load instead of the embedded one (env CATALOG_DATA)")
	fs.StringVar(&cfg.LogFormat, "log-format", env("CATALOG_LOG_FORMAT", "json"), "log `format`: json or text (env CATALOG_LOG_FORMAT)")
	fs.StringVar(&v.level, "log-level", env("CATALOG_LOG_LEVEL", "info"), "log `level`: debug, info, warn or error (env CATALOG_LOG_LEVEL)")
	fs.StringVar(&cfg.TLSCert, "tls-cert", env("CATALOG_TLS_CERT", ""), "certificate chain `file` (PEM) of the gRPC listener, with -tls-key; re-read when it changes (env CATALOG_TLS_CERT)")
	fs.StringVar(&cfg.TLSKey, "tls-key", env("CATALOG_TLS_KEY", ""), "private key `file` (PEM) of -tls-cert (env CATALOG_TLS_KEY)")
	fs.StringVar(&cfg.TLSClientCA, "tls-client-ca", env("CATALOG_TLS_CLIENT_CA", ""), "CA `file` (PEM): clients must present a certificate it signed (env CATALOG_TLS_CLIENT_CA)")
	envBool := func(name string, def bool) bool {
		b, err := strconv.ParseBool(env(name, strconv.FormatBool(def)))
		if err != nil {
			v.envErr = fmt.Errorf("environment %s %q: want true or false", name, getenv(name))
			return def
		}
		return b
	}
	fs.BoolVar(&cfg.Reflection, "reflection", envBool("CATALOG_REFLECTION", true), "offer gRPC server reflection (env CATALOG_REFLECTION)")
	fs.StringVar(&v.timeout, "shutdown-timeout", env("CATALOG_SHUTDOWN_TIMEOUT", "10s"), "how long calls in flight may run at shutdown (env CATALOG_SHUTDOWN_TIMEOUT)")
	fs.BoolVar(&cfg.Pprof, "pprof", envBool("CATALOG_PPROF", false), "serve the Go profiler at /debug/pprof/ on the admin listener (env CATALOG_PPROF)")
	fs.StringVar(&cfg.AdminTokenHash, "admin-token-hash", env("CATALOG_ADMIN_TOKEN_HASH", ""), "`sha256:<hex>` of the bearer token that /metrics and /debug/pprof/ then require (env CATALOG_ADMIN_TOKEN_HASH)")
	fs.StringVar(&cfg.MediaDir, "media-dir", env("CATALOG_MEDIA_DIR", ""), "`directory` of media files rendered beforehand (mediagen render), served rather than drawn (env CATALOG_MEDIA_DIR)")
	fs.StringVar(&v.searchCache, "search-cache-bytes", env("CATALOG_SEARCH_CACHE_BYTES", "33554432"), "most `bytes` of filter results and ranked lists (searches, relations) kept, by estimate (env CATALOG_SEARCH_CACHE_BYTES)")
	fs.StringVar(&v.mediaCache, "media-cache-bytes", env("CATALOG_MEDIA_CACHE_BYTES", "67108864"), "most `bytes` of media files kept once drawn (env CATALOG_MEDIA_CACHE_BYTES)")
	fs.BoolVar(&v.version, "version", false, "print the version, commit and Go version, and exit")
	return fs, v
}

// parseConfig reads the flags and the environment. -h and -version print
// to stdout and return errHelp.
func parseConfig(args []string, getenv func(string) string, stdout io.Writer) (config, error) {
	fs, v := newFlagSet(getenv)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, "Usage: catalog [flags]\n\nServes the exercise catalogue over gRPC. Every flag can also be set by the\nenvironment variable it names; a flag given on the command line wins.\nSIGHUP reloads -data and the TLS files (changes on disk are also followed);\nSIGTERM or SIGINT drain and stop.\n\nFlags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return config{}, errHelp
		}
		return config{}, fmt.Errorf("%w (catalog -h lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg, level, timeout := v.cfg, v.level, v.timeout
	if v.version {
		fmt.Fprintln(stdout, "catalog", buildinfo.Read())
		return config{}, errHelp
	}
	if v.envErr != nil {
		return config{}, v.envErr
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return config{}, fmt.Errorf("-log-level (CATALOG_LOG_LEVEL) %q: want debug, info, warn or error", level)
	}
	if cfg.LogFormat != "json" && cfg.LogFormat != "text" {
		return config{}, fmt.Errorf("-log-format (CATALOG_LOG_FORMAT) %q: want json or text", cfg.LogFormat)
	}
	d, err := time.ParseDuration(timeout)
	if err != nil || d <= 0 {
		return config{}, fmt.Errorf("-shutdown-timeout (CATALOG_SHUTDOWN_TIMEOUT) %q: want a positive duration such as 10s", timeout)
	}
	cfg.ShutdownTimeout = d
	if cfg.SearchCacheBytes, err = strconv.ParseInt(v.searchCache, 10, 64); err != nil || cfg.SearchCacheBytes < 1 {
		return config{}, fmt.Errorf("-search-cache-bytes (CATALOG_SEARCH_CACHE_BYTES) %q: want a positive number of bytes", v.searchCache)
	}
	if cfg.MediaCacheBytes, err = strconv.ParseInt(v.mediaCache, 10, 64); err != nil || cfg.MediaCacheBytes < 1 {
		return config{}, fmt.Errorf("-media-cache-bytes (CATALOG_MEDIA_CACHE_BYTES) %q: want a positive number of bytes", v.mediaCache)
	}
	switch {
	case cfg.TLSCert != "" && cfg.TLSKey == "":
		return config{}, errors.New("-tls-cert needs -tls-key")
	case cfg.TLSKey != "" && cfg.TLSCert == "":
		return config{}, errors.New("-tls-key needs -tls-cert")
	case cfg.TLSClientCA != "" && cfg.TLSCert == "":
		return config{}, errors.New("-tls-client-ca needs -tls-cert and -tls-key: mTLS is TLS with client certificates")
	}
	if h := cfg.AdminTokenHash; h != "" {
		if err := admin.CheckTokenHash(h); err != nil {
			return config{}, fmt.Errorf("-admin-token-hash (CATALOG_ADMIN_TOKEN_HASH): %w", err)
		}
	}
	return cfg, nil
}

// loggers returns the catalog's log of events, each written at once, and
// its log of calls, written in batches.
func (c config) loggers(w *logging.Buffer) (events *slog.Logger, calls *logging.Lines) {
	return logging.NewBuffered(w, c.LogFormat, c.LogLevel), logging.NewLines(logging.New(w, c.LogFormat, c.LogLevel), w, c.LogFormat)
}

// LogValue renders the configuration for the start-up log: durations as
// "10s", the token hash only as whether one is set.
func (c config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("listen", c.Listen), slog.String("admin", c.Admin), slog.String("data", cmpOr(c.Data, "embedded")),
		slog.String("log_format", c.LogFormat), slog.String("log_level", c.LogLevel.String()),
		slog.String("shutdown_timeout", c.ShutdownTimeout.String()),
		slog.String("tls_cert", c.TLSCert), slog.String("tls_key", c.TLSKey), slog.String("tls_client_ca", c.TLSClientCA),
		slog.Bool("reflection", c.Reflection), slog.Bool("pprof", c.Pprof), slog.Bool("admin_token", c.AdminTokenHash != ""),
		slog.Int64("media_cache_bytes", c.MediaCacheBytes), slog.Int64("search_cache_bytes", c.SearchCacheBytes), slog.String("media_dir", c.MediaDir),
	)
}
