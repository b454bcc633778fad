package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"
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
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("catalog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var cfg config
	fs.StringVar(&cfg.Listen, "listen", env("CATALOG_LISTEN", "127.0.0.1:9090"), "gRPC listen `address` (env CATALOG_LISTEN)")
	fs.StringVar(&cfg.Admin, "admin", env("CATALOG_ADMIN", "127.0.0.1:9092"), "`address` of /healthz, /readyz and /metrics (env CATALOG_ADMIN)")
	fs.StringVar(&cfg.Data, "data", env("CATALOG_DATA", ""), "catalogue `file` to load instead of the embedded one (env CATALOG_DATA)")
	fs.StringVar(&cfg.LogFormat, "log-format", env("CATALOG_LOG_FORMAT", "json"), "log `format`: json or text (env CATALOG_LOG_FORMAT)")
	level := fs.String("log-level", env("CATALOG_LOG_LEVEL", "info"), "log `level`: debug, info, warn or error (env CATALOG_LOG_LEVEL)")
	timeout := fs.String("shutdown-timeout", env("CATALOG_SHUTDOWN_TIMEOUT", "10s"), "how long calls in flight may run at shutdown (env CATALOG_SHUTDOWN_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*level)); err != nil {
		return config{}, fmt.Errorf("-log-level %q: want debug, info, warn or error", *level)
	}
	if cfg.LogFormat != "json" && cfg.LogFormat != "text" {
		return config{}, fmt.Errorf("-log-format %q: want json or text", cfg.LogFormat)
	}
	d, err := time.ParseDuration(*timeout)
	if err != nil || d <= 0 {
		return config{}, fmt.Errorf("-shutdown-timeout %q: want a positive duration such as 10s", *timeout)
	}
	cfg.ShutdownTimeout = d
	return cfg, nil
}

func (c config) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
