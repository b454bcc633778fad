package catalogclient

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	"github.com/exercisedb/exercisedb/catalog/grpcapi"
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

// preJSONCatalog answers as a catalog older than ExerciseJSON: it ignores
// the json flag, so replies carry Exercise messages.
type preJSONCatalog struct{ *grpcapi.Service }

func (o preJSONCatalog) ListExercises(ctx context.Context, req *catalogv1.ListExercisesRequest) (*catalogv1.ListExercisesResponse, error) {
	req.Json = false
	return o.Service.ListExercises(ctx, req)
}

func (o preJSONCatalog) GetExercise(ctx context.Context, req *catalogv1.GetExerciseRequest) (*catalogv1.GetExerciseResponse, error) {
	req.Json = false
	return o.Service.GetExercise(ctx, req)
}

// A catalog that predates ExerciseJSON gives the same JSON, encoded by
// the client, as one that sends it: listings with every set of content
// fields, searches, relations and single exercises.
func TestOldCatalogSameJSON(t *testing.T) {
	reps, res := replicas(t, 1)
	current := newClient(t, res, 4)
	old := grpc.NewServer()
	catalogv1.RegisterCatalogServiceServer(old, preJSONCatalog{reps[0].svc}) // no Exchange: unary calls
	oldRes := resolverOf(serve(t, old))
	older := newClient(t, oldRes, 4)
	var reqs []ListRequest
	for include := range AllContent + 1 {
		reqs = append(reqs, ListRequest{Limit: 25, Include: include, Filter: Filter{BodyParts: []string{"chest"}}})
	}
	reqs = append(reqs,
		ListRequest{Limit: 10, Filter: Filter{Query: "bench press"}},
		ListRequest{Limit: 10, RelatedTo: "humnn3ws", Relation: Alternatives, Include: Tips},
		ListRequest{Limit: 10, RelatedTo: "humnn3ws", Relation: Variations},
	)
	for _, req := range reqs {
		want, got := list(current, req), list(older, req)
		if want.Err != "" || len(want.Exercises) == 0 {
			t.Fatalf("%+v: %d exercises, error %q", req, len(want.Exercises), want.Err)
		}
		if diff := cmp.Diff(want, got, outcomeOpts); diff != "" {
			t.Errorf("%+v (-current +old catalog):\n%s", req, diff)
		}
	}
	want, _, err := current.Exercise(context.Background(), "", "humnn3ws")
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := older.Exercise(context.Background(), "", "humnn3ws"); err != nil || !cmp.Equal(want, got) {
		t.Errorf("Exercise: old catalog gives %+v, %v; want %+v", got, err, want)
	}
}
