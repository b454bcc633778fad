package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// wrkInstall is what to do when wrk is missing.
const wrkInstall = "install wrk (Debian and Ubuntu: apt-get install wrk; elsewhere https://github.com/wg/wrk), or use -generator go, whose req/s ratios are flattered because its own core saturates before the reference's"

// findWrk returns the path and version line of wrk.
func findWrk() (path, version string, err error) {
	path, err = exec.LookPath("wrk")
	if err != nil {
		return "", "", fmt.Errorf("wrk not found: %s", wrkInstall)
	}
	// wrk -v prints "wrk 4.1.0 [epoll] Copyright ..." and its usage, and
	// exits 1.
	out, _ := exec.Command(path, "-v").CombinedOutput()
	version = "wrk"
	if f := strings.Fields(string(out)); len(f) > 1 && f[0] == "wrk" {
		version += " " + f[1]
	}
	return path, version, nil
}

// wrkLoader sends one scenario's load with wrk, one thread on the load
// generator's cores. The requests go to a data file that the scenario's
// Lua script reads once: a single request is wrk's static request (no Lua
// per request), several are formatted once and cycled by request().
type wrkLoader struct {
	bin, cpus   string // cpus: taskset list, empty for none
	script      string // path of the Lua script
	base        string // scheme://host:port of every request
	connections int
	// at and tailAt are where the cycles of requests and of the tail are,
	// so that the measured run goes on where the warm-up stopped.
	at, tailAt uint64
}

// newWrkLoader writes l's requests and script to files named for id in
// dir.
func newWrkLoader(bin, cpus, dir, id string, l load) (*wrkLoader, error) {
	base, data, err := wrkData(l.requests)
	if err != nil {
		return nil, err
	}
	prefix := filepath.Join(dir, "wrk-"+id)
	if strings.ContainsAny(prefix, "[]\n") {
		return nil, fmt.Errorf("wrk script path %q: holds a bracket or a newline", prefix)
	}
	dataPath, tailPath, script := prefix+".requests", prefix+".tail", prefix+".lua"
	tail := ""
	if slices.ContainsFunc(l.requests, func(r request) bool { return r.Tail }) {
		if len(l.tail) == 0 {
			return nil, errors.New("a tail request without a tail")
		}
		var paths []string
		for _, u := range l.tail {
			b, p, err := splitURL(u)
			if err != nil {
				return nil, err
			}
			if b != base {
				return nil, fmt.Errorf("tail URL %s: not at %s", u, base)
			}
			paths = append(paths, p)
		}
		tail = strings.Join(paths, "\n") + "\n"
	}
	static := len(l.requests) == 1 && !l.requests[0].Tail
	for path, text := range map[string]string{dataPath: data, tailPath: tail, script: wrkScript(static, dataPath, tailPath)} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	return &wrkLoader{bin: bin, cpus: cpus, script: script, base: base, connections: l.connections}, nil
}

// splitURL returns a URL's scheme://host:port and its path and query.
func splitURL(raw string) (base, path string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", err
	}
	return u.Scheme + "://" + u.Host, u.RequestURI(), nil
}

// wrkData is the data file of requests: a line each, the path and query
// (empty for the next of the tail), then each header as "Name: value",
// separated by tabs. Every request must go to the same base.
func wrkData(rs []request) (base, data string, err error) {
	var b strings.Builder
	for _, r := range rs {
		path := ""
		if !r.Tail {
			rb, p, err := splitURL(r.URL)
			if err != nil {
				return "", "", err
			}
			if base == "" {
				base = rb
			}
			if rb != base {
				return "", "", fmt.Errorf("request %s: not at %s (wrk loads one host)", r.URL, base)
			}
			path = p
		}
		b.WriteString(path)
		for _, name := range slices.Sorted(maps.Keys(r.Header)) {
			for _, v := range r.Header[name] {
				if strings.ContainsAny(name+v, "\t\r\n") {
					return "", "", fmt.Errorf("header %s: %q holds a tab or a newline", name, v)
				}
				fmt.Fprintf(&b, "\t%s: %s", name, v)
			}
		}
		b.WriteByte('\n')
	}
	if base == "" {
		return "", "", errors.New("wrk needs at least one request with a URL")
	}
	return base, b.String(), nil
}

// wrkResultPrefix starts the line of figures the script's done() writes:
// exact microseconds, where wrk's own summary rounds.
const wrkResultPrefix = "loadtest-wrk: "

