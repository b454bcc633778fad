package tlsfiles

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testcerts"
	"github.com/exercisedb/exercisedb/internal/testlog"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// pollTimeout bounds waits for a reload; never a measured threshold.
const pollTimeout = 20 * time.Second

func newLog() (*slog.Logger, *testlog.Buffer) {
	buf := &testlog.Buffer{}
	return slog.New(slog.NewTextHandler(buf, nil)), buf
}

// loadServer returns a source of a certificate for host, signed by a new
// CA, and the CA.
func loadServer(t *testing.T, host string) (*Source, *testcerts.CA) {
	t.Helper()
	ca := testcerts.NewCA(t, "ca")
	cert, key := ca.Server(t, host).Write(t, t.TempDir(), "server")
	log, _ := newLog()
	s, err := Load(Files{CertFile: cert, KeyFile: key}, log)
	if err != nil {
		t.Fatal(err)
	}
	return s, ca
}

// serveTLS answers "ok" on every connection whose handshake succeeds.
func serveTLS(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return testnet.Serve(t, ln, func(c net.Conn) {
		defer c.Close()
		if c.(*tls.Conn).Handshake() == nil {
			c.Write([]byte("ok"))
		}
	})
}

// call connects to addr with cfg and reads the server's answer: with TLS
// 1.3 a refused client certificate shows only when reading.
func call(addr string, cfg *tls.Config) error {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: pollTimeout}, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(pollTimeout))
	_, err = io.ReadFull(c, make([]byte, 2))
	return err
}

// clientOf is a client configuration trusting ca and presenting pair.
func clientOf(t *testing.T, ca *testcerts.CA, pair *testcerts.Pair) *tls.Config {
	c := &tls.Config{RootCAs: ca.Pool(), ServerName: "catalog"}
	if pair != nil {
		c.Certificates = []tls.Certificate{pair.TLS(t)}
	}
	return c
}

// watch runs s.watch until the test ends and returns once files are watched.
func watch(t *testing.T, s *Source) { watchSignals(t, s, nil) }

