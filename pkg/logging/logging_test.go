package logging

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestDurations(t *testing.T) {
	for format, want := range map[string]string{"json": `"took":"1.5s"`, "text": `took=1.5s`} {
		var b strings.Builder
		New(&b, format, slog.LevelInfo).Info("done", "took", 1500*time.Millisecond, slog.Group("g", slog.Duration("d", time.Millisecond)))
		if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "1ms") {
			t.Errorf("%s: %s, want %s and 1ms", format, b.String(), want)
		}
	}
	var b strings.Builder
	New(&b, "json", slog.LevelWarn).Info("hidden")
	if b.Len() != 0 {
		t.Errorf("info logged at warn level: %s", b.String())
	}
}
