package logging

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// syncBuilder is a strings.Builder safe for the ticker's writes.
type syncBuilder struct {
	mu     sync.Mutex
	b      strings.Builder
	writes int
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Every line written by concurrent writers reaches w once, each writer's
// in order, in fewer writes than lines; Close loses none and later lines
// go straight through.
func TestBufferKeepsEveryLine(t *testing.T) {
	var out syncBuilder
	b := NewBuffer(&out, time.Hour) // no tick: Close and full buffers write
	var wg sync.WaitGroup
	const writers, lines = 8, 2000
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(b, "w%d %05d %s\n", w, i, strings.Repeat("x", 40))
			}
		})
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(b, "after close\n")
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines+1 || got[len(got)-1] != "after close" {
		t.Fatalf("%d lines, last %q; want %d and the line written after Close", len(got), got[len(got)-1], writers*lines+1)
	}
	next := make([]int, writers)
	for _, line := range got[:len(got)-1] {
		var w, i int
		if _, err := fmt.Sscanf(line, "w%d %d", &w, &i); err != nil || i != next[w] {
			t.Fatalf("line %q out of order (want line %d of writer %d)", line, next[w], w)
		}
		next[w]++
	}
	if out.writes >= writers*lines/100 {
		t.Errorf("%d writes for %d lines", out.writes, writers*lines)
	}
}

// A line waits at most until the next tick.
func TestBufferWritesOnTick(t *testing.T) {
	var out syncBuilder
	b := NewBuffer(&out, time.Millisecond)
	defer b.Close()
	fmt.Fprintf(b, "line\n")
	testnet.Eventually(t, "the line written", func() error {
		got := out.String()
		return testnet.Unless(got == "line\n", fmt.Sprintf("w holds %q", got))
	})
}

// An event goes out at once, with the access lines waiting before it.
func TestBufferedLoggerWritesEventsAtOnce(t *testing.T) {
	var out syncBuilder
	buf := NewBuffer(&out, time.Hour)
	defer buf.Close()
	access := NewLines(New(buf, "text", slog.LevelInfo), buf, "text")
	access.Request(context.Background(), Request{ID: "req_1", Method: "GET", Route: "/", Status: 200})
	if got := out.String(); got != "" {
		t.Fatalf("an access line went out at once: %q", got)
	}
	log := NewBuffered(buf, "text", slog.LevelInfo).With("replica", 1)
	log.Info("store available again")
	if got := out.String(); !strings.Contains(got, "msg=request request_id=req_1") || !strings.Contains(got, "msg=\"store available again\" replica=1") {
		t.Errorf("after an event, w holds %q; want both lines", got)
	}
}
