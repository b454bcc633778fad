package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Scenario ids.
const (
	scenarioReference = "reference"
	scenarioListing   = "listing"
	// scenarioListingGzip is the listing for a client that accepts gzip.
	scenarioListingGzip = "listing-gzip"
	scenarioMix         = "mix"
	scenarioCacheOff    = "cache-off"
	scenarioHalfRate    = "half-rate"
	// scenarioReferenceHalfRate is the reference at the half-rate
	// scenario's rate: the latency baseline of that scenario.
	scenarioReferenceHalfRate = "reference-half-rate"
)

// The targets of issue 6.
const (
	targetListingRatio  = 0.5
	targetCacheOffRatio = 0.25
	targetHalfRateP99   = 5 * time.Millisecond
	targetPeakRSS       = 64 << 20
	// targetGzipCost bounds a warm gzip hit's cost over a plain one's
	// (issue 13), measured as the ratio of their request rates.
	targetGzipCost = 1.10
)

// otherCPUNote is the share of a core (percent) that other processes may
// use during a scenario before the report says the run was disturbed.
const otherCPUNote = 10

// report is everything a run measured.
type report struct {
	Date        time.Time `json:"date"`
	Command     string    `json:"command"`
	Platform    string    `json:"platform"`
	CPUs        int       `json:"cpus"`
	Pinned      bool      `json:"pinned"`
	ServerCPUs  string    `json:"server_cpus,omitempty"` // Cpus_allowed_list of the servers, as /proc saw it
	LoadCPUs    string    `json:"load_cpus,omitempty"`   // of the load generator
	Duration    string    `json:"duration"`
	Warmup      string    `json:"warmup"`
	Connections int       `json:"connections"`
	// LatencyConnections are those of the fixed-rate scenarios.
	LatencyConnections int `json:"latency_connections"`
	PageBytes          int `json:"page_bytes"` // size of the listing page (and the reference's body)
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
	Targets []targetResult   `json:"targets"`
	Notes   []string         `json:"notes,omitempty"`
}

// scenarioResult is one scenario's figures.
type scenarioResult struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Rate int    `json:"rate"` // requests per second asked for; 0: as fast as possible
	// Connections of the load generator (and its workers).
	Connections int     `json:"connections"`
	summary             // requests, latencies, statuses
	Ratio       float64 `json:"ratio_to_reference"` // req/s over the reference's
	// CPURatio is the reference's CPU time per request over this
	// scenario's (every server's): what Ratio would be if both ran their
	// core flat out, and far less disturbed by other processes than Ratio.
	CPURatio float64        `json:"cpu_ratio_to_reference"`
	Servers  []serverResult `json:"servers"`
	// CatalogCalls is the catalog's CatalogService calls per request, from
	// its metrics (NaN if they could not be read).
	CatalogCalls float64 `json:"-"`
	// LoadCPU is the load generator's CPU use, in percent of one core.
	LoadCPU float64 `json:"load_generator_cpu_percent"`
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
		P99              float64  `json:"p99_ms"`
		Max              float64  `json:"max_ms"`
		CatalogCalls     *float64 `json:"catalog_calls_per_request,omitempty"`
		OtherServerCores *float64 `json:"other_processes_cpu_percent_server_cores,omitempty"`
		OtherLoadCores   *float64 `json:"other_processes_cpu_percent_load_cores,omitempty"`
	}{plain(s), ms(s.P50), ms(s.P99), ms(s.Max), number(s.CatalogCalls), number(s.OtherServerCores), number(s.OtherLoadCores)})
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

