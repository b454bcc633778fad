package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// which Linux fixes at 100 on every architecture Go supports).
const userHZ = 100

// procSample is what /proc says about a process at one instant.
type procSample struct {
	CPU time.Duration // user + system time since the process started
	HWM int64         // VmHWM: peak resident set size since start, bytes
	RSS int64         // VmRSS: resident set size now, bytes
	// RSSFile is the part of RSS that maps files (mostly the binary's
	// own text and data), bytes; -1 if the kernel does not say.
	RSSFile int64
	CPUs    string // Cpus_allowed_list
}

// sampleProc reads /proc/<pid>/stat and /proc/<pid>/status; pid 0 means
// this process.
func sampleProc(pid int) (procSample, error) {
	dir := "/proc/self"
	if pid != 0 {
		dir = "/proc/" + strconv.Itoa(pid)
	}
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return procSample{}, err
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return procSample{}, err
	}
	var s procSample
	if s.CPU, err = parseStatCPU(string(stat)); err != nil {
		return s, err
	}
	if s.HWM, err = statusBytes(string(status), "VmHWM"); err != nil {
		return s, err
	}
	if s.RSS, err = statusBytes(string(status), "VmRSS"); err != nil {
		return s, err
	}
	if s.RSSFile, err = statusBytes(string(status), "RssFile"); err != nil {
		s.RSSFile = -1
	}
	s.CPUs, _ = statusField(string(status), "Cpus_allowed_list")
	return s, nil
}

// parseStatCPU returns utime + stime of a /proc/<pid>/stat line. The
// command name, field 2, is in parentheses and may hold spaces and
// parentheses itself, so fields are counted from the last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("/proc stat: no command name")
	}
	// After ")": state (field 3), ppid (4), ..., utime (14), stime (15).
	f := strings.Fields(stat[i+1:])
	const utime, stime = 14 - 3, 15 - 3
	if len(f) <= stime {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least %d", len(f), stime+1)
	}
	var ticks uint64
	for _, k := range []int{utime, stime} {
		n, err := strconv.ParseUint(f[k], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: field %d: %w", k+3, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / userHZ), nil
}

// statusField returns the value of a "Name:\tvalue" line of
// /proc/<pid>/status, trimmed.
func statusField(status, name string) (string, bool) {
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == name {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// statusBytes returns a "Name:  1234 kB" field of /proc/<pid>/status in
// bytes.
func statusBytes(status, name string) (int64, error) {
	v, ok := statusField(status, name)
	if !ok {
		return 0, fmt.Errorf("/proc status: no %s", name)
	}
	num, unit, _ := strings.Cut(v, " ")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || strings.TrimSpace(unit) != "kB" {
		return 0, fmt.Errorf("/proc status: %s: %q is not a size in kB", name, v)
	}
	return n << 10, nil
}

// sumMetric adds up the samples of a metric in Prometheus text exposition
// format whose label set contains every one of labels (each written as
// name="value"). It reports false when no sample matched.
func sumMetric(text, name string, labels ...string) (float64, bool) {
	var sum float64
	found := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		var labelSet string
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.LastIndexByte(rest, '}')
			if end < 0 {
				continue
			}
			labelSet, rest = rest[1:end], rest[end+1:]
		case strings.HasPrefix(rest, " "):
		default:
			continue // another metric whose name starts with name
		}
		match := true
		for _, l := range labels {
			if !hasLabel(labelSet, l) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		sum += v
		found = true
	}
	return sum, found
}

// hasLabel reports whether a label set (the text between braces) holds
// label, a name="value" pair, as a whole pair.
func hasLabel(set, label string) bool {
	for from := 0; ; {
		i := strings.Index(set[from:], label)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(label)
		if (start == 0 || set[start-1] == ',') && (end == len(set) || set[end] == ',') {
			return true
		}
		from = start + 1
	}
}

// cpuTimes are a CPU's times from /proc/stat, in USER_HZ ticks.
type cpuTimes struct {
	Busy  uint64 // user, nice and system: processes
	IRQ   uint64 // irq and softirq: interrupts, loopback networking among them
	Steal uint64 // time the hypervisor gave to another guest
}

// parseProcStat returns the times of each "cpuN" line of /proc/stat, and
// of the "cpu" line (every CPU) under "cpu".
func parseProcStat(text string) (map[string]cpuTimes, error) {
	out := map[string]cpuTimes{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		// user nice system idle iowait irq softirq steal [guest guest_nice]:
		// guest time is already counted in user and nice.
		if len(f) < 9 {
			return nil, fmt.Errorf("/proc/stat: %s: %d fields, want at least 8 times", f[0], len(f)-1)
		}
		var v [8]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("/proc/stat: %s: %w", f[0], err)
			}
			v[i] = n
		}
		user, nice, system, irq, softirq, steal := v[0], v[1], v[2], v[5], v[6], v[7]
		out[f[0]] = cpuTimes{Busy: user + nice + system, IRQ: irq + softirq, Steal: steal}
	}
	if _, ok := out["cpu"]; !ok {
		return nil, errors.New("/proc/stat: no cpu line")
	}
	return out, nil
}

// busy adds up the times of the given CPUs; nil means every CPU.
func busy(stat map[string]cpuTimes, cpus []int) cpuTimes {
	if cpus == nil {
		return stat["cpu"]
	}
	var t cpuTimes
	for _, c := range cpus {
		ct := stat["cpu"+strconv.Itoa(c)]
		t.Busy += ct.Busy
		t.IRQ += ct.IRQ
		t.Steal += ct.Steal
	}
	return t
}

// parseCPUList parses a CPU list such as "0-1,3" (taskset, sysfs and
// Cpus_allowed_list all write them so).
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("CPU list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// ticks converts a count of USER_HZ ticks to a duration.
func ticks(n uint64) time.Duration { return time.Duration(n) * (time.Second / userHZ) }
