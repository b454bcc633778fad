package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// Scenario ids.
const (
	scenarioReference = "reference"
	// scenarioReferenceEnd is the reference again after the gateway's
	// maximum-rate scenarios: the ratios are to the mean of the two, and
	// their difference is how far the machine's speed moved meanwhile.
	scenarioReferenceEnd = "reference-end"
	scenarioListing      = "listing"
	// scenarioListingGzip is the listing for a client that accepts gzip.
	scenarioListingGzip = "listing-gzip"
	scenarioMix         = "mix"
	scenarioCacheOff    = "cache-off"
	scenarioHalfRate    = "half-rate"
	// scenarioReferenceHalfRate is the reference at the half-rate
	// scenario's rate: the latency baseline of that scenario.
	scenarioReferenceHalfRate = "reference-half-rate"
	// scenarioMedia is a cached 360 pixel GIF from the gateway's /media,
	// and scenarioMediaReference gin serving the same response: its
	// bytes and headers.
	scenarioMedia          = "media"
	scenarioMediaReference = "media-reference"
	// scenarioQuiet is a Pro key's listings that reach the catalog at
	// neighbourRate, alone; scenarioNoisy the same while a Mega key floods
	// typo searches.
	scenarioQuiet = "neighbour-quiet"
	scenarioNoisy = "neighbour-noisy"
)

// neighbourRate is the Pro key's rate in the neighbour scenarios.
const neighbourRate = 15

// The targets the report judges (docs/performance.md states them).
const (
	targetListingRatio  = 0.8
	targetCacheOffRatio = 0.35
	targetHalfRateP99   = 5 * time.Millisecond
	// targetNoisyP99 bounds the Pro key's p99 beside a flooding Mega key,
	// as a multiple of its p99 alone.
	targetNoisyP99 = 2.0
	targetPeakRSS  = 64 << 20
	// targetGzipCost bounds a warm gzip hit's cost over a plain one's,
	// measured as the ratio of their request rates.
	targetGzipCost = 1.10
	// targetMediaRatio is a cached media file's rate against gin serving
	// the same bytes.
	targetMediaRatio = 0.9
)

// saturated is how busy a core must be (percent) to count as saturated:
// the reference's req/s measures its server only if its core is, while
// the load generator's is not.
const saturated = 90

// The ratios the targets can be judged by.
const (
	headlineRPS = "req/s"
	headlineCPU = "CPU per request"
)

// otherCPUNote is the share of a core (percent) that other processes may
// use during a scenario before the report says the run was disturbed.
const otherCPUNote = 10

// report is everything a run measured.
type report struct {
	Date       time.Time `json:"date"`
	Command    string    `json:"command"`
	Platform   string    `json:"platform"`
	CPUs       int       `json:"cpus"`
	Pinned     bool      `json:"pinned"`
	ServerCPUs string    `json:"server_cpus,omitempty"` // Cpus_allowed_list of the servers, as /proc saw it
	LoadCPUs   string    `json:"load_cpus,omitempty"`   // of the load generator
	// Generator is the load generator of the max-rate scenarios; the
	// fixed-rate ones use vegeta.
	Generator   string `json:"generator"`
	Duration    string `json:"duration"`
	Warmup      string `json:"warmup"`
	Connections int    `json:"connections"`
	// LatencyConnections are those of the fixed-rate scenarios.
	LatencyConnections int `json:"latency_connections"`
	PageBytes          int `json:"page_bytes"` // size of the listing page (and the reference's body)
	// PageGzipBytes is the size of the listing page gzipped, as the
	// listing-gzip scenario's client gets it.
	PageGzipBytes int `json:"page_gzip_bytes"`
	// MediaBytes is the size of the GIF of the media scenarios.
	MediaBytes int `json:"media_bytes"`
	// The realistic mix: requests before it repeats, and shares in percent.
	MixSize       int                `json:"mix_size"`
	MixByKind     map[string]float64 `json:"mix_by_kind"`
	MixByPlan     map[string]float64 `json:"mix_by_plan"`
	CacheOffCycle int                `json:"cache_off_cycle,omitempty"` // distinct queries of the cache-off listing
	Scenarios     []scenarioResult   `json:"scenarios"`
	PeakRSS       map[string]int64   `json:"peak_rss_bytes"` // VmHWM of each server at the end of the run
	// StartRSS is each server's VmHWM before the first scenario, after the
	// crawl and the check of every request.
	StartRSS map[string]int64 `json:"start_peak_rss_bytes,omitempty"`
	// RSSFile is the file-backed part of each server's RSS at the end of
	// the run (its binary, mostly), which VmHWM includes.
	RSSFile map[string]int64 `json:"rss_file_bytes,omitempty"`
	// Headline is the ratio the targets are judged by (headlineRPS or
	// headlineCPU), and HeadlineReason why.
	Headline       string         `json:"headline"`
	HeadlineReason string         `json:"headline_reason"`
	Targets        []targetResult `json:"targets"`
	Notes          []string       `json:"notes,omitempty"`
}

