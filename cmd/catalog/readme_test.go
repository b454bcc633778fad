package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/internal/docexample"
	"github.com/exercisedb/exercisedb/internal/testcerts"
)

// grpcurlVersion is the grpcurl the README tells readers to install.
const grpcurlVersion = "github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4"

// TestREADMEExamples runs every catalog example of the README against the
// real binary and compares the output with the README's.
func TestREADMEExamples(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var examples []docexample.Example
	for _, ex := range docexample.Parse(string(md)) {
		// The catalog's examples: grpcurl, and curl to its admin port.
		if strings.HasPrefix(ex.Command, "grpcurl ") || strings.HasPrefix(ex.Command, "curl ") && strings.Contains(ex.Command, "127.0.0.1:9092") {
			examples = append(examples, ex)
		}
	}
	if len(examples) < 5 {
		t.Fatalf("found %d examples in README.md; the parser or the README changed", len(examples))
	}
	bin := t.TempDir()
	install := exec.Command("go", "install", grpcurlVersion)
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("installing grpcurl: %v\n%s", err, out)
	}

	p := startBinary(t)
	waitServing(t, p.dial(t))
	// The examples with client certificates go to a catalog requiring
	// them, with the files deploy/dev-certs.sh would make in certs.
	certs := t.TempDir()
	ca := testcerts.NewCA(t, "README CA")
	testcerts.WriteFile(t, filepath.Join(certs, "ca.crt"), ca.PEM)
	ca.Client(t, "gateway").Write(t, certs, "gateway")
	cert, key := ca.Server(t, "catalog", "127.0.0.1").Write(t, certs, "catalog")
	mtls := startBinary(t, "-tls-cert", cert, "-tls-key", key, "-tls-client-ca", filepath.Join(certs, "ca.crt"))
	mtls.MustAwaitLog(t, "catalogue loaded", nil)
	for _, ex := range examples {
		target := p
		if strings.Contains(ex.Command, " -cert ") {
			target = mtls
		}
		cmdline := strings.NewReplacer("127.0.0.1:9090", target.grpc, "127.0.0.1:9092", target.admin, "deploy/certs/", certs+"/").Replace(ex.Command)
		cmd := exec.Command("sh", "-c", cmdline)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil && !strings.HasPrefix(string(out), "ERROR:") {
			t.Errorf("README.md:%d: %s: %v\n%s", ex.Line, ex.Command, err, out)
			continue
		}
		if !docexample.Match(ex.Output, string(out)) {
			t.Errorf("README.md:%d: %s\nprints:\n%s\nREADME shows:\n%s", ex.Line, ex.Command, out, strings.Join(ex.Output, "\n"))
		}
	}
}
