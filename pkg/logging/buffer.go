package logging

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"
)

// bufferLimit is how much a Buffer holds before it writes without waiting
// for the tick.
const bufferLimit = 64 << 10

// Buffer batches the lines written to it into few writes to w: every
// interval, whenever 64 KiB are waiting, on Flush, and on Close, so that a
// busy gateway's access log costs a write system call per few hundred
// lines rather than one per request. Lines are lost only if the process
// dies without Close (at most an interval's worth). It is safe for
// concurrent use.
type Buffer struct {
	w io.Writer

	mu     sync.Mutex
	buf    []byte
	closed bool

	writing sync.Mutex // held while writing to w, so batches keep their order
	spare   []byte     // the previous batch's buffer, under writing

	stop chan struct{}
	done chan struct{}
}

// FlushInterval is how long both binaries let a line wait: short enough
// for a person tailing the log, long enough to batch hundreds of lines
// under load.
const FlushInterval = 100 * time.Millisecond

// NewBuffer returns a Buffer writing to w every interval.
func NewBuffer(w io.Writer, interval time.Duration) *Buffer {
	b := &Buffer{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go b.tick(interval)
	return b
}

func (b *Buffer) tick(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = b.Flush() // w's errors have nowhere better to go
		case <-b.stop:
			return
		}
	}
}

// Write keeps a copy of p for the next batch; after Close it writes p to w
// at once.
func (b *Buffer) Write(p []byte) (int, error) {
	if err := b.append(func(buf []byte) []byte { return append(buf, p...) }); err != nil {
		return 0, err
	}
	return len(p), nil
}

// append adds what add appends to the next batch; after Close it writes
// it to w at once.
func (b *Buffer) append(add func([]byte) []byte) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		b.writing.Lock()
		defer b.writing.Unlock()
		_, err := b.w.Write(add(nil))
		return err
	}
	b.buf = add(b.buf)
	full := len(b.buf) >= bufferLimit
	b.mu.Unlock()
	if full {
		return b.Flush()
	}
	return nil
}

// Flush writes what is waiting.
func (b *Buffer) Flush() error {
	b.writing.Lock()
	defer b.writing.Unlock()
	b.mu.Lock()
	batch := b.buf
	b.buf = b.spare[:0]
	b.mu.Unlock()
	if len(batch) == 0 {
		b.spare = batch
		return nil
	}
	_, err := b.w.Write(batch)
	b.spare = batch[:0]
	return err
}

// Close stops the ticks and writes what is waiting; later lines are
// written as they come.
func (b *Buffer) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	return b.Flush()
}

// NewBuffered is New writing through buf, for events rather than access
// lines: each record is written at once, with the lines waiting before
// it, so that what explains a failure or a change of state is not held
// back with the access log.
func NewBuffered(buf *Buffer, format string, level slog.Level) *slog.Logger {
	return slog.New(flushing{New(buf, format, level).Handler(), buf})
}

// flushing flushes its Buffer after each record.
type flushing struct {
	slog.Handler
	buf *Buffer
}

func (h flushing) Handle(ctx context.Context, r slog.Record) error {
	return errors.Join(h.Handler.Handle(ctx, r), h.buf.Flush())
}

func (h flushing) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushing{h.Handler.WithAttrs(attrs), h.buf}
}

func (h flushing) WithGroup(name string) slog.Handler {
	return flushing{h.Handler.WithGroup(name), h.buf}
}
