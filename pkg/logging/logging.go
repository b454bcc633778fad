// Package logging builds the binaries' loggers: JSON or text lines, with
// durations written as people read them ("1.5s", "230µs") rather than as
// JSON's integer nanoseconds.
package logging

import (
	"io"
	"log/slog"
)

// New returns a logger writing format ("json" or "text") lines of level
// and above to w.
func New(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: readableDurations}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func readableDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}
