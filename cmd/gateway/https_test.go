package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/exercisedb/exercisedb/internal/testcerts"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// appendConfig adds YAML to the configuration at path.
func appendConfig(t *testing.T, path, yaml string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.WriteString(f, yaml); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPS: the public listener speaks HTTPS with HTTP/2 and HTTP/1.1,
// and picks up a new certificate without a restart.
func TestHTTPS(t *testing.T) {
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	dir := filepath.Dir(config)
	oldCA := testcerts.NewCA(t, "old CA")
	oldCA.Server(t, "127.0.0.1", "localhost").Write(t, dir, "server")
	appendConfig(t, config, "tls:\n  cert_file: server.crt\n  key_file: server.key\n")
	key := newKey(t, config, "key_tls", "exercisedb=Pro")
	g := startGateway(t, config)

	client := func(ca *testcerts.CA, http2 bool) *http.Client {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}, ForceAttemptHTTP2: http2}
		if !http2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	get := func(c *http.Client) (*http.Response, string, error) {
		req, _ := http.NewRequest("GET", "https://"+g.http+"/api/v1/exercises?limit=1", nil)
		req.Header.Set("X-Gateway-Key", key)
		req.Header.Set("X-Gateway-Host", gifHost)
		resp, err := c.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body), nil
	}
	for _, h2 := range []bool{true, false} {
		resp, body, err := get(client(oldCA, h2))
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: "HTTP/2.0", false: "HTTP/1.1"}[h2]
		if resp.StatusCode != 200 || resp.Proto != want || !strings.Contains(body, `"success":true`) {
			t.Errorf("HTTP/2 %v: %s %d %s", h2, resp.Proto, resp.StatusCode, body)
		}
	}
	// Plain HTTP on the TLS port is refused.
	if resp, err := http.Get("http://" + g.http + "/api/v1/liveness"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS listener: %d", resp.StatusCode)
		}
	}

	// Rotation: a certificate from a new CA replaces the old one on disk.
	newCA := testcerts.NewCA(t, "new CA")
	newCA.Server(t, "127.0.0.1", "localhost").Write(t, dir, "server")
	testnet.Eventually(t, "the new certificate served", func() error {
		resp, _, err := get(client(newCA, true))
		if err != nil {
			return errors.New(err.Error())
		}
		return testnet.Unless(resp.StatusCode == 200, resp.Status)
	})
	var unknown x509.UnknownAuthorityError
	if _, _, err := get(client(oldCA, true)); !errors.As(err, &unknown) {
		t.Errorf("a client trusting only the old CA: %v, want an unknown authority error", err)
	}

	// A rotation left half done (a key without its certificate) keeps the
	// certificate in use, and says so on /metrics, not only in the log.
	admin := newClient(t)
	if v := counter(t, admin, g, `exercisedb_tls_reloads_total{files="public",result="ok"}`); v < 1 {
		t.Errorf("reloads ok after the rotation: %v, want at least 1", v)
	}
	if v := counter(t, admin, g, `exercisedb_tls_certificate_expiry_timestamp_seconds{files="public"}`); v == 0 {
		t.Error("no expiry of the public certificate on /metrics")
	}
	testcerts.WriteFile(t, filepath.Join(dir, "server.key"), newCA.Server(t, "127.0.0.1").KeyPEM)
	testnet.Eventually(t, "the failed reload on /metrics", func() error {
		v := counter(t, admin, g, `exercisedb_tls_last_reload_successful{files="public"}`)
		return testnet.Unless(v == 0 && counter(t, admin, g, `exercisedb_tls_reloads_total{files="public",result="error"}`) >= 1, fmt.Sprint(v))
	})
	if resp, _, err := get(client(newCA, true)); err != nil || resp.StatusCode != 200 {
		t.Errorf("after a failed reload: %v", err)
	}
}

// TestH2C: with h2c, a plain listener also speaks HTTP/2 (prior knowledge),
// for a proxy in front that does.
func TestH2C(t *testing.T) {
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	appendConfig(t, config, "h2c: true\n")
	key := newKey(t, config, "key_h2c", "exercisedb=Pro")
	g := startGateway(t, config)
	for _, h2c := range []bool{true, false} {
		tr := &http.Transport{}
		if h2c {
			tr.Protocols = new(http.Protocols)
			tr.Protocols.SetUnencryptedHTTP2(true)
		}
		req, _ := http.NewRequest("GET", "http://"+g.http+"/api/v1/liveness", nil)
		req.Header.Set("X-Gateway-Key", key)
		req.Header.Set("X-Gateway-Host", gifHost)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		tr.CloseIdleConnections()
		want := map[bool]string{true: "HTTP/2.0", false: "HTTP/1.1"}[h2c]
		if resp.StatusCode != 200 || resp.Proto != want {
			t.Errorf("h2c client %v: %s %d, want %s 200", h2c, resp.Proto, resp.StatusCode, want)
		}
	}
}

// TestHTTPSSignalReload: a certificate behind a symlink into another
// directory, renewed there in place, is a change the file watch cannot
// see; SIGHUP, which the gateway's help and docs name for reloads, re-reads
// it without a restart.
func TestHTTPSSignalReload(t *testing.T) {
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	dir, elsewhere := filepath.Dir(config), t.TempDir()
	oldCA, newCA := testcerts.NewCA(t, "old CA"), testcerts.NewCA(t, "new CA")
	cert, key := oldCA.Server(t, "127.0.0.1").Write(t, elsewhere, "server")
	for link, to := range map[string]string{"server.crt": cert, "server.key": key} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	appendConfig(t, config, "tls:\n  cert_file: server.crt\n  key_file: server.key\n")
	newKey(t, config, "key_tls", "exercisedb=Pro")
	g := startGateway(t, config)
	trusting := func(ca *testcerts.CA) error {
		c, err := tls.Dial("tcp", g.http, &tls.Config{RootCAs: ca.Pool()})
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := trusting(oldCA); err != nil {
		t.Fatal(err)
	}
	newCA.Server(t, "127.0.0.1").Write(t, elsewhere, "server")
	g.Signal(t, syscall.SIGHUP)
	testnet.Eventually(t, "the renewed certificate served after SIGHUP", func() error {
		err := trusting(newCA)
		return testnet.Unless(err == nil, fmt.Sprint(err))
	})
}
