// Command loadtest measures the gateway and the catalog under load, as
// ratios to a reference server measured in the same run.
//
// It starts bin/catalog and bin/gateway on free ports with a generated
// configuration, creates keys, crawls the API for cursors, and runs fixed
// duration scenarios: a reference server (gin writing the same pre-encoded
// listing page), the gateway's listing, a realistic mix, a listing that no
// response cache can serve, and the listing at half its maximum rate. It
// prints a Markdown table (and -json writes the figures), with each target
// of docs/performance.md marked PASS or FAIL, judged by req/s only when the
// reference was server-bound and by CPU per request otherwise.
//
// The servers run on one core and the load generator on the other
// (taskset; -no-pin to skip): wrk (apt-get install wrk) at the maximum
// rate, vegeta in this process at a fixed rate or with -generator go.
// Build first: go build -o bin/ ./...
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if err != errUsage {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
		}
		os.Exit(1)
	}
}
