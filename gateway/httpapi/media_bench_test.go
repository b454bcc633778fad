package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/httpapi"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// mediaCatalog is a catalog whose every media file is gif.
type mediaCatalog struct {
	fakeCatalog
	gif []byte
}

func (m *mediaCatalog) Media(context.Context, string, medialink.Ref, time.Duration) (catalogclient.MediaFile, error) {
	return catalogclient.MediaFile{Content: m.gif, ContentType: "image/gif"}, nil
}

// discard is a ResponseWriter that keeps nothing: what the handler costs
// without the connection.
type discard struct {
	h      http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(status int)      { d.status = status }

// BenchmarkMedia serves a cached 360 pixel GIF through the whole public
// handler, as deployed (access log, metrics, the per-address throttle),
// and, as the reference, bare gin serving the same response (the
// gateway's headers and bytes): the difference is what the gateway adds
// to a media request besides the connection.
func BenchmarkMedia(b *testing.B) {
	gif := bytes.Repeat([]byte{'G'}, 12<<10)
	products, set := testProducts(b)
	signer := medialink.NewSigner([]byte("bench secret"), "")
	buf := logging.NewBuffer(io.Discard, logging.FlushInterval)
	b.Cleanup(func() { buf.Close() })
	h, err := httpapi.New(httpapi.Deps{
		Products:  products,
		Keys:      func() *keys.Set { return set },
		Limits:    limit.NewMemory(nil),
		Failures:  limit.NewFailures(limit.Rate{Requests: 3, Per: time.Minute, Burst: 3}, nil),
		Catalog:   &mediaCatalog{gif: gif},
		Log:       slog.New(slog.DiscardHandler),
		AccessLog: logging.NewLines(logging.New(buf, "json", slog.LevelInfo), buf, "json"),
		Metrics:   prometheus.NewRegistry(),
		Media: httpapi.MediaDeps{Signer: signer,
			Cache: httpapi.NewMediaCache(100, 1<<20), Timeout: time.Second},
		FreeAddrs: limit.NewThrottle(limit.Rate{Requests: 10_000_000, Per: time.Second, Burst: 10_000_000}, limit.MaxFailureAddrs, nil),
	})
	if err != nil {
		b.Fatal(err)
	}
	path := signer.URL("", medialink.Ref{Key: "exercises/0001", Digest: "00112233aabbccdd", File: "360.gif"})

	// The gateway's answer, whose headers the reference sends too.
	first := &discard{h: http.Header{}}
	h.ServeHTTP(first, httptest.NewRequest(http.MethodGet, path, nil))
	if first.status != http.StatusOK {
		b.Fatalf("GET %s: %d", path, first.status)
	}
	serve := func(b *testing.B, h http.Handler) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = "192.0.2.1:50000"
		w := &discard{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			clear(w.h)
			h.ServeHTTP(w, req)
		}
	}
	b.Run("gateway", func(b *testing.B) { serve(b, h) })
	b.Run("gin", func(b *testing.B) {
		gin.SetMode(gin.ReleaseMode)
		e := gin.New()
		header := first.h.Clone()
		header.Del("Content-Type")
		e.GET("/*path", func(c *gin.Context) {
			w := c.Writer.Header()
			for k, v := range header {
				w[k] = v
			}
			c.Data(http.StatusOK, "image/gif", gif)
		})
		serve(b, e)
	})
}
