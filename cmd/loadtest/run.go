package main

import (
	"context"
	"encoding/json"
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
		return serveReference(ctx, o.serveReference, o.referenceBody, o.referenceHeader)
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
			return fmt.Errorf("%v: build the binaries first (go build -o %s/ ./...)", err, o.bin)
		}
	}
	wrk, wrkVersion := "", ""
	if o.generator == generatorWrk {
		var err error
		if wrk, wrkVersion, err = findWrk(); err != nil {
			return err
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
	sys, err := startSystem(ctx, o.bin, dir, serverCPUs, o.keysPostgresURL)
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
	// The gzip scenario's set-up: its page, which must come gzipped.
	pageGzip, err := api.getGzip(ctx, listingPath, page)
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
		Generator:          "vegeta (Go, in this process)",
		Connections:        o.connections,
		LatencyConnections: o.latencyConnections,
		PageBytes:          len(page),
		PageGzipBytes:      len(pageGzip),
		MixSize:            len(items),
		MixByKind:          byKind,
		MixByPlan:          byPlan,
		PeakRSS:            map[string]int64{},
		RSSFile:            map[string]int64{},
	}
	if wrk != "" {
		rep.Generator = wrkVersion + " (one thread)"
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

	var ref, refMedia *server // the reference servers once they run
	m := &measurer{o: o, progress: progress, wrk: wrk, dir: dir, servers: func() []*server {
		out := []*server{sys.catalog, sys.gateway}
		for _, r := range []*server{ref, refMedia} {
			if r != nil {
				out = append(out, r)
			}
		}
		return out
	}}
	if o.pin {
		m.serverCores, _ = parseCPUList(rep.ServerCPUs)
		m.loadCores, _ = parseCPUList(rep.LoadCPUs)
		if m.serverCores == nil || m.loadCores == nil {
			m.serverCores, m.loadCores = nil, nil
		}
		m.wrkCPUs = o.loadCPUs
	}
	listing := []request{{URL: sys.gatewayURL + listingPath, Header: megaHeaders[0]}}
	gatewayWatch := []watch{
		{name: "gateway", srv: sys.gateway, metrics: sys.gatewayAdmin + "/metrics"},
		{name: "catalog", srv: sys.catalog, metrics: sys.catalogAdmin + "/metrics"},
	}

	// 1. The reference, alone on the servers' core (the system idles).
	// It stays up, idle, for scenario 6.
	progress("starting the reference server")
	ref, refURL, err := startReference(ctx, dir, "reference", serverCPUs, page, nil)
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

	// 2c. A media file, cached: the 360 pixel GIF of the first exercise
	// (fetched once first, so drawn and cached), against gin serving the
	// same response: the GIF's bytes with the headers a media file needs
	// (its type, ETag, Cache-Control, nosniff, Accept-Ranges) and a
	// request id, as the gateway sends them.
	gif, gifHeader, gifURL, err := mediaFile(ctx, sys.gatewayURL, megaHeaders[0])
	if err != nil {
		return fmt.Errorf("media: %w", err)
	}
	rep.MediaBytes = len(gif)
	refMedia, refMediaURL, err := startReference(ctx, dir, "reference-media", serverCPUs, gif, gifHeader)
	if err != nil {
		return fmt.Errorf("media reference server: %w", err)
	}
	defer refMedia.stop(10 * time.Second)
	res, err = m.scenario(ctx, scenarioMediaReference, "reference: gin, the same GIF's response (headers and bytes)", load{requests: []request{{URL: refMediaURL + "/media.gif"}}}, []watch{{name: "reference-media", srv: refMedia}})
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)
	res, err = m.scenario(ctx, scenarioMedia, "gateway: a 360 px GIF from /media (cached)", load{requests: []request{{URL: gifURL}}}, gatewayWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)
	refMedia.stop(10 * time.Second)
	refMedia = nil

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

	// 4b. The reference again: the machine's speed drifts on a shared host,
	// so the ratios are to the mean of the reference at both ends of the
	// maximum-rate scenarios.
	res, err = m.scenario(ctx, scenarioReferenceEnd, "reference again, after the gateway's scenarios", load{requests: refListing}, refWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)

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

	// 7. Neighbours: a Pro key's listings that reach the catalog, at a
	// steady rate, alone and then while a Mega key floods typo searches
	// as fast as it can (unmeasured): what one key's load does to another's
	// latency (catalog.max_in_flight_per_key bounds it).
	var proHeader http.Header
	for i, h := range callerHeaders(cs) {
		if cs[i].Plan == "Pro" && cs[i].Host == "" && proHeader == nil {
			proHeader = h
		}
	}
	// Listings that reach the catalog, after the first proIDs ids only: a
	// cursor past the Pro plan's record cap (1,000) is a 403. (The mix's
	// Pro requests would not do: the first scenario to send them would
	// meet them cold, the second warm.)
	const proIDs = 900
	var proRequests, noise []request
	for _, p := range cacheOffPaths(h.IDs[:min(proIDs, len(h.IDs))], variants, o.seed) {
		proRequests = append(proRequests, request{URL: sys.gatewayURL + p, Header: proHeader})
	}
	for _, p := range typoQueries(h.Vocab, 20000) {
		noise = append(noise, request{URL: sys.gatewayURL + p, Header: megaHeaders[0]})
	}
	quiet := load{requests: proRequests, rate: neighbourRate, connections: m.o.latencyConnections}
	res, err = m.scenario(ctx, scenarioQuiet, fmt.Sprintf("gateway: a Pro key's listings (cache off) at %d req/s, alone", neighbourRate), quiet, gatewayWatch)
	if err != nil {
		return err
	}
	rep.Scenarios = append(rep.Scenarios, res)
	noisy := quiet
	noisy.noise = noise
	res, err = m.scenario(ctx, scenarioNoisy, fmt.Sprintf("gateway: the same while a Mega key floods typo searches (%d connections)", m.o.connections), noisy, gatewayWatch)
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

// fetch returns the body of a GET.
func fetch(ctx context.Context, url string) (string, error) {
	b, _, err := fetchResponse(ctx, url)
	return string(b), err
}

// fetchResponse is fetch returning the response's headers too.
func fetchResponse(ctx context.Context, url string) ([]byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, http.Header{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, http.Header{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return b, resp.Header, err
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

// mediaFile finds the 360 pixel GIF of the first exercise of the gateway
// at base (its media, asked for with key), fetches it once, so that it is
// drawn and cached, and returns its bytes, the headers it came with (but
// the date and length, which every server writes) and its URL.
func mediaFile(ctx context.Context, base string, key http.Header) ([]byte, http.Header, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+pathExercises+"?limit=1&include=media", nil)
	if err != nil {
		return nil, nil, "", err
	}
	req.Header = key.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, "", err
	}
	defer resp.Body.Close()
	var page struct {
		Data []struct {
			Media struct {
				Renditions []struct {
					Height int
					Type   string
					URL    string
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK || len(page.Data) == 0 {
		return nil, nil, "", fmt.Errorf("listing with include=media: %s, %v", resp.Status, err)
	}
	for _, r := range page.Data[0].Media.Renditions {
		if r.Height == 360 && r.Type == "image/gif" {
			gif, header, err := fetchResponse(ctx, r.URL)
			header.Del("Date")
			header.Del("Content-Length")
			return gif, header, r.URL, err
		}
	}
	return nil, nil, "", fmt.Errorf("the first exercise has no 360 pixel GIF in %+v", page.Data[0].Media)
}
