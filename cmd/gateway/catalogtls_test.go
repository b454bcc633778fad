package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/internal/testcerts"
)

// withCatalogTLS adds catalog.tls (YAML lines under catalog:) to the
// configuration at path.
func withCatalogTLS(t *testing.T, path, tlsYAML string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(data), "catalog:\n", "catalog:\n  tls:\n"+tlsYAML, 1)
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogMTLS runs the catalog with mTLS and two gateways: one with
// the client certificate serves, one without it is not ready.
func TestCatalogMTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.NewCA(t, "internal CA")
	cert, key := ca.Server(t, "catalog").Write(t, dir, "catalog")
	caFile := filepath.Join(dir, "ca.crt")
	testcerts.WriteFile(t, caFile, ca.PEM)
	p := start(t, catalogBin, "-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0",
		"-tls-cert", cert, "-tls-key", key, "-tls-client-ca", caFile)
	var line struct{ GRPC string }
	if err := p.awaitLog("catalog listening", &line); err != nil {
		t.Fatal(err)
	}

	config := testConfig(t, line.GRPC, options{})
	testcerts.WriteFile(t, filepath.Join(filepath.Dir(config), "ca.crt"), ca.PEM)
	ca.Client(t, "gateway").Write(t, filepath.Dir(config), "client")
	// Relative names: beside the configuration.
	withCatalogTLS(t, config, "    ca_file: ca.crt\n    cert_file: client.crt\n    key_file: client.key\n    server_name: catalog\n")
	k := newKey(t, config, "key_mtls", "exercisedb=Pro")
	g := startGateway(t, config)
	c := newClient(t)
	eventually(t, "a listing through mTLS", func() (bool, string) {
		code, body := statusOf(t, c, g, "/api/v1/exercises?limit=1", k, gifHost)
		return code == http.StatusOK, body
	})

	noCert := testConfig(t, line.GRPC, options{})
	withCatalogTLS(t, noCert, fmt.Sprintf("    ca_file: %s\n    server_name: catalog\n", caFile))
	if err := os.WriteFile(keysPath(noCert), []byte("keys: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g2 := startGateway(t, noCert)
	eventually(t, "/readyz 503: the catalog requires a client certificate", func() (bool, string) {
		code, body := adminGet(c, g2, "/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "certificate required"), body
	})
}
