package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// errUsage is returned for a flag error, which the flag package has
// already reported.
var errUsage = errors.New("usage")

// The load generators of -generator.
const (
	generatorWrk = "wrk"
	generatorGo  = "go"
)

// options are the command's flags.
type options struct {
	bin         string        // directory of the catalog and gateway binaries
	duration    time.Duration // measured time of each scenario
	warmup      time.Duration // unmeasured load before each scenario, at most duration/5
	connections int           // connections (and vegeta workers) of the max-rate scenarios
	// latencyConnections are those of the fixed-rate scenarios, which
	// measure latency: at half the maximum rate a few requests are in
	// flight at a time, and with 64 connections the load generator's own
	// bursts (its single core catching up on its pacer) put up to 64
	// requests in the servers' queue at once, which set the p99 of the
	// reference and the gateway alike.
	latencyConnections int
	cacheOff           bool   // run the listing that no response cache can serve
	pin                bool   // servers on serverCPUs, load generator on loadCPUs
	serverCPUs         string // taskset list for the servers
	loadCPUs           string // taskset list for this process
	jsonPath           string // where to write the figures as JSON, if set
	keysPostgresURL    string // the gateway's keys in this database, if set
	// generator is the load generator at the maximum rate: generatorWrk
	// or generatorGo. The fixed-rate scenarios always use the Go one.
	generator string
	mixSize   int    // requests in the realistic mix before it repeats
	seed      uint64 // of the mix and the cache-off order

	// The hidden reference server mode: this binary re-executed by itself.
	serveReference string // address to serve on
	referenceBody  string // file holding the body to serve
	// referenceHeader is a file of the headers to answer with, in wire
	// format; none means a JSON page's Content-Type alone.
	referenceHeader string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	noPin := false
	fs.StringVar(&o.bin, "bin", "bin", "`directory` holding the catalog and gateway binaries (go build -o bin/ ./...)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured `time` of each scenario")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured load before each scenario (at most a fifth of -duration)")
	fs.IntVar(&o.connections, "connections", 64, "keep-alive connections (and workers) of the load generator")
	fs.IntVar(&o.latencyConnections, "latency-connections", 16, "keep-alive connections (and workers) of the fixed-rate scenarios, which measure latency")
	fs.BoolVar(&o.cacheOff, "cache-off", true, "also run the listing whose query changes on every request, so every request reaches the catalog")
	fs.BoolVar(&noPin, "no-pin", false, "do not pin the servers and the load generator to separate cores")
	fs.StringVar(&o.serverCPUs, "server-cpus", "1", "taskset `list` of the servers' cores")
	fs.StringVar(&o.loadCPUs, "load-cpus", "0", "taskset `list` of the load generator's cores")
	fs.StringVar(&o.jsonPath, "json", "", "also write the figures as JSON to this `file`")
	fs.StringVar(&o.keysPostgresURL, "keys-postgres-url", "", "keep the gateway's keys in this PostgreSQL database (keys_postgres_url) instead of a keys file, to compare the stores")
	fs.StringVar(&o.generator, "generator", generatorWrk, "load generator at the maximum rate: wrk (one thread; its core keeps headroom while the reference's saturates) or go (vegeta in this process, for machines without wrk; its own core saturates first, which flatters the req/s ratios). The fixed-rate scenarios use go: wrk has no fixed rate")
	fs.IntVar(&o.mixSize, "mix", 4000, "`requests` of the realistic mix before it repeats")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the mix and of the cache-off order")
	fs.StringVar(&o.serveReference, "serve-reference", "", "internal: serve the reference page on this `address`")
	fs.StringVar(&o.referenceBody, "reference-body", "", "internal: `file` of the reference page")
	fs.StringVar(&o.referenceHeader, "reference-header", "", "internal: `file` of the reference page's headers")
	if err := fs.Parse(args); err != nil {
		return o, errUsage
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.pin = !noPin
	var bad []string
	if o.duration <= 0 {
		bad = append(bad, "-duration: want a positive duration such as 10s")
	}
	if o.warmup < 0 {
		bad = append(bad, "-warmup: want zero or a positive duration")
	}
	if o.connections < 1 {
		bad = append(bad, "-connections: want at least 1")
	}
	if o.latencyConnections < 1 {
		bad = append(bad, "-latency-connections: want at least 1")
	}
	if o.generator != generatorWrk && o.generator != generatorGo {
		bad = append(bad, "-generator: want wrk or go")
	}
	if o.mixSize < 100 {
		bad = append(bad, "-mix: want at least 100")
	}
	if o.serveReference != "" && o.referenceBody == "" {
		bad = append(bad, "-serve-reference needs -reference-body")
	}
	if len(bad) > 0 {
		return o, errors.New(strings.Join(bad, "; "))
	}
	o.warmup = min(o.warmup, o.duration/5)
	if o.generator == generatorWrk {
		// wrk's -d takes whole seconds.
		o.duration, o.warmup = ceilSecond(o.duration), ceilSecond(o.warmup)
	}
	return o, nil
}

// ceilSecond rounds d up to a whole number of seconds.
func ceilSecond(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}