// scenarioResult is one scenario's figures.
type scenarioResult struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Rate int    `json:"rate"` // requests per second asked for; 0: as fast as possible
	// Connections of the load generator (and its workers).
	Connections int `json:"connections"`
	// Generator is the load generator: "wrk" or "vegeta".
	Generator string  `json:"generator"`
	summary           // requests, latencies, statuses
	Ratio     float64 `json:"ratio_to_reference"` // req/s over the reference's
	// CPURatio is the reference's CPU time per request over this
	// scenario's (every server's): what Ratio would be if both ran their
	// core flat out, and far less disturbed by other processes than Ratio.
	CPURatio float64        `json:"cpu_ratio_to_reference"`
	Servers  []serverResult `json:"servers"`
	// CatalogCalls is the catalog's CatalogService calls per request, from
	// its metrics (NaN if they could not be read).
	CatalogCalls float64 `json:"-"`
	// LoadCPU is the load generator's CPU use (wrk's and this
	// process's), in percent of one core.
	LoadCPU float64 `json:"load_generator_cpu_percent"`
	// ServerCores and LoadCores are how busy the servers' cores and the
	// load generator's were, whoever used them, interrupts included, in
	// percent of one core; NaN unless pinned.
	ServerCores float64 `json:"-"`
	LoadCores   float64 `json:"-"`
	// OtherServerCores and OtherLoadCores are the CPU that other
	// processes of the machine used on the servers' cores and on the load
	// generator's, in percent of one core (NaN if unknown); interrupt time
	// is not counted (loopback networking, the run's own, is most of it).
	// Unpinned, OtherServerCores is the whole machine's and OtherLoadCores
	// is NaN.
	OtherServerCores float64 `json:"-"`
	OtherLoadCores   float64 `json:"-"`
	// Steal is the time the hypervisor gave to other guests on those
	// cores, in percent of one core.
	Steal float64 `json:"steal_percent"`
}

func (s scenarioResult) MarshalJSON() ([]byte, error) {
	type plain scenarioResult
	return json.Marshal(struct {
		plain
		P50              float64  `json:"p50_ms"`
		P75              float64  `json:"p75_ms"`
		P90              float64  `json:"p90_ms"`
		P99              float64  `json:"p99_ms"`
		Max              float64  `json:"max_ms"`
		CatalogCalls     *float64 `json:"catalog_calls_per_request,omitempty"`
		OtherServerCores *float64 `json:"other_processes_cpu_percent_server_cores,omitempty"`
		OtherLoadCores   *float64 `json:"other_processes_cpu_percent_load_cores,omitempty"`
		ServerCores      *float64 `json:"server_cores_busy_percent,omitempty"`
		LoadCores        *float64 `json:"load_generator_cores_busy_percent,omitempty"`
	}{plain(s), ms(s.P50), ms(s.P75), ms(s.P90), ms(s.P99), ms(s.Max), number(s.CatalogCalls),
		number(s.OtherServerCores), number(s.OtherLoadCores), number(s.ServerCores), number(s.LoadCores)})
}

// serverResult is a server's resource use during one scenario.
type serverResult struct {
	Name       string  `json:"name"`
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUPercent float64 `json:"cpu_percent"` // of one core, over the scenario's wall time
	CPUPerReq  float64 `json:"cpu_us_per_request"`
	// AllocPerReq is heap allocation per request from the server's Go
	// metrics, bytes (NaN if they could not be read).
	AllocPerReq float64 `json:"-"`
	PeakRSS     int64   `json:"peak_rss_bytes"` // VmHWM at the end of the scenario
}

func (s serverResult) MarshalJSON() ([]byte, error) {
	type plain serverResult
	return json.Marshal(struct {
		plain
		AllocPerReq *float64 `json:"alloc_bytes_per_request,omitempty"`
	}{plain(s), number(s.AllocPerReq)})
}

