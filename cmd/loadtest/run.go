package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// run is the command: the hidden reference server mode, or a load test.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if o.serveReference != "" {
		return serveReference(ctx, o.serveReference, o.referenceBody)
	}
	if o.pin {
		if err := pinSelf(o.loadCPUs, args); err != nil {
			return err
		}
	}
	return loadTest(ctx, o, args, stdout, stderr)
}

// listingPath is the listing of scenarios 2 and 5, whose page is also the
// reference's body.
const listingPath = pathExercises + "?limit=10"

// loadTest starts the system, crawls it, runs every scenario and reports.
func loadTest(ctx context.Context, o options, args []string, stdout, stderr io.Writer) error {
	// The load generator allocates per request (vegeta's requests and
	// results); collecting less often keeps its pauses, which the
	// latencies would include, rare. Its heap stays small.
	debug.SetGCPercent(400)
	for _, name := range []string{"catalog", "gateway"} {
		if _, err := os.Stat(filepath.Join(o.bin, name)); err != nil {
			return fmt.Errorf("%v: build the binaries first: go build -o %s/ ./...", err, o.bin)
		}
	}
	progress := func(format string, a ...any) { fmt.Fprintf(stderr, "loadtest: "+format+"\n", a...) }
	dir, err := os.MkdirTemp("", "loadtest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	serverCPUs := ""
	if o.pin {
		serverCPUs = o.serverCPUs
	}

	progress("starting the catalog and the gateway from %s/", o.bin)
	sys, err := startSystem(ctx, o.bin, dir, serverCPUs)
	if err != nil {
		return err
	}
	defer sys.stop()
	cs := slices.Clone(callers)
	for i := range cs {
		cs[i].Key = sys.keys[cs[i].KeyName]
	}
	var megaHeaders []http.Header // the Mega callers on the default product
	for i, h := range callerHeaders(cs) {
		if cs[i].Plan == "Mega" && cs[i].Host == "" {
			megaHeaders = append(megaHeaders, h)
		}
	}

	api := newAPIClient(sys.gatewayURL, cs[0].Key)
	page, err := api.get(ctx, listingPath, "")
	if err != nil {
		return err
	}
	progress("crawling the API for cursors")
	h, err := crawl(ctx, api)
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	items, err := buildMix(h.Entries, cs, kindWeights, o.mixSize, o.seed)
	if err != nil {
		return err
	}
	mix := mixRequests(sys.gatewayURL, items, cs)
	variants := cacheOffVariants(h.Vocab)
	var cacheOff []request
	for i, p := range cacheOffPaths(h.IDs, variants, o.seed) {
		cacheOff = append(cacheOff, request{URL: sys.gatewayURL + p, Header: megaHeaders[i%len(megaHeaders)]})
	}
	var tail []string
	for _, r := range cacheOff {
		tail = append(tail, r.URL)
	}
	check := slices.Clone(mix)
	for _, v := range variants {
		check = append(check, request{URL: sys.gatewayURL + cacheOffPath(h.IDs[len(h.IDs)/2], v), Header: megaHeaders[0]})
	}
	progress("checking the %d distinct requests of the mix and the cache-off listing", len(distinct(check)))
	if err := preflight(ctx, check); err != nil {
		return err
	}

	byKind, byPlan := mixShares(items, cs)
	rep := &report{
		Date:               time.Now(),
		Command:            strings.Join(append([]string{"loadtest"}, args...), " "),
		Platform:           runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:               onlineCPUs(),
		Pinned:             o.pin,
		Duration:           o.duration.String(),
		Warmup:             o.warmup.String(),
		Connections:        o.connections,
		LatencyConnections: o.latencyConnections,
		PageBytes:          len(page),
		MixSize:            len(items),
		MixByKind:          byKind,
		MixByPlan:          byPlan,
		PeakRSS:            map[string]int64{},
		RSSFile:            map[string]int64{},
	}
	if o.cacheOff {
		rep.CacheOffCycle = len(cacheOff)
	}
	if o.pin {
		// /proc's word on where the processes may run, not the flags'.
		if s, err := sampleProc(0); err == nil {
			rep.LoadCPUs = s.CPUs
		}
		if s, err := sampleProc(sys.gateway.pid()); err == nil {
			rep.ServerCPUs = s.CPUs
		}
	}

	rep.StartRSS = map[string]int64{}
	for _, srv := range []*server{sys.gateway, sys.catalog} {
		if s, err := sampleProc(srv.pid()); err == nil {
			rep.StartRSS[srv.name] = s.HWM
		}
	}

	var ref *server // the reference server once it runs
	m := &measurer{o: o, progress: progress, servers: func() []*server {
		if ref != nil {
			return []*server{sys.catalog, sys.gateway, ref}
		}
		return []*server{sys.catalog, sys.gateway}
	}}
	if o.pin {
		m.serverCores, _ = parseCPUList(rep.ServerCPUs)
		m.loadCores, _ = parseCPUList(rep.LoadCPUs)
		if m.serverCores == nil || m.loadCores == nil {
			m.serverCores, m.loadCores = nil, nil
		}
	}
	listing := []request{{URL: sys.gatewayURL + listingPath, Header: megaHeaders[0]}}
	gatewayWatch := []watch{
		{name: "gateway", srv: sys.gateway, metrics: sys.gatewayAdmin + "/metrics"},
		{name: "catalog", srv: sys.catalog, metrics: sys.catalogAdmin + "/metrics"},
	}

	// 1. The reference, alone on the servers' core (the system idles).
	// It stays up, idle, for scenario 6.
	progress("starting the reference server")
	ref, refURL, err := startReference(ctx, dir, serverCPUs, page)
	if err != nil {
		return fmt.Errorf("reference server: %w", err)
	}
	defer ref.stop(10 * time.Second)
	refListing := []request{{URL: refURL + listingPath, Header: megaHeaders[0]}}
	refWatch := []watch{{name: "reference", srv: ref}}
	res, err := m.scenario(ctx, scenarioReference, "reference: gin, the same page pre-encoded", load{requests: refListing}, refWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)

	// 2. The listing, one URL: as warm as the gateway gets.
	res, err = m.scenario(ctx, scenarioListing, "gateway: listing, one URL (warm)", load{requests: listing}, gatewayWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)
	maxRate := res.RPS

	// 2b. The same listing for a client that accepts gzip: the response
	// cache holds the compressed page beside the plain one.
	gzipHeader := megaHeaders[0].Clone()
	gzipHeader.Set("Accept-Encoding", "gzip")
	gzipListing := []request{{URL: listing[0].URL, Header: gzipHeader}}
	res, err = m.scenario(ctx, scenarioListingGzip, "gateway: listing, one URL (warm), gzip client", load{requests: gzipListing}, gatewayWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)

	// 3. The realistic mix.
	res, err = m.scenario(ctx, scenarioMix, "gateway: realistic mix", load{requests: mix, tail: tail}, gatewayWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)

	// 4. A listing that no response cache can serve.
	if o.cacheOff {
		res, err = m.scenario(ctx, scenarioCacheOff, "gateway: listing, cache off (after every id × filters)", load{requests: cacheOff}, gatewayWatch)
		if err != nil {
			return err
		}
		rep.Scenarios = append(rep.Scenarios, res)
	}

	// 5. The listing at half the maximum rate of 2.
	half := max(1, int(math.Round(maxRate/2)))
	res, err = m.scenario(ctx, scenarioHalfRate, "gateway: listing at half the max rate", load{requests: listing, rate: half, connections: m.o.latencyConnections}, gatewayWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)

	// 6. The reference at that rate: the latency that the load generator,
	// the loopback and a gin server add anyway, for 5's p99 to be read
	// against.
	res, err = m.scenario(ctx, scenarioReferenceHalfRate, "reference: at the rate of the previous row", load{requests: refListing, rate: half, connections: m.o.latencyConnections}, refWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)

	for _, w := range gatewayWatch {
		if s, err := sampleProc(w.srv.pid()); err == nil {
			rep.PeakRSS[w.name] = s.HWM
			rep.RSSFile[w.name] = s.RSSFile
		}
	}
	rep.evaluate()
	rep.writeMarkdown(stdout)
	if o.jsonPath != "" {
		if err := rep.writeJSON(o.jsonPath); err != nil {
			return err
		}
	}
	return nil
}

// watch is a server whose resources a scenario reports.
type watch struct {
	name    string
	srv     *server
	metrics string // URL of its Prometheus metrics; empty if none
}

// measurer runs scenarios.
type measurer struct {
	o        options
	progress func(string, ...any)
	// serverCores and loadCores are the CPUs the servers and this process
	// run on; nil when not pinned (every CPU).
	serverCores, loadCores []int
	// servers are every server running now, measured or idle: their CPU
	// time is not "other processes".
	servers func() []*server
}

// snapshot is the state of the servers, this process and the CPUs at one
// instant.
type snapshot struct {
	at      time.Time
	procs   []procSample // of the watched servers
	allocs  []float64    // go_memstats_alloc_bytes_total, NaN if unknown
	calls   float64      // the catalog's CatalogService calls, NaN if unknown
	loadCPU time.Duration
	ours    time.Duration // CPU time of every server
	stat    map[string]cpuTimes
}

func (m *measurer) snapshot(ctx context.Context, ws []watch) (snapshot, error) {
	s := snapshot{calls: math.NaN()}
	for _, w := range ws {
		p, err := sampleProc(w.srv.pid())
		if err != nil {
			return s, fmt.Errorf("%s: %w", w.name, err)
		}
		s.procs = append(s.procs, p)
		alloc := math.NaN()
		if w.metrics != "" {
			if text, err := fetch(ctx, w.metrics); err == nil {
				if v, ok := sumMetric(text, "go_memstats_alloc_bytes_total"); ok {
					alloc = v
				}
				if w.name == "catalog" {
					// Unary calls, and calls carried by Exchange streams.
					if v, ok := sumMetric(text, "grpc_server_handled_total", `grpc_service="exercisedb.catalog.v1.CatalogService"`); ok {
						s.calls = v
						if x, ok := sumMetric(text, "exercisedb_catalog_exchange_calls_total"); ok {
							s.calls += x
						}
					}
				}
			}
		}
		s.allocs = append(s.allocs, alloc)
	}
	for _, srv := range m.servers() {
		if p, err := sampleProc(srv.pid()); err == nil {
			s.ours += p.CPU
		}
	}
	if text, err := os.ReadFile("/proc/stat"); err == nil {
		s.stat, _ = parseProcStat(string(text))
	}
	if self, err := sampleProc(0); err == nil {
		s.loadCPU = self.CPU
	}
	s.at = time.Now()
	return s, nil
}

// scenario warms up, then measures l, with the resources of ws.
func (m *measurer) scenario(ctx context.Context, id, name string, l load, ws []watch) (scenarioResult, error) {
	l.duration, l.at = m.o.duration, &cycles{}
	if l.connections == 0 {
		l.connections = m.o.connections
	}
	res := scenarioResult{ID: id, Name: name, Rate: l.rate, Connections: l.connections, CatalogCalls: math.NaN(), OtherServerCores: math.NaN(), OtherLoadCores: math.NaN()}
	rate := "max rate"
	if l.rate > 0 {
		rate = fmt.Sprintf("%d req/s", l.rate)
	}
	m.progress("%s: %s warm-up, %s at %s", name, m.o.warmup, m.o.duration, rate)
	client := newLoadClient(l.connections)
	defer client.CloseIdleConnections()
	if m.o.warmup > 0 {
		w := l
		w.duration = m.o.warmup
		attack(ctx, client, w)
	}
	before, err := m.snapshot(ctx, ws)
	if err != nil {
		return res, err
	}
	t := attack(ctx, client, l)
	after, err := m.snapshot(ctx, ws)
	if err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	for _, w := range ws {
		select {
		case <-w.srv.exited:
			return res, w.srv.failure()
		default:
		}
	}
	res.summary = t.summary()
	wall := after.at.Sub(before.at).Seconds()
	perReq := func(v float64) float64 {
		if res.Requests == 0 {
			return math.NaN()
		}
		return v / float64(res.Requests)
	}
	for i, w := range ws {
		cpu := (after.procs[i].CPU - before.procs[i].CPU).Seconds()
		res.Servers = append(res.Servers, serverResult{
			Name:        w.name,
			CPUSeconds:  cpu,
			CPUPercent:  100 * cpu / wall,
			CPUPerReq:   perReq(cpu * 1e6),
			AllocPerReq: perReq(after.allocs[i] - before.allocs[i]),
			PeakRSS:     after.procs[i].HWM,
		})
	}
	res.CatalogCalls = perReq(after.calls - before.calls)
	loadCPU := after.loadCPU - before.loadCPU
	ours := after.ours - before.ours
	res.LoadCPU = 100 * loadCPU.Seconds() / wall
	if before.stat != nil && after.stat != nil {
		delta := func(cpus []int) (busyTime, steal time.Duration) {
			a, b := busy(after.stat, cpus), busy(before.stat, cpus)
			return ticks(a.Busy - b.Busy), ticks(a.Steal - b.Steal)
		}
		percent := func(d time.Duration) float64 { return max(0, 100*d.Seconds()/wall) }
		if m.serverCores != nil && m.loadCores != nil {
			serverBusy, serverSteal := delta(m.serverCores)
			loadBusy, loadSteal := delta(m.loadCores)
			res.OtherServerCores = percent(serverBusy - ours)
			res.OtherLoadCores = percent(loadBusy - loadCPU)
			res.Steal = percent(serverSteal + loadSteal)
		} else {
			allBusy, steal := delta(nil)
			res.OtherServerCores = percent(allBusy - ours - loadCPU)
			res.Steal = percent(steal)
		}
	}
	m.progress("%s: %s req/s, p50 %s, p99 %s", name, thousands(res.RPS), millis(res.P50), millis(res.P99))
	return res, nil
}

// fetch returns the body of a GET.
func fetch(ctx context.Context, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(b), err
}

// distinct returns the requests once each (same URL and same key and
// host headers).
func distinct(rs []request) []request {
	seen := map[string]bool{}
	var out []request
	for _, r := range rs {
		if r.Tail {
			continue // checked as the cache-off listing
		}
		k := r.URL + "\x00" + r.Header.Get("X-Gateway-Key") + "\x00" + r.Header.Get("X-Gateway-Host")
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// preflight sends each distinct request once and fails unless every one
// is answered 2xx, so that the scenarios' status counts mean something.
func preflight(ctx context.Context, rs []request) error {
	rs = distinct(rs)
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	next := make(chan request)
	for range 8 {
		wg.Go(func() {
			for r := range next {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
				if err != nil {
					continue
				}
				req.Header = r.Header.Clone()
				resp, err := client.Do(req)
				msg := ""
				if err != nil {
					msg = err.Error()
				} else {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode/100 != 2 {
						msg = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(b)))
					}
				}
				if msg != "" {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("GET %s (host %q): %s", r.URL, r.Header.Get("X-Gateway-Host"), msg))
					mu.Unlock()
				}
			}
		})
	}
	for _, r := range rs {
		select {
		case next <- r:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failures) > 0 {
		slices.Sort(failures)
		return fmt.Errorf("%d of %d requests of the load failed before the load started:\n%s",
			len(failures), len(rs), strings.Join(failures[:min(len(failures), 5)], "\n"))
	}
	return nil
}

// onlineCPUs is the number of CPUs of the machine (not of this process,
// which may be pinned to one).
func onlineCPUs() int {
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		if cpus, err := parseCPUList(string(b)); err == nil {
			return len(cpus)
		}
	}
	return runtime.NumCPU()
}
