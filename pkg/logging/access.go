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
}

// Access writes access log lines. With a Buffer it writes them itself,
// straight into the buffer: slog's handlers take about 2 µs a line, a
// tenth of a cached response's whole cost. The line is byte for byte
// what log would write (a test holds the two equal); a line with a value
// that needs escaping or quoting goes through log.
type Access struct {
	log  *slog.Logger
	buf  *Buffer // nil: every line goes through log
	json bool
}

// NewAccess returns an Access logging through log at info. If buf is not
// nil, log must be New's (or NewBuffered's) logger writing format to buf,
// with no attributes or groups added, as the lines written by hand have
// none.
func NewAccess(log *slog.Logger, buf *Buffer, format string) *Access {
	return &Access{log: log, buf: buf, json: format != "text"}
}

// Enabled reports whether lines are written at all (info is enabled).
func (a *Access) Enabled(ctx context.Context) bool {
	return a.log.Enabled(ctx, slog.LevelInfo)
}

// Log writes r's line.
func (a *Access) Log(ctx context.Context, r Request) {
	if a.buf == nil || !plain(r.ID) || !plain(r.Method) || !plain(r.Route) ||
		!plain(r.Product) || !plain(r.KeyID) || !plain(r.Plan) || !plain(r.Client) {
		a.log.LogAttrs(ctx, slog.LevelInfo, "request",
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
		)
		return
	}
	now := time.Now().Round(0) // as slog's Record.Time, without the monotonic reading
	a.buf.append(func(b []byte) []byte {
		if a.json {
			return appendJSON(b, now, &r)
		}
		return appendText(b, now, &r)
	})
}

func appendJSON(b []byte, now time.Time, r *Request) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","request_id":"`...)
	b = append(b, r.ID...)
	b = append(b, `","method":"`...)
	b = append(b, r.Method...)
	b = append(b, `","route":"`...)
	b = append(b, r.Route...)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, `,"duration":"`...)
	b = append(b, r.Duration.String()...)
	b = append(b, `","bytes":`...)
	b = strconv.AppendInt(b, int64(r.Bytes), 10)
	b = append(b, `,"product":"`...)
	b = append(b, r.Product...)
	b = append(b, `","key_id":"`...)
	b = append(b, r.KeyID...)
	b = append(b, `","plan":"`...)
	b = append(b, r.Plan...)
	b = append(b, `","client":"`...)
	b = append(b, r.Client...)
	return append(b, "\"}\n"...)
}

func appendText(b []byte, now time.Time, r *Request) []byte {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, now)
	b = append(b, " level=INFO msg=request request_id="...)
	b = appendTextString(b, r.ID)
	b = append(b, " method="...)
	b = appendTextString(b, r.Method)
	b = append(b, " route="...)
	b = appendTextString(b, r.Route)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, " duration="...)
	b = append(b, r.Duration.String()...)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(r.Bytes), 10)
	b = append(b, " product="...)
	b = appendTextString(b, r.Product)
	b = append(b, " key_id="...)
	b = appendTextString(b, r.KeyID)
	b = append(b, " plan="...)
	b = appendTextString(b, r.Plan)
	b = append(b, " client="...)
	b = appendTextString(b, r.Client)
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
