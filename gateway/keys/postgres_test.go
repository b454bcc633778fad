package keys

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/exercisedb/exercisedb/internal/pgtest"
)

func openPostgres(t *testing.T, url string, o PostgresOptions) *Postgres {
	t.Helper()
	s, err := OpenPostgres(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// watchPostgres runs s.Watch until the test ends.
func watchPostgres(t *testing.T, s *Postgres) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Watch(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func TestPostgresMigrateTogether(t *testing.T) {
	url, _ := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := OpenPostgres(context.Background(), url, PostgresOptions{})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("OpenPostgres: %v", err)
		}
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM gateway_keys_migrations`).Scan(&n); err != nil || n != 1 {
		t.Errorf("migrations recorded: %d (%v), want 1", n, err)
	}
}

func TestPostgresUnreachableAtStart(t *testing.T) {
	_, err := OpenPostgres(context.Background(), "postgres://gw:secret-pw@127.0.0.1:1/none?connect_timeout=2", PostgresOptions{})
	if err == nil {
		t.Fatal("OpenPostgres of an unreachable database: no error")
	}
	if strings.Contains(err.Error(), "secret-pw") {
		t.Errorf("error shows the password: %v", err)
	}
}

// TestPostgresOutage cuts the network between a replica and the database:
// the replica keeps its keys, logs the outage once, and catches up with the
// changes made meanwhile when the database is back.
func TestPostgresOutage(t *testing.T) {
	direct, _ := pgtest.URL(t)
	admin := openPostgres(t, direct, PostgresOptions{Now: (&clock{t: t0}).Now})
	before := mustCreate(t, admin, New{ID: "key_before", Products: map[string]string{"exercisedb": "Pro"}})

	u, _ := url.Parse(direct)
	proxy := newProxy(t, u.Host)
	u.Host = proxy.addr
	logs := &syncBuffer{}
	replica := openPostgres(t, u.String(), PostgresOptions{Log: slog.New(slog.NewTextHandler(logs, nil))})
	var failures atomic.Int64
	replica.OnSync = func(err error) {
		if err != nil {
			failures.Add(1)
		}
	}
	watchPostgres(t, replica)
	inForce(t, replica, before.Secret, true)

	proxy.cut()
	waitFor(t, "outage seen", func() bool { return !replica.Up() && failures.Load() >= 2 })
	during := mustCreate(t, admin, New{ID: "key_during", Products: map[string]string{"exercisedb": "Pro"}})
	if _, ok := replica.Current().Lookup(before.Secret); !ok {
		t.Error("the keys last loaded are not in force during the outage")
	}
	if n := strings.Count(logs.String(), "key store unreachable"); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logs)
	}

	proxy.restore()
	inForce(t, replica, during.Secret, true)
	waitFor(t, "back up", replica.Up)
	if !strings.Contains(logs.String(), "key store reachable again") {
		t.Errorf("recovery not logged:\n%s", logs)
	}
}

// TestPostgresTerminated drops the replica's connections on the server
// side; it reconnects and resyncs.
func TestPostgresTerminated(t *testing.T) {
	url, schema := pgtest.URL(t)
	s := openPostgres(t, url, PostgresOptions{Now: (&clock{t: t0}).Now})
	var syncs atomic.Int64
	s.OnSync = func(err error) {
		if err == nil {
			syncs.Add(1)
		}
	}
	watchPostgres(t, s)
	waitFor(t, "listening", func() bool { return syncs.Load() > 0 })
	pgtest.Exec(t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, schema)
	k := mustCreate(t, s, New{Products: map[string]string{"exercisedb": "Pro"}})
	inForce(t, s, k.Secret, true)
}

// proxy is a TCP proxy whose traffic a test can cut and restore.
type proxy struct {
	t      *testing.T
	addr   string
	target string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			if p.ln != ln {
				// Cut while this connection was being set up: it must not
				// outlive the cut (the test would wait for an outage that
				// never comes to the replica holding it).
				p.mu.Unlock()
				in.Close()
				out.Close()
				continue
			}
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { io.Copy(in, out); in.Close() }()
			go func() { io.Copy(out, in); out.Close() }()
		}
	}()
}

// cut closes the listener and every connection: new ones are refused.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// restore listens again at the same address.
func (p *proxy) restore() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}
