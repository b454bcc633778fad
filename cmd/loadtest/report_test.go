package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTally(t *testing.T) {
	tl := newTally()
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	// 100 requests, one every 10 ms, taking 1..100 ms; the last gets no
	// response and three are 503.
	for i := range 100 {
		code, msg := uint16(200), ""
		switch {
		case i == 99:
			code, msg = 0, "connection refused"
		case i%40 == 1:
			code, msg = 503, "503 Service Unavailable"
		}
		tl.add(code, msg, start.Add(time.Duration(i)*10*time.Millisecond), time.Duration(i+1)*time.Millisecond)
	}
	s := tl.summary()
	if s.Requests != 100 {
		t.Errorf("Requests = %d", s.Requests)
	}
	// From the first start to the last end: 990 ms + 100 ms.
	if math.Abs(s.Seconds-1.09) > 1e-9 || math.Abs(s.RPS-100/1.09) > 1e-6 {
		t.Errorf("Seconds = %v, RPS = %v", s.Seconds, s.RPS)
	}
	if s.P50 != 50*time.Millisecond || s.P99 != 99*time.Millisecond || s.Max != 100*time.Millisecond {
		t.Errorf("p50 %v, p99 %v, max %v", s.P50, s.P99, s.Max)
	}
	if s.Status["200"] != 96 || s.Status["503"] != 3 || len(s.Status) != 2 {
		t.Errorf("Status = %v", s.Status)
	}
	if s.TransportErrors["connection refused"] != 1 || s.transportErrors() != 1 || s.unexpected() != 3 {
		t.Errorf("TransportErrors = %v, unexpected = %d", s.TransportErrors, s.unexpected())
	}
	if empty := newTally().summary(); empty.Requests != 0 || empty.RPS != 0 {
		t.Errorf("empty summary = %+v", empty)
	}
}

func TestQuantile(t *testing.T) {
	one := []time.Duration{7}
	if quantile(one, 0.5) != 7 || quantile(one, 0.99) != 7 {
		t.Error("quantile of one value")
	}
	ten := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for q, want := range map[float64]time.Duration{0.5: 5, 0.9: 9, 0.99: 10, 0: 1, 1: 10} {
		if got := quantile(ten, q); got != want {
			t.Errorf("quantile(%v) = %v, want %v", q, got, want)
		}
	}
}

// testReport is a report of five scenarios; the gateway's listing reaches
// listingRPS against a reference of 20,000 req/s.
func testReport(listingRPS, cacheOffRPS float64, halfP99 time.Duration, gatewayHWM int64) *report {
	sc := func(id, name string, rate int, rps float64, p99 time.Duration, servers ...serverResult) scenarioResult {
		return scenarioResult{
			ID: id, Name: name, Rate: rate, Generator: "wrk",
			summary: summary{
				Requests: int(rps * 10), Seconds: 10, RPS: rps, P50: p99 / 4, P99: p99, Max: 2 * p99,
				Status: map[string]int{"200": int(rps * 10)}, TransportErrors: map[string]int{},
			},
			Servers:          servers,
			CatalogCalls:     math.NaN(),
			OtherServerCores: 2, OtherLoadCores: 1,
			ServerCores: 99, LoadCores: 60, LoadCPU: 58,
		}
	}
	srv := func(name string, usPerReq float64) serverResult {
		return serverResult{Name: name, CPUPercent: 99, CPUPerReq: usPerReq, AllocPerReq: math.NaN(), PeakRSS: 30 << 20}
	}
	r := &report{
		Date: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), Command: "loadtest -duration 10s", Platform: "linux/amd64", CPUs: 2,
		Pinned: true, ServerCPUs: "1", LoadCPUs: "0", Generator: "wrk 4.1.0 (one thread)", Duration: "10s", Warmup: "2s", Connections: 64, LatencyConnections: 16, PageBytes: 3618, PageGzipBytes: 902,
		MixSize: 4000, MixByKind: map[string]float64{string(kindSingle): 100}, MixByPlan: map[string]float64{"Mega": 100},
		CacheOffCycle: 34000,
		Scenarios: []scenarioResult{
			sc(scenarioReference, "reference", 0, 20000, 4*time.Millisecond, srv("reference", 50)),
			sc(scenarioListing, "listing", 0, listingRPS, 6*time.Millisecond, srv("gateway", 50), srv("catalog", 10)),
			sc(scenarioMix, "mix", 0, 9000, 7*time.Millisecond, srv("gateway", 90), srv("catalog", 20)),
			sc(scenarioCacheOff, "cache off", 0, cacheOffRPS, 9*time.Millisecond, srv("gateway", 100), srv("catalog", 100)),
			sc(scenarioHalfRate, "half", int(listingRPS/2), listingRPS/2, halfP99, srv("gateway", 80), srv("catalog", 20)),
			sc(scenarioListingGzip, "listing gzip", 0, listingRPS*0.95, 6*time.Millisecond, srv("gateway", 50), srv("catalog", 10)),
			sc(scenarioMediaReference, "media reference", 0, 20000, 4*time.Millisecond, srv("reference-media", 50)),
			sc(scenarioMedia, "media", 0, 19000, 4*time.Millisecond, srv("gateway", 52)),
			sc(scenarioQuiet, "quiet", neighbourRate, neighbourRate, 2*time.Millisecond, srv("gateway", 1)),
			sc(scenarioNoisy, "noisy", neighbourRate, neighbourRate, halfP99, srv("gateway", 90)),
		},
		PeakRSS:  map[string]int64{"gateway": gatewayHWM, "catalog": 30 << 20},
		RSSFile:  map[string]int64{"gateway": 20 << 20},
		StartRSS: map[string]int64{"gateway": 25 << 20, "catalog": 28 << 20},
	}
	r.evaluate()
	return r
}

