package serve

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestPhasedOrder checks that drain runs first, then traffic stops, and
// the admin function stops last.
func TestPhasedOrder(t *testing.T) {
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	traffic := func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		record("traffic stopped")
		return nil
	}
	admin := func(ctx context.Context) error {
		<-ctx.Done()
		record("admin stopped")
		return nil
	}
	go func() { <-started; cancel() }()
	if err := Phased(ctx, []func(context.Context) error{traffic}, admin, func() { record("drain") }); err != nil {
		t.Fatal(err)
	}
	want := []string{"drain", "traffic stopped", "admin stopped"}
	if len(events) != 3 || events[0] != want[0] || events[1] != want[1] || events[2] != want[2] {
		t.Errorf("events = %v, want %v", events, want)
	}
}

// TestPhasedFailure stops everything when one traffic function fails and
// returns its error.
func TestPhasedFailure(t *testing.T) {
	boom := errors.New("boom")
	waiter := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	drained := false
	err := Phased(context.Background(),
		[]func(context.Context) error{func(context.Context) error { return boom }, waiter},
		waiter, func() { drained = true })
	if !errors.Is(err, boom) || !drained {
		t.Errorf("err = %v, drained %v; want boom and a drain", err, drained)
	}
}

// TestPhasedAdminFailure stops the traffic when the admin server fails.
func TestPhasedAdminFailure(t *testing.T) {
	boom := errors.New("admin listener gone")
	waiter := func(ctx context.Context) error { <-ctx.Done(); return nil }
	err := Phased(context.Background(), []func(context.Context) error{waiter},
		func(context.Context) error { return boom }, func() {})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the admin error", err)
	}
}
