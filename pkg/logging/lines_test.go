package logging

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// The lines Access writes by hand are those slog writes, in both formats,
// for plain values and for values that need escaping or quoting.
func TestAccessWritesWhatSlogWrites(t *testing.T) {
	plain := Request{ID: "req_abc", Method: "GET", Route: "/api/v1/exercises", Status: 200,
		Duration: 1234567 * time.Nanosecond, Bytes: 3659, Product: "exercisedb", KeyID: "key_1",
		Plan: "Pro", Client: "2001:db8::1"}
	anonymous := plain
	anonymous.KeyID, anonymous.Plan, anonymous.Product, anonymous.Status = "", "", "", 401
	anonymous.Duration = 23*time.Microsecond + 400 // "23.4µs": not ASCII, quoted by neither handler
	odd := plain
	odd.Route, odd.Product, odd.KeyID, odd.Client = "/a b", `say "hi"`, "k=v", "é\u2028\x01"
	for _, format := range []string{"json", "text"} {
		for name, r := range map[string]Request{"plain": plain, "anonymous": anonymous, "odd": odd} {
			t.Run(format+"/"+name, func(t *testing.T) {
				var byHand, bySlog bytes.Buffer
				buf := NewBuffer(&byHand, time.Hour)
				NewLines(New(buf, format, slog.LevelInfo), buf, format).Request(context.Background(), r)
				buf.Close()
				NewLines(New(&bySlog, format, slog.LevelInfo), nil, format).Request(context.Background(), r)
				// The two lines were stamped at different instants.
				got, want := dropTime(byHand.String()), dropTime(bySlog.String())
				if got != want || !strings.HasSuffix(got, "\n") {
					t.Errorf("by hand:\n%s\nslog:\n%s", got, want)
				}
			})
		}
	}
}

// Lines of other shapes, such as the catalog's call line, are written as
// slog writes them too; kinds Info does not write by hand go through slog.
func TestLinesWritesWhatSlogWrites(t *testing.T) {
	lines := map[string][]slog.Attr{
		"call":       {slog.String("method", "/exercisedb.catalog.v1.CatalogService/ListExercises"), slog.String("code", "OK"), slog.Duration("duration", 8*time.Microsecond+300), slog.String("request_id", "req_1")},
		"no attrs":   nil,
		"negative":   {slog.Int("n", -3), slog.String("empty", "")},
		"other kind": {slog.Bool("ok", true), slog.Float64("f", 1.5)},
	}
	for _, format := range []string{"json", "text"} {
		for name, attrs := range lines {
			t.Run(format+"/"+name, func(t *testing.T) {
				var byHand, bySlog bytes.Buffer
				buf := NewBuffer(&byHand, time.Hour)
				NewLines(New(buf, format, slog.LevelInfo), buf, format).Log(context.Background(), slog.LevelInfo, "grpc call", attrs...)
				buf.Close()
				NewLines(New(&bySlog, format, slog.LevelInfo), nil, format).Log(context.Background(), slog.LevelInfo, "grpc call", attrs...)
				if got, want := dropTime(byHand.String()), dropTime(bySlog.String()); got != want {
					t.Errorf("by hand:\n%s\nslog:\n%s", got, want)
				}
			})
		}
	}
	// The plain lines are written by hand: with a logger that discards,
	// they still reach the buffer.
	for _, format := range []string{"json", "text"} {
		var out bytes.Buffer
		buf := NewBuffer(&out, time.Hour)
		NewLines(New(io.Discard, format, slog.LevelInfo), buf, format).Log(context.Background(), slog.LevelInfo, "grpc call", lines["call"]...)
		buf.Close()
		if out.Len() == 0 {
			t.Errorf("%s: the call line went through slog", format)
		}
	}
}

// dropTime removes the time field, the first of a line in both formats.
func dropTime(line string) string {
	if i := strings.Index(line, "level="); strings.HasPrefix(line, "time=") && i > 0 {
		return line[i:]
	}
	if i := strings.Index(line, `"level"`); strings.HasPrefix(line, `{"time":`) && i > 0 {
		return line[i:]
	}
	return "no time field: " + line
}

// The time stamps take slog's forms: RFC 3339 with nanoseconds in JSON,
// with exactly three digits of milliseconds in text.
func TestAccessTimeFormats(t *testing.T) {
	at := time.Date(2026, 11, 24, 15, 4, 5, 120000000, time.UTC)
	if got := string(appendRFC3339Millis(nil, at)); got != "2026-11-24T15:04:05.120Z" {
		t.Errorf("text time %q", got)
	}
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Handler().Handle(context.Background(), slog.NewRecord(at, slog.LevelInfo, "m", 0))
	if !strings.HasPrefix(b.String(), "time=2026-11-24T15:04:05.120Z ") {
		t.Errorf("slog's text time changed: %q", b.String())
	}
}

// An access line is stamped with the request's end when the caller gives
// it, in both formats, written by hand or, for a value to escape, by slog.
func TestAccessStampedWithEnd(t *testing.T) {
	end := time.Date(2026, 11, 24, 15, 4, 5, 120000000, time.UTC)
	for format, want := range map[string]string{"json": `{"time":"2026-11-24T15:04:05.12Z",`, "text": "time=2026-11-24T15:04:05.120Z "} {
		for _, route := range []string{"/api/v1/exercises", "/a b"} {
			var out bytes.Buffer
			buf := NewBuffer(&out, time.Hour)
			NewLines(New(buf, format, slog.LevelInfo), buf, format).Request(context.Background(), Request{ID: "req_1", Method: "GET", Route: route, Status: 200, End: end})
			buf.Close()
			if !strings.HasPrefix(out.String(), want) {
				t.Errorf("%s, route %q: %q, want it to start %q", format, route, out.String(), want)
			}
		}
	}
}

func TestAccessHonoursLevel(t *testing.T) {
	var out bytes.Buffer
	buf := NewBuffer(&out, time.Hour)
	a := NewLines(New(buf, "json", slog.LevelWarn), buf, "json")
	if a.Enabled(context.Background(), slog.LevelInfo) {
		t.Error("enabled at level warn")
	}
}

func BenchmarkAccess(b *testing.B) {
	r := Request{ID: "req_abcdefghijklmnop", Method: "GET", Route: "/api/v1/exercises", Status: 200,
		Duration: 23 * time.Microsecond, Bytes: 3659, Product: "exercisedb", KeyID: "key_1", Plan: "Pro", Client: "127.0.0.1"}
	for _, format := range []string{"json", "text"} {
		b.Run("format="+format+"/by=hand", func(b *testing.B) {
			buf := NewBuffer(io.Discard, time.Hour)
			a := NewLines(New(buf, format, slog.LevelInfo), buf, format)
			b.ReportAllocs()
			for b.Loop() {
				a.Request(context.Background(), r)
			}
		})
		b.Run("format="+format+"/by=slog", func(b *testing.B) {
			a := NewLines(New(io.Discard, format, slog.LevelInfo), nil, format)
			b.ReportAllocs()
			for b.Loop() {
				a.Request(context.Background(), r)
			}
		})
	}
}