func TestEvaluate(t *testing.T) {
	r := testReport(17000, 4000, 3*time.Millisecond, 40<<20)
	want := []string{"PASS", "FAIL", "PASS", "PASS", "PASS", "PASS", "PASS", "PASS"}
	for i, tr := range r.Targets {
		if tr.Result != want[i] {
			t.Errorf("target %q: %s (%s), want %s", tr.Name, tr.Result, tr.Figure, want[i])
		}
	}
	if s, _ := r.scenario(scenarioListing); s.Ratio != 0.85 || s.CPURatio != 50.0/60 {
		t.Errorf("listing: ratio %v, by CPU %v; want 0.85 and 0.83", s.Ratio, s.CPURatio)
	}
	if got, want := r.Targets[0].Figure, "0.85 × by req/s (17,000 / 20,000); 0.83 × by CPU per request (50 / 60 µs)"; got != want {
		t.Errorf("figure %q, want %q", got, want)
	}
	if r.Headline != headlineRPS || !strings.Contains(r.HeadlineReason, "server-bound: its core was 99% busy, the load generator's 60% (wrk)") {
		t.Errorf("headline %s: %s", r.Headline, r.HeadlineReason)
	}
	if r.Targets[2].Figure != "3.00 ms at 8,500 req/s" {
		t.Errorf("half-rate figure %q", r.Targets[2].Figure)
	}

	r.Scenarios = append(r.Scenarios, scenarioResult{ID: scenarioReferenceHalfRate, Name: "reference at half", Rate: 6000,
		summary: summary{Requests: 60000, Seconds: 10, RPS: 6000, P50: 200 * time.Microsecond, P99: 1500 * time.Microsecond, Max: 3 * time.Millisecond}})
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if got, want := r.Targets[2].Figure, "3.00 ms at 8,500 req/s (the reference at that rate: 1.50 ms)"; got != want {
		t.Errorf("half-rate figure %q, want %q", got, want)
	}

	r = testReport(9000, 7500, 5*time.Millisecond, 64<<20)
	want = []string{"FAIL", "PASS", "FAIL", "FAIL", "PASS", "PASS", "PASS", "FAIL"}
	for i, tr := range r.Targets {
		if tr.Result != want[i] {
			t.Errorf("target %q: %s (%s), want %s", tr.Name, tr.Result, tr.Figure, want[i])
		}
	}

	// The load generator's core saturated first: the targets are judged
	// by CPU per request, where the listing passes (0.83 ×, 0.45 × by
	// req/s).
	r.Scenarios[0].LoadCores, r.Scenarios[0].ServerCores = 97, 80
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if r.Headline != headlineCPU || !strings.Contains(r.HeadlineReason, "not server-bound: its core was 80% busy, the load generator's 97% (wrk)") {
		t.Errorf("headline %s: %s", r.Headline, r.HeadlineReason)
	}
	if got := r.Targets[0]; got.Result != "PASS" || !strings.HasPrefix(got.Figure, "0.83 × by CPU per request (50 / 60 µs); 0.45 × by req/s") {
		t.Errorf("listing judged by CPU: %+v", got)
	}
	if got := r.Targets[5]; got.Result != "PASS" || !strings.HasPrefix(got.Figure, "1.00 × by CPU per request (60 / 60 µs)") {
		t.Errorf("gzip judged by CPU: %+v", got)
	}

	// Another process on the servers' core: not the reference's req/s.
	r.Scenarios[0].LoadCores, r.Scenarios[0].ServerCores, r.Scenarios[0].OtherServerCores = 60, 99, 30
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if r.Headline != headlineCPU || !strings.HasPrefix(r.HeadlineReason, "other processes used 30% / 1% of the servers' core") {
		t.Errorf("headline %s: %s", r.Headline, r.HeadlineReason)
	}

	// The reference undisturbed, the listing disturbed: that target alone
	// is judged by CPU per request.
	r.Scenarios[0].OtherServerCores = 2
	r.Scenarios[1].OtherServerCores = 40
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if got := r.Targets[0]; r.Headline != headlineRPS || got.Result != "PASS" ||
		!strings.HasSuffix(got.Figure, "(judged by CPU per request: other processes used 40% / 1% during listing)") {
		t.Errorf("%s; disturbed listing: %+v", r.Headline, got)
	}
	if got := r.Targets[1]; !strings.HasPrefix(got.Figure, "0.38 × by req/s") {
		t.Errorf("undisturbed cache-off: %+v", got)
	}
}

