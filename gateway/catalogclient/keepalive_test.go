package catalogclient

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/grpcapi"
	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/internal/testnet"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

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
			proxy := testnet.NewProxy(t, catalogAddr)
			res := resolverOf(resolver.Address{Addr: proxy.Addr})
			c, err := New(res.Scheme()+":///catalog", timeout, tt.streams, grpc.WithResolvers(res))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			req := ListRequest{Limit: 5}
			if _, err := c.List(context.Background(), "", req); err != nil {
				t.Fatal(err)
			}
			if n := proxy.Silence(); n != 1 {
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
			if n := proxy.Accepted(); n < 2 {
				t.Errorf("%d connections through the proxy, want a second one", n)
			}
		})
	}
}