// watchSignals is watch with hup as the SIGHUP channel.
func watchSignals(t *testing.T, s *Source, hup <-chan os.Signal) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	started, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- s.watch(ctx, hup, func() { close(started) }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch: %v", err)
		}
	})
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("watch: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.NewCA(t, "ca")
	cert, key := ca.Server(t, "catalog").Write(t, dir, "server")
	_, otherKey := ca.Server(t, "catalog").Write(t, dir, "other")
	caFile := filepath.Join(dir, "ca.crt")
	testcerts.WriteFile(t, caFile, ca.PEM)
	half := filepath.Join(dir, "half.crt")
	data, _ := os.ReadFile(cert)
	testcerts.WriteFile(t, half, data[:len(data)/2])
	truncated := filepath.Join(dir, "truncated.crt") // a chain cut in its second certificate
	testcerts.WriteFile(t, truncated, append(append([]byte{}, data...), ca.PEM[:len(ca.PEM)/2]...))
	garbage := filepath.Join(dir, "garbage.crt")
	testcerts.WriteFile(t, garbage, []byte("not a certificate\n"))
	keyAsCA := filepath.Join(dir, "keyasca.crt")
	keyData, _ := os.ReadFile(key)
	testcerts.WriteFile(t, keyAsCA, append(append([]byte{}, ca.PEM...), keyData...))

	tests := []struct {
		name  string
		files Files
		want  string // in the error
	}{
		{"cert without key", Files{CertFile: cert}, "go together"},
		{"nothing", Files{}, "no file"},
		{"missing cert", Files{CertFile: filepath.Join(dir, "none.crt"), KeyFile: key}, "none.crt"},
		{"missing CA", Files{CAFile: filepath.Join(dir, "none-ca.crt")}, "none-ca.crt"},
		{"key of another certificate", Files{CertFile: cert, KeyFile: otherKey}, "other.key"},
		{"half-written certificate", Files{CertFile: half, KeyFile: key}, "half.crt: no complete PEM block"},
		{"chain cut short", Files{CertFile: truncated, KeyFile: key}, "truncated.crt: data after the last complete PEM block"},
		{"no PEM", Files{CAFile: garbage}, "garbage.crt: no complete PEM block"},
		{"key in the CA file", Files{CAFile: keyAsCA}, "keyasca.crt: a PRIVATE KEY block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, _ := newLog()
			_, err := Load(tt.files, log)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	log, _ := newLog()
	if _, err := Load(Files{CertFile: cert, KeyFile: key, CAFile: caFile}, log); err != nil {
		t.Errorf("good files: %v", err)
	}
}

func TestServerRequiresClientCertificate(t *testing.T) {
	dir := t.TempDir()
	ca, other := testcerts.NewCA(t, "ca"), testcerts.NewCA(t, "other")
	cert, key := ca.Server(t, "catalog").Write(t, dir, "server")
	caFile := filepath.Join(dir, "ca.crt")
	testcerts.WriteFile(t, caFile, ca.PEM)
	log, _ := newLog()
	s, err := Load(Files{CertFile: cert, KeyFile: key, CAFile: caFile}, log)
	if err != nil {
		t.Fatal(err)
	}
	addr := serveTLS(t, s.ServerConfig())
	good, stranger := ca.Client(t, "gateway"), other.Client(t, "gateway")
	serverAsClient := ca.Server(t, "catalog") // signed by the CA, but not for client use
	for _, tt := range []struct {
		name string
		cfg  *tls.Config
		ok   bool
	}{
		{"client certificate of the CA", clientOf(t, ca, &good), true},
		{"no client certificate", clientOf(t, ca, nil), false},
		{"client certificate of another CA", clientOf(t, ca, &stranger), false},
		{"server certificate as client certificate", clientOf(t, ca, &serverAsClient), false},
		{"client not trusting the server", clientOf(t, other, &good), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := call(addr, tt.cfg); (err == nil) != tt.ok {
				t.Errorf("call = %v, want success %v", err, tt.ok)
			}
		})
	}
}

// TestServerRotation replaces the server's certificate and client CA with
// those of a new CA while it serves.
func TestServerRotation(t *testing.T) {
	dir := t.TempDir()
	ca1, ca2 := testcerts.NewCA(t, "ca1"), testcerts.NewCA(t, "ca2")
	cert, key := ca1.Server(t, "catalog").Write(t, dir, "server")
	caFile := filepath.Join(dir, "ca.crt")
	testcerts.WriteFile(t, caFile, ca1.PEM)
	log, logged := newLog()
	s, err := Load(Files{CertFile: cert, KeyFile: key, CAFile: caFile}, log)
	if err != nil {
		t.Fatal(err)
	}
	watch(t, s)
	addr := serveTLS(t, s.ServerConfig())
	client1, client2 := ca1.Client(t, "gateway"), ca2.Client(t, "gateway")
	if err := call(addr, clientOf(t, ca1, &client1)); err != nil {
		t.Fatalf("before rotation: %v", err)
	}

	ca2.Server(t, "catalog").Write(t, dir, "server")
	testcerts.WriteFile(t, caFile, ca2.PEM)
	testnet.Eventually(t, "the new CA's client connects", func() error { return call(addr, clientOf(t, ca2, &client2)) })
	if err := call(addr, clientOf(t, ca1, &client1)); err == nil {
		t.Error("the old CA's client still connects after rotation")
	}
	if !strings.Contains(logged.String(), "TLS files reloaded") {
		t.Errorf("no reload logged:\n%s", logged)
	}
}

// TestClientRotation replaces the client's certificate and trusted CA
// with those of a new CA.
func TestClientRotation(t *testing.T) {
	dir := t.TempDir()
	ca1, ca2 := testcerts.NewCA(t, "ca1"), testcerts.NewCA(t, "ca2")
	server := func(ca *testcerts.CA) string {
		return serveTLS(t, &tls.Config{
			Certificates: []tls.Certificate{ca.Server(t, "catalog").TLS(t)},
			ClientCAs:    ca.Pool(), ClientAuth: tls.RequireAndVerifyClientCert,
		})
	}
	old, rotated := server(ca1), server(ca2)
	cert, key := ca1.Client(t, "gateway").Write(t, dir, "client")
	caFile := filepath.Join(dir, "ca.crt")
	testcerts.WriteFile(t, caFile, ca1.PEM)
	log, _ := newLog()
	s, err := Load(Files{CertFile: cert, KeyFile: key, CAFile: caFile}, log)
	if err != nil {
		t.Fatal(err)
	}
	watch(t, s)
	if err := call(old, s.ClientConfig("catalog")); err != nil {
		t.Fatalf("before rotation: %v", err)
	}
	if err := call(old, s.ClientConfig("elsewhere")); err == nil {
		t.Error("a server certificate for another name was accepted")
	}

	ca2.Client(t, "gateway").Write(t, dir, "client")
	testcerts.WriteFile(t, caFile, ca2.PEM)
	testnet.Eventually(t, "the client reaches the new CA's server", func() error { return call(rotated, s.ClientConfig("catalog")) })
	if err := call(old, s.ClientConfig("catalog")); err == nil {
		t.Error("the client still trusts the old CA after rotation")
	}
}

// TestFailedReloadKeepsMaterial: a key that does not match, or a file
// caught half written, leaves the previous material in use.
func TestFailedReloadKeepsMaterial(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.NewCA(t, "ca")
	pair := ca.Server(t, "catalog")
	cert, key := pair.Write(t, dir, "server")
	log, logged := newLog()
	s, err := Load(Files{CertFile: cert, KeyFile: key}, log)
	if err != nil {
		t.Fatal(err)
	}
	addr := serveTLS(t, s.ServerConfig())
	testcerts.WriteFile(t, key, ca.Server(t, "catalog").KeyPEM)
	if err := s.Reload(); err == nil {
		t.Fatal("Reload with a key of another certificate succeeded")
	}
	testcerts.WriteFile(t, key, pair.KeyPEM)
	testcerts.WriteFile(t, cert, pair.CertPEM[:len(pair.CertPEM)-20])
	if err := s.Reload(); err == nil {
		t.Fatal("Reload of a half-written certificate succeeded")
	}
	if n := strings.Count(logged.String(), "TLS files reload failed"); n != 2 {
		t.Errorf("%d warnings logged, want 2:\n%s", n, logged)
	}
	if err := call(addr, clientOf(t, ca, nil)); err != nil {
		t.Errorf("after failed reloads: %v", err)
	}
}

// TestHTTPServerKeepsHTTP2 serves net/http with ServerConfig: the ALPN
// protocols net/http adds must survive, so HTTP/2 is negotiated.
func TestHTTPServerKeepsHTTP2(t *testing.T) {
	s, ca := loadServer(t, "127.0.0.1")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{TLSConfig: s.ServerConfig(), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { srv.Close() })
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Get("https://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Proto != "HTTP/2.0" {
		t.Errorf("protocol %s, want HTTP/2.0", resp.Proto)
	}
}

// TestSecretVolumeSwap rotates the files the way a Kubernetes Secret
// volume does: the names are symlinks through ..data, and an update
// writes a new directory and swaps the ..data symlink to it.
func TestSecretVolumeSwap(t *testing.T) {
	dir := t.TempDir()
	ca1, ca2 := testcerts.NewCA(t, "ca1"), testcerts.NewCA(t, "ca2")
	publish := func(version string, ca *testcerts.CA) {
		t.Helper()
		ca.Server(t, "catalog").Write(t, filepath.Join(dir, version), "tls")
		if err := os.Symlink(version, filepath.Join(dir, "..data_tmp")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{"..v1", "..v2"} {
		if err := os.Mkdir(filepath.Join(dir, v), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	publish("..v1", ca1)
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	log, _ := newLog()
	s, err := Load(Files{CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key")}, log)
	if err != nil {
		t.Fatal(err)
	}
	watch(t, s)
	addr := serveTLS(t, s.ServerConfig())
	if err := call(addr, clientOf(t, ca1, nil)); err != nil {
		t.Fatalf("before the swap: %v", err)
	}
	publish("..v2", ca2)
	testnet.Eventually(t, "the certificate of the new ..data", func() error { return call(addr, clientOf(t, ca2, nil)) })
}

// TestServerCipherSuites: TLS 1.0 and 1.1 are refused, and so, on TLS 1.2,
// are the CBC suites with SHA-1 that Go still offers by default; the AEAD
// suites and TLS 1.3 are accepted.
func TestServerCipherSuites(t *testing.T) {
	s, ca := loadServer(t, "catalog")
	addr := serveTLS(t, s.ServerConfig())
	tests := []struct {
		name    string
		version uint16
		suite   uint16 // 0: Go's defaults
		ok      bool
	}{
		{"TLS 1.3", tls.VersionTLS13, 0, true},
		{"TLS 1.2 AES-GCM", tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true},
		{"TLS 1.2 AES-256-GCM", tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, true},
		{"TLS 1.2 ChaCha20", tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305, true},
		{"TLS 1.2 AES-CBC-SHA", tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, false},
		{"TLS 1.2 AES-256-CBC-SHA", tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, false},
		{"TLS 1.1", tls.VersionTLS11, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clientOf(t, ca, nil)
			c.MinVersion, c.MaxVersion = tt.version, tt.version
			if tt.suite != 0 {
				c.CipherSuites = []uint16{tt.suite}
			}
			if err := call(addr, c); (err == nil) != tt.ok {
				t.Errorf("handshake: %v, want success %v", err, tt.ok)
			}
		})
	}
}

// TestSignalReload: a certificate behind a symlink into another directory,
// rewritten there in place, is not seen by the watch (filewatch says so);
// SIGHUP re-reads it, as the documentation tells operators to send.
func TestSignalReload(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	ca1, ca2 := testcerts.NewCA(t, "ca1"), testcerts.NewCA(t, "ca2")
	target, targetKey := ca1.Server(t, "catalog").Write(t, elsewhere, "server")
	cert, key := filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	for link, to := range map[string]string{cert: target, key: targetKey} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	log, logged := newLog()
	s, err := Load(Files{CertFile: cert, KeyFile: key}, log)
	if err != nil {
		t.Fatal(err)
	}
	hup := make(chan os.Signal, 1)
	watchSignals(t, s, hup)
	addr := serveTLS(t, s.ServerConfig())
	ca2.Server(t, "catalog").Write(t, elsewhere, "server")
	hup <- syscall.SIGHUP
	testnet.Eventually(t, "the certificate re-read on SIGHUP served", func() error { return call(addr, clientOf(t, ca2, nil)) })
	if !strings.Contains(logged.String(), "reloading TLS files on signal") {
		t.Errorf("the signal is not logged:\n%s", logged)
	}
}

// TestSystemClientConfig: a client without files trusts the system's roots
// only (a certificate of a CA of its own is refused, not accepted), names
// the server it expects, and offers what servers accept: TLS 1.2 or later,
// the same suites.
func TestSystemClientConfig(t *testing.T) {
	s, ca := loadServer(t, "catalog")
	server := s.ServerConfig()
	c := SystemClientConfig("catalog")
	if c.MinVersion != tls.VersionTLS12 || !slices.Equal(c.CipherSuites, server.CipherSuites) || c.RootCAs != nil || c.ServerName != "catalog" || len(c.Certificates) != 0 {
		t.Errorf("SystemClientConfig: min version %#x, suites %v (the server's %v), roots %v, server name %q, %d certificates",
			c.MinVersion, c.CipherSuites, server.CipherSuites, c.RootCAs, c.ServerName, len(c.Certificates))
	}
	addr := serveTLS(t, server)
	var unknown x509.UnknownAuthorityError
	if err := call(addr, c); !errors.As(err, &unknown) {
		t.Errorf("a server whose CA is not among the system's roots: %v, want x509.UnknownAuthorityError", err)
	}
	trusting := c.Clone()
	trusting.RootCAs = ca.Pool()
	if err := call(addr, trusting); err != nil {
		t.Errorf("the same configuration trusting the server's CA: %v", err)
	}
	trusting.ServerName = "other"
	if err := call(addr, trusting); err == nil {
		t.Error("a certificate for catalog accepted as one for other")
	}
}
