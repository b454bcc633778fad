package catalogclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/grpcapi"
	"github.com/exercisedb/exercisedb/gateway/apierror"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// replica is one real catalog server on a TCP port.
type replica struct {
	svc *grpcapi.Service
	srv *grpc.Server
	reg *prometheus.Registry
}

// exchanged counts the calls the replica served over Exchange.
func (r *replica) exchanged(t *testing.T) float64 {
	t.Helper()
	mfs, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0.0
	for _, mf := range mfs {
		if mf.GetName() == "exercisedb_catalog_exchange_calls_total" {
			for _, m := range mf.Metric {
				n += m.Counter.GetValue()
			}
		}
	}
	return n
}

// replicas starts n catalogs serving the embedded catalogue and returns
// them with a resolver naming all of them.
func replicas(t testing.TB, n int) ([]*replica, *manual.Resolver) {
	t.Helper()
	cat, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	var (
		out   []*replica
		addrs []resolver.Address
	)
	for range n {
		r := &replica{svc: &grpcapi.Service{}, reg: prometheus.NewRegistry()}
		r.srv, _ = grpcapi.NewServer(r.svc, logging.NewLines(slog.New(slog.NewTextHandler(io.Discard, nil)), nil, ""), r.reg)
		r.svc.Swap(cat)
		out = append(out, r)
		addrs = append(addrs, serve(t, r.srv))
	}
	return out, resolverOf(addrs...)
}

func newClient(t *testing.T, res *manual.Resolver, streams int) *Client {
	t.Helper()
	c, err := New(res.Scheme()+":///catalog", 5*time.Second, streams, grpc.WithResolvers(res))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// listings are requests whose pages differ: every cursor of a walk over
// the catalogue, with and without a filter, and requests the catalog
// refuses.
func listings(t *testing.T, c *Client) []ListRequest {
	t.Helper()
	var reqs []ListRequest
	for _, f := range []Filter{{}, {BodyParts: []string{"chest"}}} {
		req := ListRequest{Filter: f, Limit: 25}
		for {
			reqs = append(reqs, req)
			p, err := c.List(context.Background(), "", req)
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasNextPage {
				break
			}
			req.After = p.NextCursor
		}
	}
	return append(reqs,
		ListRequest{Filter: Filter{BodyParts: []string{"chst"}}, Limit: 10},
		ListRequest{Limit: 10, After: "zzz", Before: "aaa"},
		ListRequest{Limit: 10, After: reqs[len(reqs)-1].After, RecordCap: 5},
	)
}

type outcome struct {
	Page      *Page
	Exercises []ExerciseJSON
	Err       string
}

// outcomeOpts compare pages by their exported fields, the exercises
// being compared as outcome.Exercises, and byte slices (records' JSON)
// with bytes.Equal: cmp walking them byte by byte through reflection took
// whole cores under the race detector, enough to starve the calls under
// test past their deadline.
var outcomeOpts = cmp.Options{cmpopts.IgnoreUnexported(Page{}), cmp.Comparer(bytes.Equal)}

func list(c *Client, req ListRequest) outcome {
	p, err := c.List(context.Background(), "req_test", req)
	o := outcome{Page: p}
	if p != nil {
		for i := range p.Len() {
			o.Exercises = append(o.Exercises, p.JSON(i))
		}
	}
	var (
		e      *apierror.Error
		bad    *ArgumentError
		capped *BeyondCapError
	)
	switch {
	case err == nil:
	case errors.As(err, &bad), errors.As(err, &capped):
		o.Err = err.Error()
	case errors.As(err, &e):
		o.Err = fmt.Sprintf("%d %s", e.Status, e.Message)
	default:
		o.Err = fmt.Sprintf("neither *apierror.Error nor a refused value: %v", err)
	}
	return o
}

// Calls sent concurrently over Exchange get what one RPC each would get,
// errors included, and the streams spread over the replicas.
func TestExchangeAnswersAsUnaryCalls(t *testing.T) {
	defer func(n int) { streamBatches = n }(streamBatches)
	streamBatches = 1 // a new stream for every batch: spread, and retired while answering
	reps, res := replicas(t, 2)
	unary, batched := newClient(t, res, 0), newClient(t, res, 4)
	reqs := listings(t, unary)
	want := make([]outcome, len(reqs))
	for i, req := range reqs {
		want[i] = list(unary, req)
	}
	// New streams go round-robin to the replicas that are ready: once
	// both are, every one gets some.
	deadline := time.Now().Add(10 * time.Second)
	for reps[0].exchanged(t) == 0 || reps[1].exchanged(t) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s, exchanged calls per replica: %v and %v", reps[0].exchanged(t), reps[1].exchanged(t))
		}
		list(batched, reqs[0])
	}
	got := make([]outcome, len(reqs))
	var wg sync.WaitGroup
	for round := range 3 {
		for i, req := range reqs {
			wg.Go(func() {
				if o := list(batched, req); round == 0 {
					got[i] = o
				} else if diff := cmp.Diff(want[i], o, outcomeOpts); diff != "" {
					t.Errorf("round %d, %+v (-unary +exchange):\n%s", round, req, diff)
				}
			})
		}
	}
	wg.Wait()
	if diff := cmp.Diff(want, got, outcomeOpts); diff != "" {
		t.Errorf("exchange differs from unary calls (-unary +exchange):\n%s", diff)
	}
	last := want[0].Exercises[len(want[0].Exercises)-1] // the first page's last exercise, want[0].Page.NextCursor
	x, version, err := batched.Exercise(context.Background(), "", want[0].Page.NextCursor)
	if err != nil || !bytes.Equal(x.Head, last.Head) || len(x.Content) == 0 || version == "" {
		t.Errorf("Exercise = %+v, %q, %v; want the first exercise", x, version, err)
	}
	var e *apierror.Error
	if _, _, err := batched.Exercise(context.Background(), "", "nope"); !errors.As(err, &e) || e.Status != 404 {
		t.Errorf("Exercise(nope) = %v, want a 404", err)
	}
}

