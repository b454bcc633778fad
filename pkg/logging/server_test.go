package logging

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/internal/testlog"
)

func TestServerErrorsAreStructured(t *testing.T) {
	var out bytes.Buffer
	log := New(&out, "json", slog.LevelDebug)
	errorLog := ServerErrors(log)
	errorLog.Printf("http: TLS handshake error from 127.0.0.1:5000: tls: client offered only unsupported versions: [302 301]")
	errorLog.Printf("http: Accept error: too many open files; retrying in 5ms")
	errorLog.Printf("http: superfluous response.WriteHeader call")
	want := []struct{ level, err string }{
		{"DEBUG", "http: TLS handshake error from 127.0.0.1:5000: tls: client offered only unsupported versions: [302 301]"},
		{"ERROR", "http: Accept error: too many open files; retrying in 5ms"},
		{"WARN", "http: superfluous response.WriteHeader call"},
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, line := range lines {
		var rec struct{ Level, Msg, Error string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %s", i, line)
		}
		if rec.Level != want[i].level || rec.Msg != "http server" || rec.Error != want[i].err {
			t.Errorf("line %d = %+v, want level %s and error %q", i, rec, want[i].level, want[i].err)
		}
	}
}

// A plain HTTP request to a TLS listener is a handshake error that
// net/http reports through ErrorLog.
func TestServerErrorsFromARealServer(t *testing.T) {
	var out testlog.Buffer
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = ServerErrors(New(&out, "json", slog.LevelDebug))
	srv.TLS = &tls.Config{}
	srv.StartTLS()
	defer srv.Close()
	resp, err := http.Get(strings.Replace(srv.URL, "https:", "http:", 1))
	if err == nil {
		resp.Body.Close()
	}
	srv.Close()
	if got := out.String(); !strings.Contains(got, `"level":"DEBUG","msg":"http server","error":"http: TLS handshake error`) {
		t.Errorf("log = %q, want a debug record of the handshake error", got)
	}
}
