package catalogclient

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

const (
	// maxBatch bounds the calls of one Exchange message.
	maxBatch = 64
	// maxSends bounds how often a call is sent when the streams carrying
	// it break before it is answered (a catalog shutting down).
	maxSends = 3
	// resendPause is how long the calls of a broken stream wait before
	// they are sent again.
	resendPause = 50 * time.Millisecond
	// maxReply bounds the size of one answer: 64 listings of 100 large
	// records fit.
	maxReply = 64 << 20
)

// A lane replaces its stream after so many batches or so long, whichever
// comes first, so that streams spread again over the replicas that are
// ready: the first ones may all have gone to the replica that connected
// first, and a replica added later would get none.
var (
	streamBatches = 1000
	streamAge     = 10 * time.Second
)

// exchange sends calls over a few long-lived Exchange streams, as many
// calls to a message as are waiting. Under load one message carries
// dozens of calls, so gRPC's per-RPC cost (a new HTTP/2 stream, headers
// and trailers, a goroutine on each side) is paid once a batch rather than
// once a call. Each stream is opened like any RPC, so the connection's
// round-robin balancing spreads the streams over the catalog's replicas
// (and each is replaced now and then, to spread again), and the lanes
// share one queue, so a slower stream takes fewer calls.
type exchange struct {
	rpc    catalogv1.CatalogServiceClient
	queue  chan *pending
	ctx    context.Context // ends the lanes and their streams
	cancel context.CancelFunc
	lanes  sync.WaitGroup
	// pausedUntil (Unix nanoseconds) is set when a catalog answers that it
	// has no Exchange method (one older than it, during a rolling
	// upgrade): until then, calls are RPCs of their own.
	pausedUntil atomic.Int64
}

// pauseFor is how long a client makes RPCs after a catalog without
// Exchange, before it tries Exchange again.
const pauseFor = time.Minute

// available reports whether calls should go over Exchange.
func (x *exchange) available() bool { return time.Now().UnixNano() >= x.pausedUntil.Load() }

// pending is one call on its way.
type pending struct {
	ctx    context.Context // the caller's: when it ends, nobody waits
	call   *catalogv1.Call
	sends  int
	done   chan struct{} // closed once result or err is set
	result *catalogv1.CallResult
	err    error
}

var errClosed = status.Error(codes.Unavailable, "the catalog client is closed")

func newExchange(rpc catalogv1.CatalogServiceClient, streams int) *exchange {
	ctx, cancel := context.WithCancel(context.Background())
	x := &exchange{rpc: rpc, queue: make(chan *pending, 4*maxBatch), ctx: ctx, cancel: cancel}
	x.lanes.Add(streams)
	for range streams {
		go x.lane()
	}
	return x
}

// close ends the streams; calls still waiting fail.
func (x *exchange) close() {
	x.cancel()
	x.lanes.Wait()
	for {
		select {
		case p := <-x.queue:
			finish([]*pending{p}, errClosed)
		default:
			return
		}
	}
}