// number is nil for NaN, which JSON cannot hold, and &v otherwise.
func number(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// cpuPerRequest is the CPU time per request of every server the scenario
// watched, in microseconds (0 if unknown).
func (s scenarioResult) cpuPerRequest() float64 {
	total := 0.0
	for _, sv := range s.Servers {
		if math.IsNaN(sv.CPUPerReq) {
			return 0
		}
		total += sv.CPUPerReq
	}
	return total
}

// disturbed reports whether other processes (or other guests of the
// hypervisor) used a noticeable share of a core during s.
func (s scenarioResult) disturbed() bool {
	return s.OtherServerCores >= otherCPUNote || s.OtherLoadCores >= otherCPUNote || s.Steal >= otherCPUNote
}

// targetResult is one target's verdict.
type targetResult struct {
	Name   string `json:"name"`
	Figure string `json:"figure"`
	// Result is PASS, FAIL, or NOT RUN.
	Result string `json:"result"`
}

func (r *report) scenario(id string) (scenarioResult, bool) {
	for _, s := range r.Scenarios {
		if s.ID == id {
			return s, true
		}
	}
	return scenarioResult{}, false
}

// evaluate sets each scenario's ratio to the reference, the targets and
// the notes.
func (r *report) evaluate() {
	ref, haveRef := r.scenario(scenarioReference)
	if end, ok := r.scenario(scenarioReferenceEnd); ok && haveRef {
		ref = r.referenceMean(ref, end)
	}
	refCPU := ref.cpuPerRequest()
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if haveRef && ref.RPS > 0 {
			s.Ratio = s.RPS / ref.RPS
		}
		if cpu := s.cpuPerRequest(); haveRef && refCPU > 0 && cpu > 0 {
			s.CPURatio = refCPU / cpu
		}
	}
	r.Headline, r.HeadlineReason = headline(ref, haveRef, r.Pinned)
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	// judge returns the figure a target is judged by, by req/s or by CPU
	// per request, and the text of both, the judged one first: by CPU per
	// request when the headline is, or when other processes disturbed one
	// of the scenarios compared.
	judge := func(rps, cpu float64, byRPS, byCPU string, ss ...scenarioResult) (float64, string) {
		if r.Headline == headlineCPU {
			return cpu, byCPU + "; " + byRPS
		}
		for _, s := range ss {
			if s.disturbed() {
				return cpu, fmt.Sprintf("%s; %s (judged by CPU per request: other processes used %s during %s)", byCPU, byRPS, r.other(s), s.Name)
			}
		}
		return rps, byRPS + "; " + byCPU
	}
	ratioTarget := func(id, name string, want float64) targetResult {
		t := targetResult{Name: fmt.Sprintf("%s ≥ %.2g × reference", name, want), Result: "NOT RUN", Figure: "–"}
		s, ok := r.scenario(id)
		if !ok || !haveRef || ref.RPS == 0 {
			return t
		}
		byRPS := fmt.Sprintf("%s × by req/s (%s / %s)", near(s.Ratio, want), thousands(s.RPS), thousands(ref.RPS))
		byCPU := fmt.Sprintf("%s × by CPU per request (%.0f / %.0f µs)", near(s.CPURatio, want), refCPU, s.cpuPerRequest())
		var ratio float64
		ratio, t.Figure = judge(s.Ratio, s.CPURatio, byRPS, byCPU, s)
		t.Result = verdict(ratio >= want && s.transportErrors() == 0 && s.unexpected() == 0)
		if s.transportErrors()+s.unexpected() > 0 {
			t.Figure += ", with errors"
		}
		return t
	}
	r.Targets = []targetResult{
		ratioTarget(scenarioListing, "listing, warm gateway", targetListingRatio),
		ratioTarget(scenarioCacheOff, "listing, every request reaches the catalog (cache off)", targetCacheOffRatio),
	}
	half := targetResult{Name: fmt.Sprintf("p99 at half the maximum listing rate < %v", targetHalfRateP99), Result: "NOT RUN", Figure: "–"}
	if s, ok := r.scenario(scenarioHalfRate); ok && s.Requests > 0 {
		half.Figure = fmt.Sprintf("%s at %s req/s", millis(s.P99), thousands(s.RPS))
		if b, ok := r.scenario(scenarioReferenceHalfRate); ok && b.Requests > 0 {
			half.Figure += fmt.Sprintf(" (the reference at that rate: %s)", millis(b.P99))
		}
		half.Result = verdict(s.P99 < targetHalfRateP99 && s.transportErrors() == 0 && s.unexpected() == 0)
	}
	r.Targets = append(r.Targets, half)
	for _, name := range []string{"gateway", "catalog"} {
		t := targetResult{Name: fmt.Sprintf("%s peak RSS (VmHWM) under load < %s", name, mib(targetPeakRSS)), Result: "NOT RUN", Figure: "–"}
		if hwm, ok := r.PeakRSS[name]; ok {
			t.Figure = mib(hwm)
			if f, ok := r.RSSFile[name]; ok && f >= 0 {
				t.Figure += fmt.Sprintf(" (file-backed at the end: %s)", mib(f))
			}
			t.Result = verdict(hwm < targetPeakRSS)
		}
		r.Targets = append(r.Targets, t)
	}
	gz := targetResult{Name: fmt.Sprintf("listing, warm gzip hit ≤ %.2f × the cost of a plain one", targetGzipCost), Result: "NOT RUN", Figure: "–"}
	if s, ok := r.scenario(scenarioListingGzip); ok && s.RPS > 0 {
		if p, ok := r.scenario(scenarioListing); ok && p.RPS > 0 {
			rpsCost, cpuCost := p.RPS/s.RPS, s.cpuPerRequest()/p.cpuPerRequest()
			byRPS := fmt.Sprintf("%s × by req/s (%s / %s)", near(rpsCost, targetGzipCost), thousands(p.RPS), thousands(s.RPS))
			byCPU := fmt.Sprintf("%s × by CPU per request (%.0f / %.0f µs)", near(cpuCost, targetGzipCost), s.cpuPerRequest(), p.cpuPerRequest())
			var cost float64
			cost, gz.Figure = judge(rpsCost, cpuCost, byRPS, byCPU, p, s)
			gz.Result = verdict(cost <= targetGzipCost && s.transportErrors() == 0 && s.unexpected() == 0)
		}
	}
	r.Targets = append(r.Targets, gz)

	media := targetResult{Name: fmt.Sprintf("360 px GIF from /media, cached ≥ %.2g × gin serving the same response", targetMediaRatio), Result: "NOT RUN", Figure: "–"}
	if s, ok := r.scenario(scenarioMedia); ok && s.RPS > 0 {
		if g, ok := r.scenario(scenarioMediaReference); ok && g.RPS > 0 {
			rps, cpu := s.RPS/g.RPS, 0.0
			if sc := s.cpuPerRequest(); sc > 0 {
				cpu = g.cpuPerRequest() / sc
			}
			byRPS := fmt.Sprintf("%s × by req/s (%s / %s)", near(rps, targetMediaRatio), thousands(s.RPS), thousands(g.RPS))
			byCPU := fmt.Sprintf("%s × by CPU per request (%.0f / %.0f µs)", near(cpu, targetMediaRatio), g.cpuPerRequest(), s.cpuPerRequest())
			var ratio float64
			ratio, media.Figure = judge(rps, cpu, byRPS, byCPU, g, s)
			media.Figure += fmt.Sprintf(", %d bytes", r.MediaBytes)
			media.Result = verdict(ratio >= targetMediaRatio && s.transportErrors() == 0 && s.unexpected() == 0)
		}
	}
	r.Targets = append(r.Targets, media)
	noisy := targetResult{Name: fmt.Sprintf("a Pro key's p99 while a Mega key floods typo searches ≤ %.0f × its p99 alone", targetNoisyP99), Result: "NOT RUN", Figure: "–"}
	if q, ok := r.scenario(scenarioQuiet); ok && q.Requests > 0 && q.P99 > 0 {
		if n, ok := r.scenario(scenarioNoisy); ok && n.Requests > 0 {
			ratio := float64(n.P99) / float64(q.P99)
			noisy.Figure = fmt.Sprintf("%.2f × (%s / %s)", ratio, millis(n.P99), millis(q.P99))
			noisy.Result = verdict(ratio <= targetNoisyP99 && n.transportErrors() == 0 && n.unexpected() == 0)
		}
	}
	r.Targets = append(r.Targets, noisy)

	var disturbed []string
	for _, s := range r.Scenarios {
		if n := s.transportErrors(); n > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d requests got no response (%s).", s.Name, n, strings.Join(slices.Sorted(maps.Keys(s.TransportErrors)), "; ")))
		}
		if n := s.unexpected(); n > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d responses were not 2xx; none is expected (Pro and Basic limits are set out of reach).", s.Name, n))
		}
		if s.Rate == 0 && !math.IsNaN(s.ServerCores) && !math.IsNaN(s.LoadCores) {
			switch {
			case s.LoadCores >= saturated && s.ServerCores < saturated:
				r.Notes = append(r.Notes, fmt.Sprintf("%s: the load generator's core was busy %.0f%% of the time (the load generator itself %.0f%%), the servers' %.0f%%: the load generator limits this rate, so it understates what the servers can do.", s.Name, s.LoadCores, s.LoadCPU, s.ServerCores))
			case s.LoadCores < 80 && s.ServerCores < 80:
				r.Notes = append(r.Notes, fmt.Sprintf("%s: neither core was saturated (load generator's %.0f%%, servers' %.0f%%): latency, not CPU, limited this rate.", s.Name, s.LoadCores, s.ServerCores))
			}
		}
		if s.disturbed() {
			disturbed = append(disturbed, fmt.Sprintf("%s (%s)", s.Name, r.other(s)))
		}
		if s.Rate > 0 && s.RPS < 0.95*float64(s.Rate) {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: reached %s of the %s req/s asked for.", s.Name, thousands(s.RPS), thousands(float64(s.Rate))))
		}
	}
	if len(disturbed) > 0 {
		which := "servers' core / load generator's"
		if !r.Pinned {
			which = "the machine"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Other processes used %d%% or more of a core (%s) during: %s. The figures are disturbed; the ratios by CPU per request much less than those by req/s.",
			otherCPUNote, which, strings.Join(disturbed, "; ")))
	}
	if !r.Pinned {
		r.Notes = append(r.Notes, "Not pinned (-no-pin): the servers and the load generator shared every core, so the figures are not comparable with pinned runs.")
	}
}

