package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// writeMarkdown writes the report as Markdown tables, for
// docs/performance.md.
func (r *report) writeMarkdown(w io.Writer) {
	pin := "not pinned"
	if r.Pinned {
		pin = fmt.Sprintf("servers on CPU %s, load generator on CPU %s (taskset)", r.ServerCPUs, r.LoadCPUs)
	}
	fmt.Fprintf(w, "`%s`, %s, %s with %d CPUs; %s. Each scenario: %s warm-up, then %s measured; at the maximum rate %s with %d keep-alive connections, at a fixed rate vegeta with %d.\n\n",
		r.Command, r.Date.UTC().Format("2006-01-02 15:04 UTC"), r.Platform, r.CPUs, pin, r.Warmup, r.Duration, r.Generator, r.Connections, r.LatencyConnections)
	fmt.Fprintf(w, "Listing page (`%s`): %s.\n\n", listingPath, r.pageSizes())

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
	fmt.Fprintln(w, "| scenario | gateway CPU | catalog CPU | reference CPU | catalog calls / req | gateway alloc / req | catalog alloc / req | gateway VmHWM | catalog VmHWM | load generator CPU | servers' core busy | load generator's core busy | other processes' CPU |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
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
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s %.0f%% | %s | %s | %s |\n",
			s.Name, cpu("gateway"), cpu("catalog"), cpu("reference"), calls, alloc("gateway"), alloc("catalog"), hwm("gateway"), hwm("catalog"),
			s.Generator, s.LoadCPU, pct(s.ServerCores), pct(s.LoadCores), r.other(s))
	}

	fmt.Fprintln(w)
	fmt.Fprintf(w, "**Targets judged by %s**: %s.\n", r.Headline, r.HeadlineReason)

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

// pageSizes words the listing page's size, plain and gzipped: "3,659
// bytes, 902 gzipped (2,757 saved, 75%)".
func (r *report) pageSizes() string {
	out := thousands(float64(r.PageBytes)) + " bytes"
	if r.PageGzipBytes > 0 && r.PageBytes > 0 {
		saved := r.PageBytes - r.PageGzipBytes
		out += fmt.Sprintf(", %s gzipped (%s saved, %.0f%%)", thousands(float64(r.PageGzipBytes)), thousands(float64(saved)), 100*float64(saved)/float64(r.PageBytes))
	}
	return out
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
	out := pct(s.OtherServerCores)
	if r.Pinned {
		out = pct(s.OtherServerCores) + " / " + pct(s.OtherLoadCores)
	}
	if s.Steal >= 1 {
		out += fmt.Sprintf(", steal %.0f%%", s.Steal)
	}
	return out
}

// pct formats a percentage, "?" for NaN.
func pct(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return fmt.Sprintf("%.0f%%", v)
}
