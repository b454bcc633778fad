package main

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// load is one attack: requests cycled in order, at a fixed rate or as fast
// as a fixed number of keep-alive connections allows.
type load struct {
	requests []request
	tail     []string // URLs, cycled in order, of the requests marked Tail
	// at is where the cycles are; an attack that shares it with an
	// earlier one (the warm-up) goes on where that one stopped, so that
	// the measured part does not repeat the warm-up's queries.
	at          *cycles
	rate        int // per second; 0: as fast as possible
	duration    time.Duration
	connections int
	// noise, if not empty, is sent as fast as possible on connections of
	// its own for the whole scenario, warm-up included, and not measured:
	// another client's load that the measured one shares the servers with.
	noise []request
}

// cycles count the requests sent of a load's requests and of its tail.
type cycles struct{ requests, tail atomic.Uint64 }

// newLoadClient is the load generator's HTTP client: HTTP/1.1 keep-alive
// connections to the one host, at most connections of them. A scenario
// uses one client for its warm-up and its measurement, so the measured
// part opens no connection, and closes its connections at the end, so the
// servers do not carry the idle connections of earlier scenarios.
func newLoadClient(connections int) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        connections,
		MaxIdleConnsPerHost: connections,
		MaxConnsPerHost:     connections,
		IdleConnTimeout:     time.Minute,
		// Ask for no compression unless a scenario's headers do: the
		// transport would otherwise ask every response gzipped.
		DisableCompression: true,
	}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// loader sends one scenario's load: its warm-up, then its measured part,
// which goes on in the scenario's cycles where the warm-up stopped.
type loader interface {
	attack(ctx context.Context, d time.Duration) (attackResult, error)
	close()
}

// attackResult is what a loader measured.
type attackResult struct {
	summary
	// cpu is the CPU time of the processes the loader ran for the attack
	// (wrk); this process's own is measured around it.
	cpu time.Duration
}

// goLoader sends a load with vegeta, in this process: the only generator
// here with a fixed rate. At the maximum rate its core saturates before
// the reference's does.
type goLoader struct {
	client *http.Client
	l      load
}

func newGoLoader(l load) *goLoader {
	l.at = &cycles{}
	return &goLoader{client: newLoadClient(l.connections), l: l}
}

func (g *goLoader) attack(ctx context.Context, d time.Duration) (attackResult, error) {
	l := g.l
	l.duration = d
	return attackResult{summary: attack(ctx, g.client, l).summary()}, nil
}

func (g *goLoader) close() { g.client.CloseIdleConnections() }

// attack runs l with vegeta through client and tallies the results. Each
// worker holds at most one request in flight, so connections workers use
// at most connections connections.
func attack(ctx context.Context, client *http.Client, l load) *tally {
	at := l.at
	if at == nil {
		at = &cycles{}
	}
	targeter := func(t *vegeta.Target) error {
		r := l.requests[(at.requests.Add(1)-1)%uint64(len(l.requests))]
		t.Method, t.URL, t.Header, t.Body = http.MethodGet, r.URL, r.Header, nil
		if r.Tail {
			if len(l.tail) == 0 {
				return errors.New("a tail request without a tail")
			}
			t.URL = l.tail[(at.tail.Add(1)-1)%uint64(len(l.tail))]
		}
		return nil
	}
	n := uint64(l.connections)
	a := vegeta.NewAttacker(
		vegeta.Client(client),
		vegeta.Workers(n), vegeta.MaxWorkers(n),
		vegeta.Connections(l.connections), vegeta.MaxConnections(l.connections),
		vegeta.KeepAlive(true),
		vegeta.Redirects(vegeta.NoFollow),
		vegeta.MaxBody(0), // read and discard: no body kept per result
	)
	pacer := vegeta.ConstantPacer{} // the zero pacer: no pause at all
	if l.rate > 0 {
		pacer = vegeta.ConstantPacer{Freq: l.rate, Per: time.Second}
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			a.Stop()
		case <-done:
		}
	}()
	t := newTally()
	for r := range a.Attack(vegeta.Targeter(targeter), pacer, l.duration, "") {
		t.add(r.Code, r.Error, r.Timestamp, r.Latency)
	}
	return t
}

// tally accumulates the results of an attack.
type tally struct {
	latencies   []time.Duration
	status      map[int]int
	transport   map[string]int // errors without an HTTP status, by message
	first, last time.Time      // first request sent, last response received
}

func newTally() *tally {
	return &tally{status: map[int]int{}, transport: map[string]int{}}
}

// add records one request sent at start that took lat; code 0 means no
// response (errMsg says why).
func (t *tally) add(code uint16, errMsg string, start time.Time, lat time.Duration) {
	t.latencies = append(t.latencies, lat)
	if code == 0 {
		if errMsg == "" {
			errMsg = "no response"
		}
		t.transport[errMsg]++
	} else {
		t.status[int(code)]++
	}
	if t.first.IsZero() || start.Before(t.first) {
		t.first = start
	}
	if end := start.Add(lat); end.After(t.last) {
		t.last = end
	}
}

// summary is what a report shows of an attack.
type summary struct {
	Requests        int            `json:"requests"`
	Seconds         float64        `json:"seconds"`
	RPS             float64        `json:"requests_per_second"`
	P50             time.Duration  `json:"-"` // in JSON as p50_ms (see scenarioResult)
	P75             time.Duration  `json:"-"`
	P90             time.Duration  `json:"-"`
	P99             time.Duration  `json:"-"`
	Max             time.Duration  `json:"-"`
	Status          map[string]int `json:"status"`
	TransportErrors map[string]int `json:"transport_errors"`
}

// summary computes the figures: requests per second over the time from
// the first request sent to the last response received, and latency
// quantiles by nearest rank.
func (t *tally) summary() summary {
	s := summary{Requests: len(t.latencies), Status: map[string]int{}, TransportErrors: map[string]int{}}
	for code, n := range t.status {
		s.Status[strconv.Itoa(code)] = n
	}
	for msg, n := range t.transport {
		s.TransportErrors[msg] = n
	}
	if s.Requests == 0 {
		return s
	}
	if d := t.last.Sub(t.first); d > 0 {
		s.Seconds = d.Seconds()
		s.RPS = float64(s.Requests) / s.Seconds
	}
	lat := slices.Clone(t.latencies)
	slices.Sort(lat)
	s.P50, s.P75, s.P90 = quantile(lat, 0.50), quantile(lat, 0.75), quantile(lat, 0.90)
	s.P99, s.Max = quantile(lat, 0.99), lat[len(lat)-1]
	return s
}

// quantile is the nearest-rank q-quantile of sorted (not empty).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// transportErrors is the number of requests that got no response.
func (s summary) transportErrors() int {
	n := 0
	for _, c := range s.TransportErrors {
		n += c
	}
	return n
}

// unexpected is the number of responses with a status other than 2xx.
func (s summary) unexpected() int {
	n := 0
	for code, c := range s.Status {
		if code[0] != '2' {
			n += c
		}
	}
	return n
}
