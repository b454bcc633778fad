// Package serve runs network servers until their context ends and then
// shuts them down gracefully within a deadline. Listeners are opened by the
// caller first, so that tests can listen on ":0" and learn the address.
package serve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"
)

// HTTP serves srv on ln until ctx ends, then stops accepting, waits up to
// grace for requests in flight, and closes what remains. With a TLSConfig,
// srv speaks HTTPS, HTTP/2 included (its certificates come from TLSConfig).
func HTTP(ctx context.Context, ln net.Listener, srv *http.Server, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = errors.Join(errors.New("shutdown deadline passed with requests in flight"), srv.Close())
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// GRPC serves srv on ln until ctx ends, then stops accepting, waits up to
// grace for calls in flight, and cancels what remains.
func GRPC(ctx context.Context, ln net.Listener, srv *grpc.Server, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-time.After(grace):
		srv.Stop()
		<-done
		err = errors.New("shutdown deadline passed with calls in flight")
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, grpc.ErrServerStopped) {
		err = errors.Join(err, serr)
	}
	return err
}
