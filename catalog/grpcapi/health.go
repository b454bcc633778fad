package grpcapi

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// healthServer is grpc-go's health server, whose Watch streams end once
// the service stops and the watcher has been told it is not serving.
// grpc-go's own Watch runs until the client leaves: a watcher would hold
// a graceful shutdown open until its deadline, since a GOAWAY ends no
// stream already open.
type healthServer struct {
	*health.Server
	svc *Service
}

// Watch implements healthpb.HealthServer. After Service.Stop, a stream
// ends with UNAVAILABLE as soon as the last status it sent is not SERVING:
// at once if it already was, else once health.Server.Shutdown's
// NOT_SERVING has gone out.
func (h *healthServer) Watch(req *healthpb.HealthCheckRequest, stream grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	w := &watchStream{ServerStreamingServer: stream, ctx: ctx, cancel: cancel, last: healthpb.HealthCheckResponse_SERVING}
	_, _, stopping := h.svc.watch()
	go func() {
		select {
		case <-stopping:
			w.stop()
		case <-ctx.Done():
		}
	}()
	err := h.Server.Watch(req, w)
	if w.ended() {
		return status.Error(codes.Unavailable, "the catalog is shutting down")
	}
	return err
}

// watchStream is a Watch stream whose context ends once the service has
// stopped and the last status sent is not SERVING.
type watchStream struct {
	grpc.ServerStreamingServer[healthpb.HealthCheckResponse]
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	last    healthpb.HealthCheckResponse_ServingStatus // SERVING until a status is sent
	stopped bool                                       // the service has stopped
	ending  bool                                       // cancel was called for the stop
}

func (w *watchStream) Context() context.Context { return w.ctx }

func (w *watchStream) Send(r *healthpb.HealthCheckResponse) error {
	if err := w.ServerStreamingServer.Send(r); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = r.GetStatus()
	w.endIfDone()
	return nil
}

func (w *watchStream) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.endIfDone()
}

// endIfDone ends the stream when the service has stopped and the watcher
// knows not to count on it. The caller holds w.mu.
func (w *watchStream) endIfDone() {
	if w.stopped && w.last != healthpb.HealthCheckResponse_SERVING {
		w.ending = true
		w.cancel()
	}
}

// ended reports whether the stream was ended because the service stopped.
func (w *watchStream) ended() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ending
}
