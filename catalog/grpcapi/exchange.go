package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// MaxExchangeCalls bounds the calls of one ExchangeRequest: a batch is
// answered in one message, so a bound on calls bounds the memory a batch
// costs. The gateway sends 64 at most.
const MaxExchangeCalls = 256

// server is the Service as registered: it adds Exchange, which needs the
// per-call logging and counting that interceptors give the unary methods.
type server struct {
	*Service
	log     *logging.Lines
	calls   *prometheus.CounterVec // exchanged calls by method and code
	batches prometheus.Histogram   // calls per exchanged batch
}

func newServer(svc *Service, log *logging.Lines, reg prometheus.Registerer) *server {
	s := &server{
		Service: svc,
		log:     log,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "exercisedb_catalog_exchange_calls_total",
			Help: "Calls served over Exchange streams, by method and status code.",
		}, []string{"method", "code"}),
		batches: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "exercisedb_catalog_exchange_batch_calls",
			Help:    "Calls per batch received over Exchange streams.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 8),
		}),
	}
	reg.MustRegister(s.calls, s.batches)
	return s
}

// Exchange implements catalogv1.CatalogServiceServer. It serves the
// stream's batches one after the other until the client closes it or the
// service stops; each call costs a few microseconds, so a batch needs no
// concurrency of its own. A batch of more than MaxExchangeCalls calls ends
// the stream with INVALID_ARGUMENT, unanswered.
func (s *server) Exchange(stream grpc.BidiStreamingServer[catalogv1.ExchangeRequest, catalogv1.ExchangeResponse]) error {
	ctx := stream.Context()
	_, _, stopping := s.watch()
	batches := make(chan *catalogv1.ExchangeRequest)
	ended := make(chan error, 1)
	// Receiving runs apart so that Stop can end a stream that is idle.
	go func() {
		for {
			req, err := stream.Recv()
			if err != nil {
				ended <- err
				return
			}
			select {
			case batches <- req:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case req := <-batches:
			if n := len(req.Calls); n > MaxExchangeCalls {
				return withDetails(codes.InvalidArgument,
					fmt.Sprintf("invalid argument: calls: a batch of %d calls is too large; send at most %d", n, MaxExchangeCalls),
					&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{
						Field:       "calls",
						Description: fmt.Sprintf("a batch of %d calls is too large; send at most %d", n, MaxExchangeCalls),
					}}})
			}
			if err := stream.Send(s.serve(ctx, req)); err != nil {
				return err
			}
		case err := <-ended:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case <-stopping:
			return status.Error(codes.Unavailable, "the catalog is shutting down")
		}
	}
}

// serve answers one batch.
func (s *server) serve(ctx context.Context, req *catalogv1.ExchangeRequest) *catalogv1.ExchangeResponse {
	s.batches.Observe(float64(len(req.Calls)))
	out := &catalogv1.ExchangeResponse{Results: make([]*catalogv1.CallResult, len(req.Calls))}
	for i, call := range req.Calls {
		start := time.Now()
		var (
			method string
			result = &catalogv1.CallResult{}
			err    error
		)
		switch m := call.Method.(type) {
		case *catalogv1.Call_ListExercises:
			method = catalogv1.CatalogService_ListExercises_FullMethodName
			var r *catalogv1.ListExercisesResponse
			if r, err = s.ListExercises(ctx, m.ListExercises); err == nil {
				result.Outcome = &catalogv1.CallResult_ListExercises{ListExercises: r}
			}
		case *catalogv1.Call_GetExercise:
			method = catalogv1.CatalogService_GetExercise_FullMethodName
			var r *catalogv1.GetExerciseResponse
			if r, err = s.GetExercise(ctx, m.GetExercise); err == nil {
				result.Outcome = &catalogv1.CallResult_GetExercise{GetExercise: r}
			}
		default:
			method = "/unknown"
			err = status.Error(codes.InvalidArgument, "call names no method: want list_exercises or get_exercise")
		}
		if err != nil {
			result.Outcome = &catalogv1.CallResult_Error{Error: callError(err)}
		}
		out.Results[i] = result
		s.calls.WithLabelValues(path.Base(method), status.Code(err).String()).Inc()
		logCall(ctx, s.log, method, boundID(call.RequestId), start, err)
	}
	return out
}

// callError is err's status as it travels inside an ExchangeResponse.
func callError(err error) *catalogv1.CallError {
	p := status.Convert(err).Proto()
	return &catalogv1.CallError{Code: p.Code, Message: p.Message, Details: p.Details}
}