// zeroNaN is v, or 0 for NaN.
func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
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
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	ratioTarget := func(id, name string, want float64) targetResult {
		t := targetResult{Name: fmt.Sprintf("%s ≥ %.2g × reference req/s", name, want), Result: "NOT RUN", Figure: "–"}
		s, ok := r.scenario(id)
		if !ok || !haveRef || ref.RPS == 0 {
			return t
		}
		ratio := s.RPS / ref.RPS
		t.Figure = fmt.Sprintf("%.2f × (%s / %s req/s); by CPU per request %.2f ×", ratio, thousands(s.RPS), thousands(ref.RPS), s.CPURatio)
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
			cost := p.RPS / s.RPS
			gz.Figure = fmt.Sprintf("%.2f × (%s / %s req/s)", cost, thousands(p.RPS), thousands(s.RPS))
			gz.Result = verdict(cost <= targetGzipCost && s.transportErrors() == 0 && s.unexpected() == 0)
		}
	}
	r.Targets = append(r.Targets, gz)

	var disturbed []string
	for _, s := range r.Scenarios {
		if n := s.transportErrors(); n > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d requests got no response (%s).", s.Name, n, strings.Join(slices.Sorted(maps.Keys(s.TransportErrors)), "; ")))
		}
		if n := s.unexpected(); n > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d responses were not 2xx; none is expected (Pro and Basic limits are set out of reach).", s.Name, n))
		}
		if s.Rate == 0 && r.Pinned {
			// How busy each core was, by us and by others.
			loadBusy := s.LoadCPU + zeroNaN(s.OtherLoadCores)
			serverBusy := zeroNaN(s.OtherServerCores)
			for _, sv := range s.Servers {
				serverBusy += sv.CPUPercent
			}
			switch {
			case loadBusy >= 90 && serverBusy < 90:
				r.Notes = append(r.Notes, fmt.Sprintf("%s: the load generator's core was busy %.0f%% of the time (the load generator itself %.0f%%), the servers' %.0f%%: the load generator limits this rate, so it understates what the servers can do.", s.Name, loadBusy, s.LoadCPU, serverBusy))
			case loadBusy < 80 && serverBusy < 80:
				r.Notes = append(r.Notes, fmt.Sprintf("%s: neither core was saturated (load generator's %.0f%%, servers' %.0f%%): latency, not CPU, limited this rate.", s.Name, loadBusy, serverBusy))
			}
		}
		if s.OtherServerCores >= otherCPUNote || s.OtherLoadCores >= otherCPUNote || s.Steal >= otherCPUNote {
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

// writeMarkdown writes the report as Markdown tables, for
// docs/performance.md.
func (r *report) writeMarkdown(w io.Writer) {
	pin := "not pinned"
	if r.Pinned {
		pin = fmt.Sprintf("servers on CPU %s, load generator on CPU %s (taskset)", r.ServerCPUs, r.LoadCPUs)
	}
	fmt.Fprintf(w, "`%s`, %s, %s with %d CPUs; %s. Each scenario: %s warm-up, then %s measured; %d keep-alive connections at the maximum rate, %d at a fixed rate. Listing page: %d bytes.\n\n",
		r.Command, r.Date.UTC().Format("2006-01-02 15:04 UTC"), r.Platform, r.CPUs, pin, r.Warmup, r.Duration, r.Connections, r.LatencyConnections, r.PageBytes)

	fmt.Fprintln(w, "| scenario | rate | req/s | × reference | × reference by CPU / req | p50 | p99 | max | responses | no response |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|---|--:|")
	for _, s := range r.Scenarios {
		rate := "max"
		if s.Rate > 0 {
			rate = thousands(float64(s.Rate)) + "/s"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s | %d |\n",
			s.Name, rate, thousands(s.RPS), s.Ratio, s.CPURatio, millis(s.P50), millis(s.P99), millis(s.Max), statusCounts(s.Status), s.transportErrors())
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | gateway CPU | catalog CPU | reference CPU | catalog calls / req | gateway alloc / req | catalog alloc / req | gateway VmHWM | catalog VmHWM | load generator CPU | other processes' CPU |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, s := range r.Scenarios {
		byName := map[string]serverResult{}
		for _, sv := range s.Servers {
			byName[sv.Name] = sv
		}
		cpu := func(name string) string {
			sv, ok := byName[name]
			if !ok {
				return "–"
			}
			return fmt.Sprintf("%.0f%% · %.0f µs/req", sv.CPUPercent, sv.CPUPerReq)
		}
		alloc := func(name string) string {
			sv, ok := byName[name]
			if !ok || math.IsNaN(sv.AllocPerReq) {
				return "–"
			}
			return kib(sv.AllocPerReq)
		}
		hwm := func(name string) string {
			sv, ok := byName[name]
			if !ok {
				return "–"
			}
			return mib(sv.PeakRSS)
		}
		calls := "–"
		if !math.IsNaN(s.CatalogCalls) {
			calls = fmt.Sprintf("%.2f", s.CatalogCalls)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f%% | %s |\n",
			s.Name, cpu("gateway"), cpu("catalog"), cpu("reference"), calls, alloc("gateway"), alloc("catalog"), hwm("gateway"), hwm("catalog"), s.LoadCPU, r.other(s))
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | figure | result |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, t := range r.Targets {
		fmt.Fprintf(w, "| %s | %s | **%s** |\n", t.Name, t.Figure, t.Result)
	}

	fmt.Fprintln(w)
	fmt.Fprintf(w, "Realistic mix (%d requests, cycled): %s; plans %s.", r.MixSize, shares(r.MixByKind, kindOrder()), shares(r.MixByPlan, []string{"Mega", "Pro", "Basic"}))
	if r.CacheOffCycle > 0 {
		fmt.Fprintf(w, " Cache-off listing: %s distinct queries before one repeats.", thousands(float64(r.CacheOffCycle)))
	}
	if g, ok := r.StartRSS["gateway"]; ok {
		fmt.Fprintf(w, " VmHWM before the first scenario (after the crawl and the check): gateway %s, catalog %s.", mib(g), mib(r.StartRSS["catalog"]))
	}
	fmt.Fprintln(w)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n- %s", n)
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
}

func kindOrder() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// shares formats percentages in the given key order, then any other key.
func shares(m map[string]float64, order []string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range append(order, slices.Sorted(maps.Keys(m))...) {
		if v, ok := m[k]; ok && !seen[k] {
			seen[k] = true
			parts = append(parts, fmt.Sprintf("%s %.0f%%", k, v))
		}
	}
	return strings.Join(parts, ", ")
}

// writeJSON writes the report to path.
func (r *report) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// statusCounts formats status counts in code order: "200: 1,234".
func statusCounts(m map[string]int) string {
	if len(m) == 0 {
		return "–"
	}
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %s", code, thousands(float64(m[code]))))
	}
	return strings.Join(parts, ", ")
}

// thousands formats x rounded to an integer with commas: 12,345.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(math.Round(x)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// millis formats a latency in milliseconds with three significant digits.
func millis(d time.Duration) string {
	v := ms(d)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func kib(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }

// other formats the CPU other processes used during s: on the servers'
// core and the load generator's when pinned, on the machine otherwise.
func (r *report) other(s scenarioResult) string {
	pct := func(v float64) string {
		if math.IsNaN(v) {
			return "?"
		}
		return fmt.Sprintf("%.0f%%", v)
	}
	out := pct(s.OtherServerCores)
	if r.Pinned {
		out = pct(s.OtherServerCores) + " / " + pct(s.OtherLoadCores)
	}
	if s.Steal >= 1 {
		out += fmt.Sprintf(", steal %.0f%%", s.Steal)
	}
	return out
}
