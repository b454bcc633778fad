package catalogclient

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// laggingCatalog is a catalog that answers late or not at all: each
// Exchange stream, once it has a batch, waits lag and then ends with end
// (or never, when end is nil); ListExercises never answers.
type laggingCatalog struct {
	catalogv1.UnimplementedCatalogServiceServer
	lag      time.Duration
	end      error
	streams  atomic.Int64 // Exchange streams that got a batch
	rpcCalls atomic.Int64 // ListExercises calls
}

func (l *laggingCatalog) Exchange(stream grpc.BidiStreamingServer[catalogv1.ExchangeRequest, catalogv1.ExchangeResponse]) error {
	ctx := stream.Context()
	if _, err := stream.Recv(); err != nil {
		return err
	}
	l.streams.Add(1)
	select {
	case <-time.After(l.lag):
	case <-ctx.Done():
		return ctx.Err()
	}
	if l.end == nil {
		<-ctx.Done()
		return ctx.Err()
	}
	return l.end
}

func (l *laggingCatalog) ListExercises(ctx context.Context, _ *catalogv1.ListExercisesRequest) (*catalogv1.ListExercisesResponse, error) {
	l.rpcCalls.Add(1)
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}

// A call has one deadline, the client's timeout, however it is carried:
// over Exchange, sent again when streams break, or as an RPC after the
// catalog said it has no Exchange: with the catalog stalled, an RPC made
// after a late Unimplemented must not get a timeout of its own (a 2s
// timeout would become 3.6s).
func TestCallEndsByItsDeadline(t *testing.T) {
	const (
		timeout = 2 * time.Second
		// margin is for the scheduler of a loaded machine running -race;
		// a second timeout, as before the fix, takes 1.6s more.
		margin = 600 * time.Millisecond
	)
	for _, tt := range []struct {
		name     string
		catalog  *laggingCatalog
		wantRPCs bool
		sends    int64 // Exchange streams that got the call, at least
	}{
		{
			// A catalog older than Exchange, stalled (a pause, a long
			// garbage collection): its Unimplemented comes 1.6s into the
			// call, and the RPC that replaces the call stalls too.
			name:     "Exchange refused late, then the RPC stalls",
			catalog:  &laggingCatalog{lag: 1600 * time.Millisecond, end: status.Error(codes.Unimplemented, "unknown method Exchange")},
			wantRPCs: true,
			sends:    1,
		},
		{
			// Each stream breaks 0.8s after it got the call: three sends
			// would take 2.4s and more.
			name:    "streams break, the call is sent again",
			catalog: &laggingCatalog{lag: 800 * time.Millisecond, end: status.Error(codes.Unavailable, "the catalog is shutting down")},
			sends:   2,
		},
		{
			name:    "the catalog never answers",
			catalog: &laggingCatalog{},
			sends:   1,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := grpc.NewServer()
			catalogv1.RegisterCatalogServiceServer(srv, tt.catalog)
			res := resolverOf(serve(t, srv))
			c, err := New(res.Scheme()+":///catalog", timeout, 2, grpc.WithResolvers(res))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			// Connect first: the call's time is then the catalog's.
			if err := c.Ready(context.Background()); status.Code(errors.Unwrap(err)) != codes.Unimplemented {
				t.Fatalf("Ready = %v, want the Unimplemented of a server without health", err)
			}

			start := time.Now()
			_, err = c.List(context.Background(), "req_test", ListRequest{Limit: 10})
			took := time.Since(start)

			var e *apierror.Error
			if !errors.As(err, &e) || e.Status != 503 || status.Code(e.Err) != codes.DeadlineExceeded {
				t.Errorf("List = %v, want a 503 for DeadlineExceeded", err)
			}
			if took > timeout+margin {
				t.Errorf("List took %v, want the %v timeout (plus %v at most)", took.Round(time.Millisecond), timeout, margin)
			}
			if n := tt.catalog.streams.Load(); n < tt.sends {
				t.Errorf("%d Exchange streams got the call, want at least %d", n, tt.sends)
			}
			if n := tt.catalog.rpcCalls.Load(); (n > 0) != tt.wantRPCs {
				t.Errorf("%d ListExercises RPCs, want them: %v", n, tt.wantRPCs)
			}
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
		})
	}
}
