package serve

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"
)

// Phased runs a process's servers so that readiness fails before traffic
// stops. The traffic functions (public servers and their helpers) run until
// ctx ends or one of them fails; then drain is called (it should make
// readiness fail), the traffic functions' context is cancelled and they
// are waited for; only then is the admin function's context cancelled, so
// /readyz answers "not ready" for the whole drain instead of refusing
// connections. It returns every error but context cancellations.
func Phased(ctx context.Context, traffic []func(context.Context) error, admin func(context.Context) error, drain func()) error {
	adminCtx, stopAdmin := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAdmin()
	adminDone := make(chan error, 1)
	go func() { adminDone <- admin(adminCtx) }()

	trafficCtx, stopTraffic := context.WithCancel(context.WithoutCancel(ctx))
	defer stopTraffic()
	g, gctx := errgroup.WithContext(trafficCtx)
	for _, fn := range traffic {
		g.Go(func() error { return fn(gctx) })
	}

	var adminErr error
	adminStopped := false
	select {
	case <-ctx.Done():
	case <-gctx.Done(): // a traffic function failed
	case adminErr = <-adminDone:
		adminStopped = true
	}
	drain()
	stopTraffic()
	err := g.Wait()
	stopAdmin()
	if !adminStopped {
		adminErr = <-adminDone
	}
	return errors.Join(ignoreCanceled(err), ignoreCanceled(adminErr))
}

func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
