package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const catalogTLS = `  timeout: 2s
  tls:
    ca_file: ca.crt
    cert_file: /abs/client.crt
    key_file: client.key
    server_name: catalog`

// TestCatalogTLS loads catalog.tls: relative files beside the
// configuration, absolute ones kept.
func TestCatalogTLS(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(specExample, "  timeout: 2s", catalogTLS, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := &CatalogTLS{CAFile: filepath.Join(dir, "ca.crt"), CertFile: "/abs/client.crt", KeyFile: filepath.Join(dir, "client.key"), ServerName: "catalog"}
	if diff := cmp.Diff(want, c.Catalog.TLS); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if c, err := Parse([]byte(specExample), noEnv); err != nil || c.Catalog.TLS != nil {
		t.Errorf("without catalog.tls: %v, %v; want no TLS", c.Catalog.TLS, err)
	}
}

func TestCatalogTLSErrors(t *testing.T) {
	for name, tls := range map[string]string{
		"cert without key": "  timeout: 2s\n  tls: {cert_file: c.crt}",
		"key without cert": "  timeout: 2s\n  tls: {ca_file: ca.crt, key_file: c.key}",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(strings.Replace(specExample, "  timeout: 2s", tls, 1)), noEnv)
			if want := "catalog.tls: want both cert_file and key_file, or neither"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want it to contain %q", err, want)
			}
		})
	}
}
