package filewatch

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.json")
	if err := os.WriteFile(path, []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	hup := make(chan os.Signal, 1)
	reasons := make(chan Reason, 10)
	started := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, path, hup, slog.New(slog.NewTextHandler(io.Discard, nil)), func() { close(started) },
			func(r Reason) { reasons <- r })
	}()
	<-started
	expect := func(want Reason, what string) {
		t.Helper()
		select {
		case got := <-reasons:
			if got != want {
				t.Errorf("%s: reason %v, want %v", what, got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no reload", what)
		}
	}
	hup <- os.Interrupt
	expect(Signal, "signal")
	if err := os.WriteFile(filepath.Join(dir, "other.json"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "data.json.tmp")
	if err := os.WriteFile(tmp, []byte("2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // replaced, as editors do
		t.Fatal(err)
	}
	expect(Change, "rename over the file")
	select {
	case r := <-reasons:
		t.Errorf("another file's change or one burst gave a second reload (%v)", r)
	case <-time.After(3 * Debounce):
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Watch = %v after cancel", err)
	}
}
