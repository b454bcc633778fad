package grpcapi

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/pkg/logging"
	"github.com/exercisedb/exercisedb/pkg/vtcodec"
)

// RequestIDHeader is the metadata key that carries the caller's request id.
const RequestIDHeader = "x-request-id"

// ServiceName is the full name of the catalog service, as health reports it.
const ServiceName = "exercisedb.catalog.v1.CatalogService"

// NewServer returns a gRPC server offering svc and grpc.health.v1, logging
// every call to log and counting calls in reg; opts are added (for example
// a tracing stats handler, or TLS credentials). Health starts NOT_SERVING:
// the caller sets SERVING once a catalogue is loaded. At shutdown, call
// Shutdown on the health server, then svc.Stop: health Watch streams end
// with UNAVAILABLE once they have sent NOT_SERVING, as WatchCatalogue
// and Exchange streams end, so that none holds a graceful stop open.
// Server reflection is the caller's choice: reflection.Register before
// serving.
func NewServer(svc *Service, log *logging.Lines, reg prometheus.Registerer, opts ...grpc.ServerOption) (*grpc.Server, *health.Server) {
	metrics := grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram())
	reg.MustRegister(metrics, newCatalogueCollector(svc))
	srv := grpc.NewServer(append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(metrics.UnaryServerInterceptor(), unaryLog(log)),
		grpc.ChainStreamInterceptor(metrics.StreamServerInterceptor(), streamLog(log)),
		// Profiles of the hot path: reflection-free marshalling, calls
		// served by a fixed set of goroutines instead of one new goroutine
		// each, and one write buffer per connection.
		grpc.ForceServerCodecV2(vtcodec.Codec{}),
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
		// The gateway pings an idle connection every 10s to notice a dead
		// path; the default policy (one ping per 5 minutes, none without
		// a call) would answer its pings with GOAWAY.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
	}, opts...)...)
	catalogv1.RegisterCatalogServiceServer(srv, newServer(svc, log, reg))
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	hs.SetServingStatus(ServiceName, healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(srv, &healthServer{Server: hs, svc: svc})
	metrics.InitializeMetrics(srv)
	return srv, hs
}

// SetServing sets the health of the server and of the catalog service.
func SetServing(hs *health.Server, serving bool) {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		st = healthpb.HealthCheckResponse_SERVING
	}
	hs.SetServingStatus("", st)
	hs.SetServingStatus(ServiceName, st)
}

func unaryLog(log *logging.Lines) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		logCall(ctx, log, info.FullMethod, requestID(ctx), start, err)
		return resp, err
	}
}

func streamLog(log *logging.Lines) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		logCall(ss.Context(), log, info.FullMethod, requestID(ss.Context()), start, err)
		return err
	}
}

// logCall writes one line per call. Health checks are logged at debug
// level: orchestrators probe every few seconds.
func logCall(ctx context.Context, log *logging.Lines, method, requestID string, start time.Time, err error) {
	level := slog.LevelInfo
	if method == healthpb.Health_Check_FullMethodName || method == healthpb.Health_Watch_FullMethodName {
		level = slog.LevelDebug
	}
	var internal *internalError
	if errors.As(err, &internal) {
		level = slog.LevelError
	}
	if !log.Enabled(ctx, level) {
		return // build nothing for a line that will not be written
	}
	var room [5]slog.Attr // on the stack: a line per call costs no allocation
	attrs := append(room[:0],
		slog.String("method", method),
		slog.String("code", status.Code(err).String()),
		slog.Duration("duration", time.Since(start)),
	)
	if requestID != "" {
		attrs = append(attrs, slog.String("request_id", requestID))
	}
	if internal != nil {
		attrs = append(attrs, slog.String("error", internal.err.Error()))
	}
	log.Log(ctx, level, "grpc call", attrs...)
}

// requestID returns the caller's request id, bounded so that a hostile
// caller cannot flood the log.
func requestID(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	ids := md.Get(RequestIDHeader)
	if len(ids) == 0 {
		return ""
	}
	return boundID(ids[0])
}

// boundID keeps the first 128 bytes of a request id.
func boundID(id string) string {
	if len(id) > 128 {
		id = id[:128]
	}
	return id
}
