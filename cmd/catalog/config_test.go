package main

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"CATALOG_LISTEN": "0.0.0.0:1", "CATALOG_DATA": "/env.json", "CATALOG_LOG_LEVEL": "debug"}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    config
		wantErr bool
	}{
		{name: "defaults", want: config{Listen: "127.0.0.1:9090", Admin: "127.0.0.1:9092", LogFormat: "json", LogLevel: slog.LevelInfo, ShutdownTimeout: 10 * time.Second}},
		{name: "environment", env: env, want: config{Listen: "0.0.0.0:1", Admin: "127.0.0.1:9092", Data: "/env.json", LogFormat: "json", LogLevel: slog.LevelDebug, ShutdownTimeout: 10 * time.Second}},
		{name: "flags win over the environment", env: env, args: []string{"-listen", ":2", "-data", "f.json", "-admin", ":3", "-shutdown-timeout", "1s"},
			want: config{Listen: ":2", Admin: ":3", Data: "f.json", LogFormat: "json", LogLevel: slog.LevelDebug, ShutdownTimeout: time.Second}},
		{name: "bad level", args: []string{"-log-level", "loud"}, wantErr: true},
		{name: "bad format", args: []string{"-log-format", "xml"}, wantErr: true},
		{name: "bad timeout", args: []string{"-shutdown-timeout", "soon"}, wantErr: true},
		{name: "stray argument", args: []string{"serve"}, wantErr: true},
		{name: "unknown flag", args: []string{"-port", "1"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); !tt.wantErr && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
