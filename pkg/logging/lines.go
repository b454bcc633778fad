package logging

import (
	"context"
	"log/slog"
	"strconv"
	"time"
)

// Request is one access log line: what the gateway logs per request.
type Request struct {
	ID       string
	Method   string
	Route    string
	Status   int
	Duration time.Duration
	Bytes    int
	Product  string
	KeyID    string
	Plan     string
	Client   string
	// End is when the request ended, the line's time; zero means now.
	// The gateway has read the clock for Duration already, and a clock
	// read costs a tenth of a microsecond on some virtual machines.
	End time.Time
}

// Lines writes info lines whose attributes are strings, integers and
// durations. With a Buffer it writes them itself, straight into the
// buffer: slog's handlers take about 2 µs a line, a tenth of a cached
// response's whole cost, and both binaries write a line per request or
// call. The line is byte for byte what log would write (a test holds the
// two equal); a line at another level, or with a value that needs
// escaping or quoting or is of another kind, goes through log.
type Lines struct {
	log  *slog.Logger
	buf  *Buffer // nil: every line goes through log
	json bool
}

// NewLines returns a Lines logging through log. If buf is not
// nil, log must be New's (or NewBuffered's) logger writing format to buf,
// with no attributes or groups added, as the lines written by hand have
// none.
func NewLines(log *slog.Logger, buf *Buffer, format string) *Lines {
	return &Lines{log: log, buf: buf, json: format != "text"}
}

// Enabled reports whether lines of level are written.
func (l *Lines) Enabled(ctx context.Context, level slog.Level) bool {
	return l.log.Enabled(ctx, level)
}

// Log writes a line of msg and attrs at level; info lines by hand. Keys
// must be plain (see plain), as constant keys are.
func (l *Lines) Log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	l.logAt(ctx, time.Time{}, level, msg, attrs)
}

// logAt is Log of a line whose time is at, or now if at is zero.
func (l *Lines) logAt(ctx context.Context, at time.Time, level slog.Level, msg string, attrs []slog.Attr) {
	if !l.log.Enabled(ctx, level) {
		return // before scanning attrs that will not be written
	}
	if at.IsZero() {
		at = time.Now()
	}
	now := at.Round(0) // as slog's Record.Time, without the monotonic reading
	if level != slog.LevelInfo || l.buf == nil || !plainMsg(msg) || !allPlain(attrs) {
		r := slog.NewRecord(now, level, msg, 0)
		r.AddAttrs(attrs...)
		_ = l.log.Handler().Handle(ctx, r)
		return
	}
	l.buf.append(func(b []byte) []byte {
		if l.json {
			return appendJSON(b, now, msg, attrs)
		}
		return appendText(b, now, msg, attrs)
	})
}

// Request writes the gateway's access line for r.
func (l *Lines) Request(ctx context.Context, r Request) {
	l.logAt(ctx, r.End, slog.LevelInfo, "request", []slog.Attr{
		slog.String("request_id", r.ID),
		slog.String("method", r.Method),
		slog.String("route", r.Route),
		slog.Int("status", r.Status),
		slog.Duration("duration", r.Duration),
		slog.Int("bytes", r.Bytes),
		slog.String("product", r.Product),
		slog.String("key_id", r.KeyID),
		slog.String("plan", r.Plan),
		slog.String("client", r.Client),
	})
}

// plainMsg reports whether both handlers write msg as it is, the text
// handler perhaps in quotes: printable ASCII other than quotes and
// backslash.
func plainMsg(msg string) bool {
	for i := 0; i < len(msg); i++ {
		if c := msg[i]; c < ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// allPlain reports whether Log writes every attribute by hand.
func allPlain(attrs []slog.Attr) bool {
	for _, a := range attrs {
		switch a.Value.Kind() {
		case slog.KindString:
			if !plain(a.Value.String()) {
				return false
			}
		case slog.KindInt64, slog.KindDuration:
		default:
			return false
		}
	}
	return true
}

func appendJSON(b []byte, now time.Time, msg string, attrs []slog.Attr) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"`...)
	b = append(b, msg...)
	b = append(b, '"')
	for _, a := range attrs {
		b = append(b, `,"`...)
		b = append(b, a.Key...)
		b = append(b, `":`...)
		switch v := a.Value; v.Kind() {
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindDuration: // as readableDurations writes it
			b = append(b, '"')
			b = append(b, v.Duration().String()...)
			b = append(b, '"')
		default:
			b = append(b, '"')
			b = append(b, v.String()...)
			b = append(b, '"')
		}
	}
	return append(b, "}\n"...)
}

func appendText(b []byte, now time.Time, msg string, attrs []slog.Attr) []byte {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, now)
	b = append(b, " level=INFO msg="...)
	if plain(msg) {
		b = appendTextString(b, msg)
	} else {
		b = strconv.AppendQuote(b, msg) // as the text handler quotes "grpc call"
	}
	for _, a := range attrs {
		b = append(b, ' ')
		b = append(b, a.Key...)
		b = append(b, '=')
		switch v := a.Value; v.Kind() {
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		default:
			b = appendTextString(b, v.String())
		}
	}
	return append(b, '\n')
}

// appendTextString writes a plain string as slog's text handler does: as
// it is, or "" when empty.
func appendTextString(b []byte, s string) []byte {
	if s == "" {
		return append(b, `""`...)
	}
	return append(b, s...)
}

// appendRFC3339Millis is the text handler's time: RFC 3339 with exactly
// three digits of milliseconds.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10) // four digits, none trimmed
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// plain reports whether s is written the same, unescaped and unquoted, by
// both of slog's handlers (an empty one the text handler quotes): printable
// ASCII other than space, quotes, backslash and '='.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '=' {
			return false
		}
	}
	return true
}