// driftNote is the change of the reference's req/s between the start and
// the end of a run (percent) above which the report says the ratios are
// uncertain.
const driftNote = 5

// referenceMean is the reference as the ratios use it: its req/s and CPU
// per request the means of its runs at the start and at the end, with a
// note of how far they moved. Cores and disturbance are the start's, which
// the headline judges, unless the end's were disturbed.
func (r *report) referenceMean(start, end scenarioResult) scenarioResult {
	mean := start
	mean.RPS = (start.RPS + end.RPS) / 2
	if len(start.Servers) == 1 && len(end.Servers) == 1 {
		mean.Servers = []serverResult{start.Servers[0]}
		mean.Servers[0].CPUPerReq = (start.Servers[0].CPUPerReq + end.Servers[0].CPUPerReq) / 2
	}
	if end.disturbed() {
		mean.OtherServerCores, mean.OtherLoadCores, mean.Steal = end.OtherServerCores, end.OtherLoadCores, end.Steal
	}
	if start.RPS > 0 {
		drift := 100 * (end.RPS - start.RPS) / start.RPS
		note := fmt.Sprintf("The reference served %s req/s at the start and %s at the end (%+.0f%%); the ratios are to the mean, %s.",
			thousands(start.RPS), thousands(end.RPS), drift, thousands(mean.RPS))
		if math.Abs(drift) > driftNote {
			note += fmt.Sprintf(" The machine's speed moved during the run, so a ratio is uncertain by about ±%.0f%%: compare runs by their range.", math.Abs(drift)/2)
		}
		r.Notes = append(r.Notes, note)
	}
	return mean
}

