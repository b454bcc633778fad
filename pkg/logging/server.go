package logging

import (
	"context"
	stdlog "log"
	"log/slog"
	"strings"
)

// ServerErrors returns a logger for http.Server.ErrorLog that writes
// net/http's own complaints through log as structured records, so that a
// JSON log stays JSON: left to itself, net/http prints plain lines to
// stderr, and a client chooses many of them (a failed TLS handshake, a
// bad HTTP/2 preface, a query with a semicolon), one per connection or
// request. Those are debug records; a failure to accept connections and
// a handler's panic are errors; anything else is a warning.
func ServerErrors(log *slog.Logger) *stdlog.Logger {
	return stdlog.New(serverErrors{log}, "", 0)
}

type serverErrors struct{ log *slog.Logger }

// clientCaused start the lines net/http writes about what a client sent.
var clientCaused = []string{
	"http: TLS handshake error",
	"http: URL query contains semicolon",
	"http2: server: error reading preface",
	"http2: server connection error",
	"http2: timeout waiting for SETTINGS frames",
	"http2: received GOAWAY",
}

func (s serverErrors) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	level := slog.LevelWarn
	switch {
	case strings.HasPrefix(line, "http: Accept error"), strings.HasPrefix(line, "http: panic serving"):
		level = slog.LevelError
	default:
		for _, prefix := range clientCaused {
			if strings.HasPrefix(line, prefix) {
				level = slog.LevelDebug
				break
			}
		}
	}
	s.log.Log(context.Background(), level, "http server", slog.String("error", line))
	return len(p), nil
}
