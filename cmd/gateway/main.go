// Command gateway is the public HTTP edge of the exercise catalogue: it
// resolves the product, checks the key, applies the plan and calls the
// catalog. "gateway keys ..." creates, lists, disables, rotates and deletes
// keys in the configured key store.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/exercisedb/exercisedb/gateway/config"
)

func main() {
	// The gateway's heap is small and its garbage short-lived: collect
	// less often than Go's default, within a memory limit that keeps the
	// process under 64 MiB resident with its ~24 MiB of code, unless GOGC
	// or GOMEMLIMIT say otherwise. Under a listing that misses the
	// response cache, the limit sets the pace: at 28 MiB the collector ran
	// every ~200 requests and took a quarter of the CPU; 34 MiB halves
	// that for about 6 MiB more resident (docs/performance.md).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(34 << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

// run dispatches to the serve command (which also answers -h and -version)
// or a subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	switch {
	case len(args) >= 1 && args[0] == "keys":
		return keysCommand(ctx, args[1:], getenv, stdout, stderr)
	}
	return runServer(ctx, args, getenv, stdout, stderr)
}

// usage is what -h prints: the commands, the flags and the environment.
var usage = `Usage:
  gateway [-config gateway.yaml]     serve the public API and the admin listener
  gateway keys create -config gateway.yaml [-name NAME] -product PRODUCT=PLAN [-product ...] [-id ID] [-expires TIME]
                                     add a key to the configuration's key store (keys file or
                                     keys_postgres_url); the key is printed once
  gateway keys list -config gateway.yaml
                                     list the keys (never a key itself)
  gateway keys disable -config gateway.yaml [-enable] ID
                                     disable a key (or enable it again)
  gateway keys rotate -config gateway.yaml [-overlap 24h] ID
                                     print a new key for the same subscriptions; the old one
                                     expires after the overlap
  gateway keys delete -config gateway.yaml ID
                                     delete a key
  gateway -version                   print the version, commit and Go version
  gateway -h                         print this help

The configuration format and every setting's default: docs/configuration.md.

Environment (each overrides the setting named, when set and not empty):
` + config.EnvironmentHelp() + `
Signals: SIGHUP reloads the keys (file changes and, with PostgreSQL, every
change through any replica are also followed within a second) and re-reads
the TLS files (changes are also followed); SIGTERM or SIGINT drain and stop.
`
