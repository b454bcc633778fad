package telemetry

import (
	"context"
	"testing"
)

func TestEnabled(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4317"}, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
	} {
		if got := Enabled(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("Enabled(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}

func TestSetupOffAndOn(t *testing.T) {
	off, err := Setup(context.Background(), "test", func(string) string { return "" })
	if err != nil || off(context.Background()) != nil {
		t.Fatalf("off: %v", err)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "console") // autoexport reads the real environment
	env := map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "renamed"}
	shutdown, err := Setup(context.Background(), "test", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}
