package catalogclient

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// countingCatalog answers ListBodyParts and counts the calls it got.
type countingCatalog struct {
	catalogv1.UnimplementedCatalogServiceServer
	calls atomic.Int64
}

func (c *countingCatalog) ListBodyParts(context.Context, *catalogv1.ListBodyPartsRequest) (*catalogv1.ListBodyPartsResponse, error) {
	c.calls.Add(1)
	return &catalogv1.ListBodyPartsResponse{BodyParts: []string{"chest"}, CatalogueVersion: "v"}, nil
}

// serve runs srv on a loopback port until the test ends.
func serve(t testing.TB, srv *grpc.Server) resolver.Address {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return resolver.Address{Addr: ln.Addr().String()}
}

// resolverOf resolves "test:///catalog" to addrs.
func resolverOf(addrs ...resolver.Address) *manual.Resolver {
	r := manual.NewBuilderWithScheme("test")
	r.InitialState(resolver.State{Addresses: addrs})
	return r
}

// TestRoundRobin checks that one Client spreads its calls over every
// address its target resolves to, as dns:/// does for several replicas.
func TestRoundRobin(t *testing.T) {
	var replicas [2]*countingCatalog
	var addrs []resolver.Address
	for i := range replicas {
		replicas[i] = &countingCatalog{}
		srv := grpc.NewServer()
		catalogv1.RegisterCatalogServiceServer(srv, replicas[i])
		addrs = append(addrs, serve(t, srv))
	}
	r := resolverOf(addrs...)
	c, err := New(r.Scheme()+":///catalog", 5*time.Second, 0, grpc.WithResolvers(r))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Until a replica has answered, its connection may not be ready and
	// round-robin skips it; once both have, they alternate strictly.
	deadline := time.Now().Add(10 * time.Second)
	for replicas[0].calls.Load() == 0 || replicas[1].calls.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s, calls per replica: %d and %d", replicas[0].calls.Load(), replicas[1].calls.Load())
		}
		if _, _, err := c.BodyParts(context.Background(), "req_test"); err != nil {
			t.Fatal(err)
		}
	}
	replicas[0].calls.Store(0)
	replicas[1].calls.Store(0)
	for range 20 {
		if _, _, err := c.BodyParts(context.Background(), "req_test"); err != nil {
			t.Fatal(err)
		}
	}
	for i, rep := range replicas {
		if n := rep.calls.Load(); n != 10 {
			t.Errorf("replica %d got %d of 20 calls, want 10", i, n)
		}
	}
}
