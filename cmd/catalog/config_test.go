package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"CATALOG_LISTEN": "0.0.0.0:1", "CATALOG_DATA": "/env.json", "CATALOG_LOG_LEVEL": "debug"}
	tlsEnv := map[string]string{"CATALOG_TLS_CERT": "s.crt", "CATALOG_TLS_KEY": "s.key", "CATALOG_TLS_CLIENT_CA": "ca.crt", "CATALOG_REFLECTION": "false"}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    config
		wantErr string // in the error; "" for success
	}{
		{name: "defaults", want: config{Listen: "127.0.0.1:9090", Admin: "127.0.0.1:9092", LogFormat: "json", LogLevel: slog.LevelInfo, ShutdownTimeout: 10 * time.Second, Reflection: true, MediaCacheBytes: 64 << 20, SearchCacheBytes: 32 << 20}},
		{name: "environment", env: env, want: config{Listen: "0.0.0.0:1", Admin: "127.0.0.1:9092", Data: "/env.json", LogFormat: "json", LogLevel: slog.LevelDebug, ShutdownTimeout: 10 * time.Second, Reflection: true, MediaCacheBytes: 64 << 20, SearchCacheBytes: 32 << 20}},
		{name: "flags win over the environment", env: env, args: []string{"-listen", ":2", "-data", "f.json", "-admin", ":3", "-shutdown-timeout", "1s"},
			want: config{Listen: ":2", Admin: ":3", Data: "f.json", LogFormat: "json", LogLevel: slog.LevelDebug, ShutdownTimeout: time.Second, Reflection: true, MediaCacheBytes: 64 << 20, SearchCacheBytes: 32 << 20}},
		{name: "mTLS from the environment", env: tlsEnv, want: config{Listen: "127.0.0.1:9090", Admin: "127.0.0.1:9092", LogFormat: "json", LogLevel: slog.LevelInfo, ShutdownTimeout: 10 * time.Second,
			TLSCert: "s.crt", TLSKey: "s.key", TLSClientCA: "ca.crt", MediaCacheBytes: 64 << 20, SearchCacheBytes: 32 << 20}},
		{name: "TLS and reflection flags win", env: tlsEnv, args: []string{"-tls-cert", "f.crt", "-tls-key", "f.key", "-tls-client-ca", "", "-reflection"},
			want: config{Listen: "127.0.0.1:9090", Admin: "127.0.0.1:9092", LogFormat: "json", LogLevel: slog.LevelInfo, ShutdownTimeout: 10 * time.Second,
				TLSCert: "f.crt", TLSKey: "f.key", Reflection: true, MediaCacheBytes: 64 << 20, SearchCacheBytes: 32 << 20}},
		{name: "cert without key", args: []string{"-tls-cert", "s.crt"}, wantErr: "-tls-cert needs -tls-key"},
		{name: "key without cert", args: []string{"-tls-key", "s.key"}, wantErr: "-tls-key needs -tls-cert"},
		{name: "client CA without a key pair", args: []string{"-tls-client-ca", "ca.crt"}, wantErr: "-tls-client-ca needs -tls-cert and -tls-key"},
		{name: "bad reflection", env: map[string]string{"CATALOG_REFLECTION": "maybe"}, wantErr: "CATALOG_REFLECTION"},
		{name: "search cache of no bytes", args: []string{"-search-cache-bytes", "0"}, wantErr: "-search-cache-bytes"},
		{name: "bad level", args: []string{"-log-level", "loud"}, wantErr: "-log-level"},
		{name: "bad format", args: []string{"-log-format", "xml"}, wantErr: "-log-format"},
		{name: "bad timeout", args: []string{"-shutdown-timeout", "soon"}, wantErr: "-shutdown-timeout"},
		{name: "stray argument", args: []string{"serve"}, wantErr: "unexpected argument"},
		{name: "stray argument after -version", args: []string{"-version", "extra"}, wantErr: `unexpected argument "extra"`},
		{name: "unknown flag", args: []string{"-port", "1"}, wantErr: "-port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
