package catalogclient

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/grpcapi"
	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// blackhole is a TCP proxy whose connections can go silent: they stop
// forwarding in both directions, but neither side is closed and every
// byte is still read (so acknowledged), as on a path through a NAT or a
// firewall that forgot the connection, or to a host that froze. New
// connections are forwarded.
type blackhole struct {
	addr     string
	accepted atomic.Int64

	mu    sync.Mutex
	conns []*silenced
}

type silenced struct {
	silent atomic.Bool
}

func newBlackhole(t *testing.T, target string) *blackhole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackhole{addr: ln.Addr().String()}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		socks []net.Conn
	)
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			b.accepted.Add(1)
			mu.Lock()
			socks = append(socks, in, out)
			mu.Unlock()
			s := &silenced{}
			b.mu.Lock()
			b.conns = append(b.conns, s)
			b.mu.Unlock()
			wg.Go(func() { s.pump(out, in) })
			wg.Go(func() { s.pump(in, out) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range socks {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return b
}

// pump copies src to dst until the connection is silenced, then reads and
// drops what src sends; it closes both once src is closed.
func (s *silenced) pump(dst, src net.Conn) {
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !s.silent.Load() {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// silence makes every open connection silent and reports how many.
func (b *blackhole) silence() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.conns {
		s.silent.Store(true)
	}
	return len(b.conns)
}

// A connection to the catalog that goes silent is noticed by the client's
// keepalive within pingEvery+pingTimeout of the last answer, not when the call's timeout or the operating system gives up:
// over Exchange the call is then sent again on a new connection and
// answered; as an RPC it fails, and the next call is answered.
func TestKeepaliveNoticesASilentConnection(t *testing.T) {
	cat, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	// The catalog's own server: its keepalive policy must accept the
	// client's pings.
	svc := &grpcapi.Service{}
	srv, _ := grpcapi.NewServer(svc, logging.NewLines(slog.New(slog.NewTextHandler(io.Discard, nil)), nil, ""), prometheus.NewRegistry())
	svc.Swap(cat)
	catalogAddr := serve(t, srv).Addr

	const (
		// Longer than the bound below: without keepalive the call would
		// hang on the silent connection until this timeout.
		timeout = 30 * time.Second
		// The test takes pingEvery+pingTimeout, 13s: grpc-go raises a
		// keepalive time under 10s to 10s, so shorter settings for the
		// test would save little.
		bound = pingEvery + pingTimeout + 2*time.Second
	)
	for _, tt := range []struct {
		name    string
		streams int
	}{{"exchange", 2}, {"unary", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proxy := newBlackhole(t, catalogAddr)
			res := resolverOf(resolver.Address{Addr: proxy.addr})
			c, err := New(res.Scheme()+":///catalog", timeout, tt.streams, grpc.WithResolvers(res))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			req := ListRequest{Limit: 5}
			if _, err := c.List(context.Background(), "", req); err != nil {
				t.Fatal(err)
			}
			if n := proxy.silence(); n != 1 {
				t.Fatalf("%d connections through the proxy, want the client's one", n)
			}

			start := time.Now()
			_, err = c.List(context.Background(), "", req)
			took := time.Since(start)
			t.Logf("the call on the silent connection ended after %v: %v", took.Round(time.Millisecond), err)
			if err != nil {
				var e *apierror.Error
				if tt.streams > 0 || !errors.As(err, &e) || e.Status != 503 {
					t.Errorf("List on the silent connection = %v, want an answer over a new connection (exchange) or a 503 (unary)", err)
				}
			}
			if took > bound {
				t.Fatalf("the call on the silent connection took %v, want at most %v (keepalive %v, %v)", took.Round(time.Millisecond), bound, pingEvery, pingTimeout)
			}
			if _, err := c.List(context.Background(), "", req); err != nil {
				t.Errorf("List after the silent connection was given up: %v", err)
			}
			if n := proxy.accepted.Load(); n < 2 {
				t.Errorf("%d connections through the proxy, want a second one", n)
			}
		})
	}
}
