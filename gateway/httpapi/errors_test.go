package httpapi

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/apierror"
)

func TestLinkHost(t *testing.T) {
	reached := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8443}
	for _, tt := range []struct{ host, want string }{
		{"api.example.com", "api.example.com"},
		{"api.example.com:8443", "api.example.com:8443"},
		{"[::1]:8080", "[::1]:8080"},
		{`a"b<c>`, "127.0.0.1:8443"},
		{"a b", "127.0.0.1:8443"},
		{"ünïcode.example", "127.0.0.1:8443"},
		{"", "127.0.0.1:8443"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tt.host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, reached))
		got := linkHost(r)
		if got != tt.want {
			t.Errorf("linkHost(%q) = %q, want %q", tt.host, got, tt.want)
		}
		if u, err := url.Parse("https://" + got + "/docs"); err != nil || u.Host != got {
			t.Errorf("linkHost(%q) = %q makes no URL: %v", tt.host, got, err)
		}
	}
}

// Every code an envelope can carry has its page under /docs/errors/code/.
func TestEveryCodeHasItsPage(t *testing.T) {
	for status, code := range apierror.Codes() {
		if errorDocs[code] == "" {
			t.Errorf("%d %s has no text in errorDocs", status, code)
		}
	}
	for code := range errorDocs {
		if statusOf(code) == 0 {
			t.Errorf("errorDocs describes %s, which no status maps to", code)
		}
	}
}
