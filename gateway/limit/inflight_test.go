package limit

import (
	"context"
	"errors"
	"testing"
)

// TestInFlight holds a key's two slots: a third request waits and gives
// up with its context, holding nothing; another key is not held up; a
// release lets the next one in; the entries go with the last request.
func TestInFlight(t *testing.T) {
	f := NewInFlight(2)
	bg := context.Background()
	r1, err := f.Acquire(bg, "a")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := f.Acquire(bg, "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := f.Acquire(ctx, "a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("third request of a full key: %v, want it to wait until its context ends", err)
	}
	rb, err := f.Acquire(ctx, "b")
	if err != nil {
		t.Fatalf("another key waited for a's requests: %v", err)
	}
	rb()
	got := make(chan error)
	go func() {
		r, err := f.Acquire(bg, "a")
		if err == nil {
			r()
		}
		got <- err
	}()
	r1()
	if err := <-got; err != nil {
		t.Fatalf("waiting request after a release: %v", err)
	}
	r2()
	if n := f.Len(); n != 0 {
		t.Fatalf("%d keys held with nothing under way", n)
	}
}
