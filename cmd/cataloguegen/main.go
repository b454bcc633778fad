// Command cataloguegen generates the embedded exercise catalogue,
// catalog/dataset/catalogue.json, from its YAML source, or with -check
// verifies that the file on disk is current. Run it from the module root:
//
//	go run ./cmd/cataloguegen          # regenerate (and record it in changelog.json)
//	go run ./cmd/cataloguegen -check   # fail if catalogue.json is stale
//	go run ./cmd/cataloguegen -stats   # also print the counts for the README
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var usage usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		os.Exit(2) // the flag package has printed the problem and the usage
	default:
		fmt.Fprintln(os.Stderr, "cataloguegen:", err)
		os.Exit(1)
	}
}
