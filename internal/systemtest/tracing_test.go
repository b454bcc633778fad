package systemtest

import (
	"fmt"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestTracePropagation follows one request across the gateway and the
// catalog: the caller's trace continues in the gateway's span, the
// gateway's call to the catalog, and the catalog's span.
func TestTracePropagation(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	prevProvider, prevPropagator := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTracerProvider(prevProvider); otel.SetTextMapPropagator(prevPropagator) })

	s := start(t, options{tracing: true})
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	resp, _ := s.do(t, request{path: "/api/v1/bodyparts", keyID: "key_mega", headers: map[string]string{
		"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01",
	}})
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// The gateway's span ends just after the response is written: wait
	// for the three spans, within a bound.
	testnet.Eventually(t, "three spans ended", func() error {
		n := len(recorder.Ended())
		return testnet.Unless(n >= 3, fmt.Sprint(n, " spans"))
	})
	kinds := map[trace.SpanKind]int{}
	for _, span := range recorder.Ended() {
		if span.SpanContext().TraceID().String() != traceID {
			t.Fatalf("span %q is in trace %s, not the caller's", span.Name(), span.SpanContext().TraceID())
		}
		kinds[span.SpanKind()]++
	}
	// The gateway's and the catalog's server spans, the gateway's client span.
	if kinds[trace.SpanKindServer] != 2 || kinds[trace.SpanKindClient] != 1 {
		t.Errorf("spans by kind = %v, want 2 server and 1 client in the caller's trace", kinds)
	}
}