// headline decides which ratio the targets are judged by, and says why:
// req/s only if the reference was server-bound, its core saturated while
// the load generator's had headroom, and undisturbed by other processes;
// otherwise its req/s is not what its server can do, and the CPU per
// request is.
func headline(ref scenarioResult, haveRef, pinned bool) (string, string) {
	switch {
	case !haveRef:
		return headlineCPU, "no reference was measured"
	case !pinned || math.IsNaN(ref.ServerCores) || math.IsNaN(ref.LoadCores):
		return headlineCPU, "how busy each core was is unknown (not pinned), so whether the reference was server-bound is too"
	case ref.disturbed():
		return headlineCPU, fmt.Sprintf("other processes used %s of the servers' core / the load generator's (steal %s) while the reference ran, so its req/s is not its server's alone",
			pct(ref.OtherServerCores)+" / "+pct(ref.OtherLoadCores), pct(ref.Steal))
	case ref.ServerCores >= saturated && ref.LoadCores < saturated:
		return headlineRPS, fmt.Sprintf("the reference was server-bound: its core was %.0f%% busy, the load generator's %.0f%% (%s)",
			ref.ServerCores, ref.LoadCores, ref.Generator)
	default:
		return headlineCPU, fmt.Sprintf("the reference was not server-bound: its core was %.0f%% busy, the load generator's %.0f%% (%s), where server-bound means the first at least %d%% and the second under %d%%. Its req/s understates its server, so the req/s ratios flatter the gateway",
			ref.ServerCores, ref.LoadCores, ref.Generator, saturated, saturated)
	}
}

// writeJSON writes the report to path.
func (r *report) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// near formats the ratio x judged against target: two decimals, or three
// when two would round it onto the target (0.798 is no 0.80 next to a
// FAIL against 0.8).
func near(x, target float64) string {
	if math.Abs(x-target) < 0.005 {
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