// A replica that shuts down ends its streams; the calls they carried are
// sent again and no caller sees an error.
func TestExchangeSurvivesAReplicaShuttingDown(t *testing.T) {
	reps, res := replicas(t, 2)
	c := newClient(t, res, 4)
	reqs := listings(t, c)[:40]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		calls    int
	)
	for w := range 16 {
		wg.Go(func() {
			for i := w; ctx.Err() == nil; i++ {
				_, err := c.List(context.Background(), "", reqs[i%len(reqs)])
				mu.Lock()
				calls++
				if err != nil {
					failures = append(failures, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	// The catalog's own shutdown: no new streams, then the service ends
	// the open ones.
	go reps[0].srv.GracefulStop()
	reps[0].svc.Stop()
	time.Sleep(300 * time.Millisecond)
	cancel()
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed while a replica shut down, first: %s", len(failures), calls, failures[0])
	}
	if reps[1].exchanged(t) == 0 {
		t.Error("the remaining replica served nothing")
	}
}

func TestExchangeFailsFastWhenTheCatalogIsDown(t *testing.T) {
	reps, res := replicas(t, 1)
	reps[0].srv.Stop()
	c := newClient(t, res, 2)
	start := time.Now()
	_, err := c.List(context.Background(), "", ListRequest{Limit: 10})
	var e *apierror.Error
	if !errors.As(err, &e) || e.Status != 503 {
		t.Fatalf("List with the catalog down = %v, want a 503", err)
	}
	if d := time.Since(start); d >= 5*time.Second {
		t.Errorf("took %v: the call waited for its whole timeout", d)
	}
}

func TestClosedClientRefusesCalls(t *testing.T) {
	_, res := replicas(t, 1)
	c := newClient(t, res, 2)
	if _, err := c.List(context.Background(), "", ListRequest{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	_, err := c.List(context.Background(), "", ListRequest{Limit: 1})
	var e *apierror.Error
	if !errors.As(err, &e) || e.Status != 503 {
		t.Errorf("List after Close = %v, want a 503", err)
	}
}

// oldCatalog is a catalog from before Exchange: it only has the unary
// methods.
type oldCatalog struct {
	catalogv1.UnimplementedCatalogServiceServer
	svc *grpcapi.Service
}

func (o oldCatalog) ListExercises(ctx context.Context, req *catalogv1.ListExercisesRequest) (*catalogv1.ListExercisesResponse, error) {
	return o.svc.ListExercises(ctx, req)
}

// A gateway upgraded before its catalog falls back to one RPC per call.
func TestExchangeFallsBackToRPCsWithAnOlderCatalog(t *testing.T) {
	cat, err := exercise.Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	svc := &grpcapi.Service{}
	svc.Swap(cat)
	srv := grpc.NewServer()
	catalogv1.RegisterCatalogServiceServer(srv, oldCatalog{svc: svc})
	c := newClient(t, resolverOf(serve(t, srv)), 2)
	for i := range 3 {
		p, err := c.List(context.Background(), "", ListRequest{Limit: 5})
		if err != nil || p.Len() != 5 {
			t.Fatalf("call %d: %v, %v; want a page of 5", i, p, err)
		}
	}
	if c.exchange.available() {
		t.Error("the client still tries Exchange")
	}
}

// BenchmarkList measures a listing call through the client and a real
// catalog on loopback TCP, both in this process, with 64 callers at once
// (as under load): one RPC per call against Exchange. With -cpu 1 the
// time per call is the CPU both sides spend on it.
func BenchmarkList(b *testing.B) {
	_, res := replicas(b, 1)
	for _, streams := range []int{0, 4} {
		name := "unary"
		if streams > 0 {
			name = "exchange"
		}
		b.Run(name, func(b *testing.B) {
			c, err := New(res.Scheme()+":///catalog", 5*time.Second, streams, grpc.WithResolvers(res))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ids := []string{""}
			p, err := c.List(context.Background(), "", ListRequest{Limit: 25})
			for err == nil && p.HasNextPage && len(ids) < 200 {
				ids = append(ids, p.NextCursor)
				p, err = c.List(context.Background(), "", ListRequest{Limit: 25, After: p.NextCursor})
			}
			if err != nil {
				b.Fatal(err)
			}
			var n atomic.Uint64
			b.SetParallelism(64)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					after := ids[n.Add(1)%uint64(len(ids))]
					if _, err := c.List(context.Background(), "", ListRequest{Limit: 10, After: after}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