// wrkScript is the Lua script of a scenario. Status codes are counted from
// wrk's own tally of those above 399 (summary.errors.status): a response()
// hook would make wrk hand every response's headers and body to Lua.
func wrkScript(static bool, dataPath, tailPath string) string {
	request := `
function request()
  local r = reqs[at % n + 1]
  at = at + 1
  if type(r) == "string" then return r end
  local p = tail[tail_at % nt + 1]
  tail_at = tail_at + 1
  return wrk.format("GET", p, r)
end
`
	if static {
		request = "" // wrk builds the request once when there is no request()
	}
	return fmt.Sprintf(`-- Generated by cmd/loadtest: the requests of one scenario, cycled.
local static = %t
local reqs, tail, n, nt = {}, {}, 0, 0
at, tail_at = 0, 0 -- where the cycles are: globals, for done() to read

function init(args)
  at, tail_at = tonumber(args[1]) or 0, tonumber(args[2]) or 0
  for line in io.lines([==[%s]==]) do
    local path, h = nil, {}
    for f in (line .. "\t"):gmatch("([^\t]*)\t") do
      if path == nil then
        path = f
      else
        local name, value = f:match("^([^:]+): (.*)$")
        h[name] = value
      end
    end
    if static then
      wrk.path = path
      for name, value in pairs(h) do wrk.headers[name] = value end
    elseif path == "" then
      reqs[#reqs + 1] = h -- the next of the tail, with these headers
    else
      reqs[#reqs + 1] = wrk.format("GET", path, h)
    end
  end
  for line in io.lines([==[%s]==]) do tail[#tail + 1] = line end
  n, nt = #reqs, #tail
end
%s
local threads = {}
function setup(thread) threads[#threads + 1] = thread end

function done(summary, latency, requests)
  local pos, tail_pos = 0, 0
  for _, t in ipairs(threads) do
    pos, tail_pos = pos + t:get("at"), tail_pos + t:get("tail_at")
  end
  local e = summary.errors
  io.write(string.format(%q ..
    '{"requests":%%.0f,"duration_us":%%.0f,"bytes":%%.0f,' ..
    '"errors":{"connect":%%.0f,"read":%%.0f,"write":%%.0f,"timeout":%%.0f,"status":%%.0f},' ..
    '"latency_us":{"p50":%%.0f,"p75":%%.0f,"p90":%%.0f,"p99":%%.0f,"max":%%.0f},' ..
    '"at":%%.0f,"tail_at":%%.0f}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(75), latency:percentile(90), latency:percentile(99), latency.max,
    pos, tail_pos))
end
`, static, dataPath, tailPath, request, wrkResultPrefix)
}

// wrkResult is the line of figures the script's done() writes.
type wrkResult struct {
	Requests   float64 `json:"requests"`
	DurationUS float64 `json:"duration_us"`
	Bytes      float64 `json:"bytes"`
	Errors     struct {
		Connect, Read, Write, Timeout int
		// Status counts the responses whose status is above 399.
		Status int
	} `json:"errors"`
	LatencyUS struct {
		P50, P75, P90, P99, Max float64
	} `json:"latency_us"`
	At     uint64 `json:"at"`
	TailAt uint64 `json:"tail_at"`
}

// Status keys of a wrk summary, which tells only whether a status was
// above 399. unexpected() counts the second, whose key does not start
// with "2".
const (
	wrkStatusOK    = "2xx or 3xx"
	wrkStatusError = "4xx or 5xx"
)

// parseWrkOutput reads the figures of the script's done() from wrk's
// standard output.
func parseWrkOutput(out string) (wrkResult, summary, error) {
	var w wrkResult
	var line string
	for l := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(l, wrkResultPrefix); ok {
			line = rest
		}
	}
	if line == "" {
		return w, summary{}, fmt.Errorf("wrk wrote no %q line", strings.TrimSpace(wrkResultPrefix))
	}
	if err := json.Unmarshal([]byte(line), &w); err != nil {
		return w, summary{}, fmt.Errorf("wrk's figures: %w", err)
	}
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	s := summary{
		Requests: int(w.Requests),
		Seconds:  w.DurationUS / 1e6,
		P50:      us(w.LatencyUS.P50), P75: us(w.LatencyUS.P75), P90: us(w.LatencyUS.P90),
		P99: us(w.LatencyUS.P99), Max: us(w.LatencyUS.Max),
		Status:          map[string]int{},
		TransportErrors: map[string]int{},
	}
	if s.Seconds > 0 {
		s.RPS = w.Requests / s.Seconds
	}
	if ok := s.Requests - w.Errors.Status; ok > 0 {
		s.Status[wrkStatusOK] = ok
	}
	if w.Errors.Status > 0 {
		s.Status[wrkStatusError] = w.Errors.Status
	}
	for name, n := range map[string]int{"connect": w.Errors.Connect, "read": w.Errors.Read, "write": w.Errors.Write, "timeout": w.Errors.Timeout} {
		if n > 0 {
			s.TransportErrors["socket "+name+" error (wrk)"] = n
		}
	}
	return w, s, nil
}

// attack runs wrk for d, going on in the cycles where the last run
// stopped. Its CPU time comes from the child's resource usage at exit,
// which covers its whole life (/proc/<pid>/stat is gone by then).
func (w *wrkLoader) attack(ctx context.Context, d time.Duration) (attackResult, error) {
	secs := max(1, int(d.Round(time.Second)/time.Second)) // wrk's durations are whole seconds
	cmd := pinnedCommand(w.cpus, w.bin, "-t1", "-c"+strconv.Itoa(w.connections), "-d"+strconv.Itoa(secs)+"s",
		"--latency", "--timeout", "10s", "-s", w.script, w.base+"/",
		"--", strconv.FormatUint(w.at, 10), strconv.FormatUint(w.tailAt, 10))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return attackResult{}, fmt.Errorf("starting wrk: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	stop()
	if ctx.Err() != nil {
		return attackResult{}, ctx.Err()
	}
	if err != nil {
		return attackResult{}, fmt.Errorf("%s: %v: %s%s", strings.Join(cmd.Args, " "), err, stderr.Bytes(), stdout.Bytes())
	}
	res, s, err := parseWrkOutput(stdout.String())
	if err != nil {
		return attackResult{}, fmt.Errorf("%s: %v; it wrote: %s%s", strings.Join(cmd.Args, " "), err, stderr.Bytes(), stdout.Bytes())
	}
	w.at, w.tailAt = res.At, res.TailAt
	return attackResult{summary: s, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

func (w *wrkLoader) close() {}
