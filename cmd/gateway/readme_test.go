package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/internal/docexample"
)

// TestREADMEExamples runs every gateway example of the README (the curl
// commands to 127.0.0.1:8080) against the real binaries, configured as
// `make run` configures them (dev/gateway.yaml, a Pro key), and compares
// the output with the README's.
func TestREADMEExamples(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var examples []docexample.Example
	for _, ex := range docexample.Parse(string(md)) {
		if strings.HasPrefix(ex.Command, "curl ") && strings.Contains(ex.Command, "127.0.0.1:8080") {
			examples = append(examples, ex)
		}
	}
	if len(examples) < 10 {
		t.Fatalf("found %d gateway examples in README.md; the parser or the README changed", len(examples))
	}

	cat := startCatalog(t)
	config := devConfig(t, cat.grpc)
	key := newKey(t, config, "key_readme", "exercisedb=Pro", "exercisedb-video=Ultra")
	g := startGateway(t, config)
	for _, ex := range examples {
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(ex.Command, "127.0.0.1:8080", g.http))
		cmd.Env = append(os.Environ(), "KEY="+key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("README.md:%d: %s: %v\n%s", ex.Line, ex.Command, err, out)
			continue
		}
		// Media URLs name the gateway as clients reach it: here its port.
		got := strings.ReplaceAll(strings.ReplaceAll(string(out), "\r\n", "\n"), g.http, "127.0.0.1:8080")
		if !docexample.Match(ex.Output, got) {
			t.Errorf("README.md:%d: %s\nprints:\n%s\nREADME shows:\n%s", ex.Line, ex.Command, got, strings.Join(ex.Output, "\n"))
		}
	}
}

// devConfig copies dev/gateway.yaml into a temporary directory, moving its
// listeners to free ports (the public one named in media.public_url too,
// so that its media URLs resolve), its catalog to catalogAddr and its log
// to JSON. docs_url is kept, so error bodies read as in the README.
func devConfig(t *testing.T, catalogAddr string) string {
	t.Helper()
	data, err := os.ReadFile("../../dev/gateway.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := ln.Addr().String()
	ln.Close() // free again for the gateway, which binds it at once
	s := string(data)
	for _, r := range [][2]string{
		{"\nlisten: 127.0.0.1:8080", "\nlisten: " + public},
		{"  public_url: http://127.0.0.1:8080", "  public_url: http://" + public},
		{"\nadmin_listen: 127.0.0.1:9091", "\nadmin_listen: 127.0.0.1:0"},
		{"  target: 127.0.0.1:9090", "  target: " + catalogAddr},
		{"  format: text", "  format: json"},
	} {
		if !strings.Contains(s, r[0]) {
			t.Fatalf("dev/gateway.yaml no longer contains %q", r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	path := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