// With the reference measured again at the end, the ratios are to the
// mean of both, and a drift is noted.
func TestEvaluateReferenceDrift(t *testing.T) {
	r := testReport(17000, 4000, 3*time.Millisecond, 40<<20)
	end := r.Scenarios[0]
	end.ID, end.Name, end.RPS = scenarioReferenceEnd, "reference again", 16000
	end.Servers = []serverResult{{Name: "reference", CPUPercent: 99, CPUPerReq: 70, AllocPerReq: math.NaN()}}
	r.Scenarios = append(r.Scenarios, end)
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if s, _ := r.scenario(scenarioListing); math.Abs(s.Ratio-17000.0/18000) > 1e-9 || math.Abs(s.CPURatio-60.0/60) > 1e-9 {
		t.Errorf("listing: ratio %v, by CPU %v; want %v and 1", s.Ratio, s.CPURatio, 17000.0/18000)
	}
	if got, want := r.Targets[0].Figure, "0.94 × by req/s (17,000 / 18,000); 1.00 × by CPU per request (60 / 60 µs)"; got != want {
		t.Errorf("figure %q, want %q", got, want)
	}
	note := strings.Join(r.Notes, "\n")
	if !strings.Contains(note, "The reference served 20,000 req/s at the start and 16,000 at the end (-20%); the ratios are to the mean, 18,000.") ||
		!strings.Contains(note, "uncertain by about ±10%") {
		t.Errorf("notes:\n%s", note)
	}

	// A steady reference: the note says so without the warning.
	r.Scenarios[len(r.Scenarios)-1].RPS = 20400
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if note := strings.Join(r.Notes, "\n"); !strings.Contains(note, "(+2%)") || strings.Contains(note, "uncertain") {
		t.Errorf("notes:\n%s", note)
	}
}

