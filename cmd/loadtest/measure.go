package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"
)

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
	// wrk is the path of wrk, which loads the max-rate scenarios; empty:
	// the Go generator loads every scenario.
	wrk string
	// wrkCPUs is wrk's taskset list (empty when not pinned); dir holds its
	// scripts.
	wrkCPUs, dir string
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

// newLoader returns the loader of scenario id: wrk at the maximum rate
// when there is one, the Go generator otherwise.
func (m *measurer) newLoader(id string, l load) (loader, string, error) {
	if l.rate > 0 || m.wrk == "" {
		return newGoLoader(l), "vegeta", nil
	}
	w, err := newWrkLoader(m.wrk, m.wrkCPUs, m.dir, id, l)
	return w, "wrk", err
}

// scenario warms up, then measures l, with the resources of ws.
func (m *measurer) scenario(ctx context.Context, id, name string, l load, ws []watch) (scenarioResult, error) {
	if l.connections == 0 {
		l.connections = m.o.connections
	}
	res := scenarioResult{ID: id, Name: name, Rate: l.rate, Connections: l.connections, CatalogCalls: math.NaN(),
		OtherServerCores: math.NaN(), OtherLoadCores: math.NaN(), ServerCores: math.NaN(), LoadCores: math.NaN()}
	ld, gen, err := m.newLoader(id, l)
	if err != nil {
		return res, err
	}
	defer ld.close()
	res.Generator = gen
	rate := "max rate"
	if l.rate > 0 {
		rate = fmt.Sprintf("%d req/s", l.rate)
	}
	m.progress("%s: %s warm-up, %s at %s (%s)", name, m.o.warmup, m.o.duration, rate, gen)
	if len(l.noise) > 0 {
		noise, _, err := m.newLoader(id+"-noise", load{requests: l.noise, connections: m.o.connections})
		if err != nil {
			return res, err
		}
		defer noise.close()
		nctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Unmeasured: its figures and errors are not this scenario's.
			_, _ = noise.attack(nctx, m.o.warmup+m.o.duration+time.Second)
		}()
		defer func() { stop(); <-done }()
	}
	if m.o.warmup > 0 {
		if _, err := ld.attack(ctx, m.o.warmup); err != nil {
			return res, fmt.Errorf("%s, warm-up: %w", name, err)
		}
	}
	before, err := m.snapshot(ctx, ws)
	if err != nil {
		return res, err
	}
	out, attackErr := ld.attack(ctx, m.o.duration)
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
	if attackErr != nil {
		return res, fmt.Errorf("%s: %w", name, attackErr)
	}
	res.summary = out.summary
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
	loadCPU := after.loadCPU - before.loadCPU + out.cpu
	ours := after.ours - before.ours
	res.LoadCPU = 100 * loadCPU.Seconds() / wall
	if before.stat != nil && after.stat != nil {
		delta := func(cpus []int) (used, steal time.Duration) {
			a, b := busy(after.stat, cpus), busy(before.stat, cpus)
			return ticks(a.Busy - b.Busy), ticks(a.Steal - b.Steal)
		}
		// cores is how busy the cores were, interrupts (the loopback's
		// network processing among them) included.
		cores := func(cpus []int) float64 {
			a, b := busy(after.stat, cpus), busy(before.stat, cpus)
			return percent(ticks(a.Busy+a.IRQ-b.Busy-b.IRQ), wall)
		}
		if m.serverCores != nil && m.loadCores != nil {
			serverBusy, serverSteal := delta(m.serverCores)
			loadBusy, loadSteal := delta(m.loadCores)
			res.OtherServerCores = percent(serverBusy-ours, wall)
			res.OtherLoadCores = percent(loadBusy-loadCPU, wall)
			res.Steal = percent(serverSteal+loadSteal, wall)
			res.ServerCores, res.LoadCores = cores(m.serverCores), cores(m.loadCores)
		} else {
			allBusy, steal := delta(nil)
			res.OtherServerCores = percent(allBusy-ours-loadCPU, wall)
			res.Steal = percent(steal, wall)
		}
	}
	m.progress("%s: %s req/s, p50 %s, p99 %s", name, thousands(res.RPS), millis(res.P50), millis(res.P99))
	return res, nil
}

// percent is d as a share of wall seconds of one core, in percent, at
// least 0.
func percent(d time.Duration, wall float64) float64 { return max(0, 100*d.Seconds()/wall) }
