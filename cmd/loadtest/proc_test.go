package main

import (
	"slices"
	"testing"
	"time"
)

// A /proc/<pid>/stat line whose command name holds a space and a ')'.
const statFixture = "4242 (gate way) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 " +
	"250 75 0 0 20 0 9 0 123456 1790000000 15000 18446744073709551615 1 1 0 0 0 0 0 0 2143420159 0 0 0 17 1 0 0 0 0 0\n"

const statusFixture = `Name:	gateway
Umask:	0022
State:	S (sleeping)
VmPeak:	 1805212 kB
VmHWM:	   63672 kB
VmRSS:	   61708 kB
RssAnon:	   41852 kB
RssFile:	   19856 kB
Threads:	8
Cpus_allowed:	2
Cpus_allowed_list:	1
`

func TestParseStatCPU(t *testing.T) {
	got, err := parseStatCPU(statFixture)
	if err != nil {
		t.Fatal(err)
	}
	// utime 250 + stime 75 ticks of 10 ms.
	if want := 3250 * time.Millisecond; got != want {
		t.Errorf("parseStatCPU = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "1 (x) S 1 2 3", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 11 12 13"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("parseStatCPU(%q): no error", bad)
		}
	}
}

func TestStatusFields(t *testing.T) {
	hwm, err := statusBytes(statusFixture, "VmHWM")
	if err != nil || hwm != 63672<<10 {
		t.Errorf("VmHWM = %d, %v; want %d", hwm, err, 63672<<10)
	}
	rss, err := statusBytes(statusFixture, "VmRSS")
	if err != nil || rss != 61708<<10 {
		t.Errorf("VmRSS = %d, %v; want %d", rss, err, 61708<<10)
	}
	if f, err := statusBytes(statusFixture, "RssFile"); err != nil || f != 19856<<10 {
		t.Errorf("RssFile = %d, %v", f, err)
	}
	if v, ok := statusField(statusFixture, "Cpus_allowed_list"); !ok || v != "1" {
		t.Errorf("Cpus_allowed_list = %q, %v", v, ok)
	}
	if _, err := statusBytes(statusFixture, "VmSwap"); err == nil {
		t.Error("a missing field: no error")
	}
	if _, err := statusBytes(statusFixture, "Threads"); err == nil {
		t.Error("a field without kB: no error")
	}
}

func TestSampleProcSelf(t *testing.T) {
	s, err := sampleProc(0)
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if s.HWM <= 0 || s.RSS <= 0 || s.HWM < s.RSS || s.CPUs == "" {
		t.Errorf("sampleProc(self) = %+v", s)
	}
}

const metricsFixture = `# HELP go_memstats_alloc_bytes Number of bytes allocated in heap and currently in use.
# TYPE go_memstats_alloc_bytes gauge
go_memstats_alloc_bytes 2.5e+06
go_memstats_alloc_bytes_total 8.19664e+06
grpc_server_handled_total{grpc_code="OK",grpc_method="ListExercises",grpc_service="exercisedb.catalog.v1.CatalogService",grpc_type="unary"} 120
grpc_server_handled_total{grpc_code="InvalidArgument",grpc_method="ListExercises",grpc_service="exercisedb.catalog.v1.CatalogService",grpc_type="unary"} 3
grpc_server_handled_total{grpc_code="OK",grpc_method="Check",grpc_service="grpc.health.v1.Health",grpc_type="unary"} 40
grpc_server_handled_total{grpc_code="OK",grpc_method="X",grpc_service="exercisedb.catalog.v1.CatalogService2",grpc_type="unary"} 1000
grpc_server_handled_totalx 5
`

func TestSumMetric(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
		found  bool
	}{
		{"go_memstats_alloc_bytes_total", nil, 8.19664e+06, true},
		{"go_memstats_alloc_bytes", nil, 2.5e+06, true},
		{"grpc_server_handled_total", []string{`grpc_service="exercisedb.catalog.v1.CatalogService"`}, 123, true},
		{"grpc_server_handled_total", []string{`grpc_service="exercisedb.catalog.v1.CatalogService"`, `grpc_code="OK"`}, 120, true},
		{"grpc_server_handled_total", nil, 1163, true},
		{"grpc_server_handled_total", []string{`grpc_service="nothing"`}, 0, false},
		{"process_cpu_seconds_total", nil, 0, false},
	} {
		got, found := sumMetric(metricsFixture, c.name, c.labels...)
		if got != c.want || found != c.found {
			t.Errorf("sumMetric(%s, %q) = %v, %v; want %v, %v", c.name, c.labels, got, found, c.want, c.found)
		}
	}
}

func TestHasLabel(t *testing.T) {
	for _, c := range []struct {
		set, label string
		want       bool
	}{
		{`a="1",b="2"`, `a="1"`, true},
		{`a="1",b="2"`, `b="2"`, true},
		{`xa="1",a="1"`, `a="1"`, true},
		{`xa="1"`, `a="1"`, false},
		{`a="12"`, `a="1"`, false},
		{``, `a="1"`, false},
	} {
		if got := hasLabel(c.set, c.label); got != c.want {
			t.Errorf("hasLabel(%q, %q) = %v, want %v", c.set, c.label, got, c.want)
		}
	}
}

const procStatFixture = `cpu  214125 0 44232 312020 1270 0 2428 102 0 0
cpu0 100758 0 21352 164649 298 0 561 47 0 0
cpu1 113366 0 22879 147371 971 0 1867 55 0 0
intr 1234 0 0
ctxt 99
`

func TestParseProcStat(t *testing.T) {
	stat, err := parseProcStat(procStatFixture)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stat["cpu1"], (cpuTimes{Busy: 113366 + 22879, IRQ: 1867, Steal: 55}); got != want {
		t.Errorf("cpu1 = %+v, want %+v", got, want)
	}
	if got, want := busy(stat, []int{0, 1}), (cpuTimes{Busy: 100758 + 21352 + 113366 + 22879, IRQ: 561 + 1867, Steal: 102}); got != want {
		t.Errorf("busy(0,1) = %+v, want %+v", got, want)
	}
	if got, want := busy(stat, nil), stat["cpu"]; got != want {
		t.Errorf("busy(nil) = %+v, want the cpu line %+v", got, want)
	}
	if _, err := parseProcStat("intr 1\n"); err == nil {
		t.Error("no cpu line: no error")
	}
	if _, err := parseProcStat("cpu 1 2 3\n"); err == nil {
		t.Error("a short cpu line: no error")
	}
}

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string][]int{"1": {1}, "0-1": {0, 1}, "0-2,5\n": {0, 1, 2, 5}} {
		got, err := parseCPUList(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "1-x"} {
		if _, err := parseCPUList(bad); err == nil {
			t.Errorf("parseCPUList(%q): no error", bad)
		}
	}
}