func TestEvaluateErrorsAndMissing(t *testing.T) {
	r := testReport(15000, 6000, time.Millisecond, 1<<20)
	r.Scenarios[1].Status["503"] = 5
	r.Scenarios[1].TransportErrors["EOF"] = 1
	r.Scenarios = append(r.Scenarios[:3], r.Scenarios[4]) // no cache-off run
	delete(r.PeakRSS, "catalog")
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if got := r.Targets[0]; got.Result != "FAIL" || !strings.HasSuffix(got.Figure, "with errors") {
		t.Errorf("listing with errors: %+v", got)
	}
	if r.Targets[1].Result != "NOT RUN" || r.Targets[4].Result != "NOT RUN" {
		t.Errorf("missing figures: %+v", r.Targets)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"1 requests got no response (EOF)", "5 responses were not 2xx"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

func TestEvaluateNotes(t *testing.T) {
	r := testReport(15000, 6000, time.Millisecond, 1<<20)
	// The load generator limits the reference; neither core is saturated
	// in the mix.
	r.Scenarios[0].LoadCPU, r.Scenarios[0].LoadCores, r.Scenarios[0].ServerCores = 97, 98, 62
	r.Scenarios[2].LoadCores, r.Scenarios[2].ServerCores = 31, 52
	r.Scenarios[1].OtherServerCores = 35
	r.Scenarios[4].summary.RPS = 100 // far below its rate
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{
		"reference: the load generator's core was busy 98% of the time (the load generator itself 97%), the servers' 62%",
		"mix: neither core was saturated (load generator's 31%, servers' 52%)",
		"Other processes used 10% or more of a core (servers' core / load generator's) during: listing (35% / 1%).",
		"half: reached 100 of the 7,500 req/s",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if len(r.Notes) != 4 {
		t.Errorf("%d notes, want 4:\n%s", len(r.Notes), notes)
	}

	r = testReport(15000, 6000, time.Millisecond, 1<<20)
	r.Pinned = false
	for i := range r.Scenarios {
		r.Scenarios[i].ServerCores, r.Scenarios[i].LoadCores = math.NaN(), math.NaN()
	}
	r.Targets, r.Notes = nil, nil
	r.evaluate()
	if len(r.Notes) != 1 || !strings.HasPrefix(r.Notes[0], "Not pinned") {
		t.Errorf("notes of an unpinned run: %q", r.Notes)
	}
	if r.Headline != headlineCPU {
		t.Errorf("unpinned headline %s", r.Headline)
	}
}

func TestWriteMarkdown(t *testing.T) {
	r := testReport(17000, 4000, 3*time.Millisecond, 40<<20)
	var b bytes.Buffer
	r.writeMarkdown(&b)
	out := b.String()
	for _, want := range []string{
		"`loadtest -duration 10s`, 2026-11-21 12:00 UTC, linux/amd64 with 2 CPUs; servers on CPU 1, load generator on CPU 0 (taskset).",
		"Listing page (`/api/v1/exercises?limit=10`): 3,618 bytes, 902 gzipped (2,716 saved, 75%).",
		"at the maximum rate wrk 4.1.0 (one thread) with 64 keep-alive connections, at a fixed rate vegeta with 16.",
		"| reference | max | 20,000 | 1.00 | 1.00 | 1.00 ms | 4.00 ms | 8.00 ms | 200: 200,000 | 0 |",
		"| listing | max | 17,000 | 0.85 | 0.83 | 1.50 ms | 6.00 ms | 12.0 ms | 200: 170,000 | 0 |",
		"| half | 8,500/s | 8,500 | 0.42 |",
		"| listing | 99% · 50 µs/req | 99% · 10 µs/req | – | – | – | – | 30.0 MiB | 30.0 MiB | wrk 58% | 99% | 60% | 2% / 1% |",
		"**Targets judged by req/s**: the reference was server-bound: its core was 99% busy, the load generator's 60% (wrk).",
		"| reference | – | – | 99% · 50 µs/req |",
		"| listing, warm gateway ≥ 0.8 × reference | 0.85 × by req/s (17,000 / 20,000); 0.83 × by CPU per request (50 / 60 µs) | **PASS** |",
		"| listing, every request reaches the catalog (cache off) ≥ 0.35 × reference | 0.20 × by req/s (4,000 / 20,000); 0.25 × by CPU per request (50 / 200 µs) | **FAIL** |",
		"| gateway peak RSS (VmHWM) under load < 64.0 MiB | 40.0 MiB (file-backed at the end: 20.0 MiB) | **PASS** |",
		"| catalog peak RSS (VmHWM) under load < 64.0 MiB | 30.0 MiB | **PASS** |",
		"Cache-off listing: 34,000 distinct queries",
		"VmHWM before the first scenario (after the crawl and the check): gateway 25.0 MiB, catalog 28.0 MiB.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out)
		}
	}
	r.PageGzipBytes = 0
	if got, want := r.pageSizes(), "3,618 bytes"; got != want {
		t.Errorf("page sizes without the gzipped one: %q, want %q", got, want)
	}
	// Every table row has the header's number of cells.
	for table := range strings.SplitSeq(out, "\n\n") {
		lines := strings.Split(strings.TrimSpace(table), "\n")
		if !strings.HasPrefix(lines[0], "|") {
			continue
		}
		cells := strings.Count(lines[0], "|")
		for _, l := range lines[1:] {
			if strings.Count(l, "|") != cells {
				t.Errorf("row %q: %d separators, the header has %d", l, strings.Count(l, "|"), cells)
			}
		}
	}
}

func TestWriteJSON(t *testing.T) {
	r := testReport(17000, 4000, 3*time.Millisecond, 40<<20)
	r.Scenarios[1].CatalogCalls = 0.25
	path := filepath.Join(t.TempDir(), "out.json")
	if err := r.writeJSON(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		PageBytes     int `json:"page_bytes"`
		PageGzipBytes int `json:"page_gzip_bytes"`
		Scenarios     []struct {
			ID           string         `json:"id"`
			RPS          float64        `json:"requests_per_second"`
			P99          float64        `json:"p99_ms"`
			Ratio        float64        `json:"ratio_to_reference"`
			CatalogCalls *float64       `json:"catalog_calls_per_request"`
			Status       map[string]int `json:"status"`
			Servers      []struct {
				Name  string   `json:"name"`
				Alloc *float64 `json:"alloc_bytes_per_request"`
			} `json:"servers"`
		} `json:"scenarios"`
		Targets []targetResult `json:"targets"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(got.Scenarios) != 10 || got.Scenarios[1].ID != scenarioListing || got.Scenarios[1].RPS != 17000 || got.Scenarios[1].P99 != 6 || got.Scenarios[1].Ratio != 0.85 {
		t.Errorf("scenarios = %+v", got.Scenarios)
	}
	if got.PageBytes != 3618 || got.PageGzipBytes != 902 {
		t.Errorf("page_bytes %d, page_gzip_bytes %d; want 3618 and 902", got.PageBytes, got.PageGzipBytes)
	}
	if c := got.Scenarios[1].CatalogCalls; c == nil || *c != 0.25 {
		t.Errorf("catalog calls = %v, want 0.25", c)
	}
	if got.Scenarios[0].CatalogCalls != nil || got.Scenarios[0].Servers[0].Alloc != nil {
		t.Error("unknown figures (NaN) are not left out")
	}
	if len(got.Targets) != 8 || got.Targets[0].Result != "PASS" {
		t.Errorf("targets = %+v", got.Targets)
	}
}

func TestFormats(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 999.4: "999", 1000: "1,000", 1234567.8: "1,234,568", -1234: "-1,234"} {
		if got := thousands(x); got != want {
			t.Errorf("thousands(%v) = %q, want %q", x, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		450 * time.Microsecond:   "0.45 ms",
		4999 * time.Microsecond:  "5.00 ms",
		12345 * time.Microsecond: "12.3 ms",
		170 * time.Millisecond:   "170 ms",
	} {
		if got := millis(d); got != want {
			t.Errorf("millis(%v) = %q, want %q", d, got, want)
		}
	}
	if got := statusCounts(map[string]int{"503": 2, "200": 1500}); got != "200: 1,500, 503: 2" {
		t.Errorf("statusCounts = %q", got)
	}
	if got := shares(map[string]float64{"b": 20, "a": 80, "z": 0.4}, []string{"a", "b"}); got != "a 80%, b 20%, z 0%" {
		t.Errorf("shares = %q", got)
	}
}

func TestNear(t *testing.T) {
	for _, tc := range []struct {
		x, target float64
		want      string
	}{
		{0.7981, 0.8, "0.798"},
		{0.8049, 0.8, "0.805"},
		{0.85, 0.8, "0.85"},
		{0.2234, 0.35, "0.22"},
		{1.1012, 1.10, "1.101"},
	} {
		if got := near(tc.x, tc.target); got != tc.want {
			t.Errorf("near(%v, %v) = %s, want %s", tc.x, tc.target, got, tc.want)
		}
	}
}