// do sends call and waits for its result until ctx ends. A failed call's
// error is its gRPC status, as a unary call would return it.
func (x *exchange) do(ctx context.Context, call *catalogv1.Call) (*catalogv1.CallResult, error) {
	p := &pending{ctx: ctx, call: call, done: make(chan struct{})}
	select {
	case x.queue <- p:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-x.ctx.Done():
		return nil, errClosed
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	if p.err != nil {
		return nil, p.err
	}
	if e := p.result.GetError(); e != nil {
		return nil, status.FromProto(&spb.Status{Code: e.Code, Message: e.Message, Details: e.Details}).Err()
	}
	return p.result, nil
}

// lane gathers the waiting calls into a batch and sends it on its stream,
// opening a new one when there is none or it broke.
func (x *exchange) lane() {
	defer x.lanes.Done()
	var s *stream
	for {
		var first *pending
		select {
		case first = <-x.queue:
		case <-x.ctx.Done():
			return
		}
		// Let the callers that are ready to run reach the queue first, so
		// that they share this message: otherwise the scheduler runs this
		// goroutine as soon as the first caller blocks, and every batch
		// holds one call.
		runtime.Gosched()
		batch := gather(first, x.queue)
		if len(batch) == 0 {
			continue
		}
		if s != nil && s.spent() {
			s.retire()
			s = nil
		}
		for {
			if s == nil {
				var err error
				if s, err = x.open(); err != nil {
					finish(batch, err)
					break
				}
			}
			if s.send(batch) {
				break
			}
			s = nil // it broke: its receiver has resent what it carried
		}
	}
}

// gather returns first and the calls waiting behind it, up to maxBatch,
// leaving out those whose callers no longer wait.
func gather(first *pending, queue <-chan *pending) []*pending {
	batch := make([]*pending, 0, min(len(queue)+1, maxBatch))
	p := first
	for {
		if p.ctx.Err() == nil {
			batch = append(batch, p)
		}
		if len(batch) == maxBatch {
			return batch
		}
		select {
		case p = <-queue:
		default:
			return batch
		}
	}
}

// finish fails every call of batch with err.
func finish(batch []*pending, err error) {
	for _, p := range batch {
		p.err = err
		close(p.done)
	}
}

// stream is one Exchange stream and the batches it carries: the catalog
// answers them in order.
type stream struct {
	rpc    grpc.BidiStreamingClient[catalogv1.ExchangeRequest, catalogv1.ExchangeResponse]
	opened time.Time
	sent   int // batches; only the lane touches it

	mu       sync.Mutex
	inflight [][]*pending // sent, not yet answered, oldest first
	broken   bool
}

func (x *exchange) open() (*stream, error) {
	// A batch of listings can outgrow gRPC's default 4 MiB limit.
	rpc, err := x.rpc.Exchange(x.ctx, grpc.MaxCallRecvMsgSize(maxReply))
	if err != nil {
		return nil, err
	}
	s := &stream{rpc: rpc, opened: time.Now()}
	go x.receive(s)
	return s, nil
}

// spent reports whether the stream should make way for a new one.
func (s *stream) spent() bool {
	return s.sent >= streamBatches || time.Since(s.opened) >= streamAge
}

// retire sends nothing more on the stream: the catalog answers what it
// carries, then ends it, and its receiver stops.
func (s *stream) retire() { _ = s.rpc.CloseSend() }

// send sends batch, or reports false if the stream has broken.
func (s *stream) send(batch []*pending) bool {
	req := &catalogv1.ExchangeRequest{Calls: make([]*catalogv1.Call, len(batch))}
	for i, p := range batch {
		req.Calls[i] = p.call
	}
	s.mu.Lock()
	if s.broken {
		s.mu.Unlock()
		return false
	}
	// Counted only when it goes out: a batch a broken stream refused was
	// not sent, and must not use up its sends.
	for _, p := range batch {
		p.sends++
	}
	// In flight before it is sent: the answer may come back at once.
	s.inflight = append(s.inflight, batch)
	s.mu.Unlock()
	s.sent++
	// An error aborts the stream, so receive sees it and resends batch.
	_ = s.rpc.Send(req)
	return true
}

// receive hands each answer to the calls of the oldest batch in flight.
// When the stream ends, it sends the unanswered calls again.
func (x *exchange) receive(s *stream) {
	for {
		resp, err := s.rpc.Recv()
		s.mu.Lock()
		if err != nil {
			s.broken = true
			lost := s.inflight
			s.inflight = nil
			s.mu.Unlock()
			x.resend(lost, err)
			return
		}
		var batch []*pending
		if len(s.inflight) > 0 {
			batch = s.inflight[0]
			s.inflight[0] = nil
			s.inflight = s.inflight[1:]
		}
		s.mu.Unlock()
		if len(resp.Results) != len(batch) {
			finish(batch, status.Errorf(codes.Internal, "catalog answered %d calls with %d results", len(batch), len(resp.Results)))
			continue
		}
		for i, p := range batch {
			p.result = resp.Results[i]
			close(p.done)
		}
	}
}

// resend queues the calls of batches a broken stream did not answer, or
// fails them with the stream's error once sent maxSends times.
func (x *exchange) resend(batches [][]*pending, err error) {
	if _, ok := status.FromError(err); !ok || errors.Is(err, context.Canceled) {
		err = status.Errorf(codes.Unavailable, "catalog stream ended: %v", err)
	}
	unimplemented := status.Code(err) == codes.Unimplemented
	if unimplemented {
		x.pausedUntil.Store(time.Now().Add(pauseFor).UnixNano())
	} else {
		// Give the connection time to hear the catalog's GOAWAY: resent at
		// once, the calls may go back to the replica that is shutting down
		// and use up their sends there.
		select {
		case <-time.After(resendPause):
		case <-x.ctx.Done():
		}
	}
	for _, batch := range batches {
		for _, p := range batch {
			if unimplemented || p.sends >= maxSends || x.ctx.Err() != nil {
				finish([]*pending{p}, err)
				continue
			}
			select {
			case x.queue <- p:
			case <-p.ctx.Done(): // nobody waits for it any more
			case <-x.ctx.Done():
				finish([]*pending{p}, err)
			}
		}
	}
}
