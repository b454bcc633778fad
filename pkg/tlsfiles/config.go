package tlsfiles

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"

	"google.golang.org/grpc/credentials"
)

// ServerConfig returns a server configuration presenting the current key
// pair. With a CA file, a client must present a certificate signed by the
// current CA for client authentication: tls.RequireAndVerifyClientCert,
// with the chain checked in VerifyConnection against the CA of the moment.
//
// The material is read per handshake through GetCertificate and
// VerifyConnection rather than a GetConfigForClient: the configuration
// that one returns replaces the copy to which net/http adds its ALPN
// protocols, so HTTP/2 would be lost. NextProtos is left to the server
// (net/http and grpc-go each add theirs).
//
// TLS 1.2 offers only suites; TLS 1.3 has its own, all AEAD.
func (s *Source) ServerConfig() *tls.Config {
	c := &tls.Config{
		MinVersion:   tls.VersionTLS12,
		CipherSuites: suites,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			if m := s.cur.Load(); m.cert != nil {
				return m.cert, nil
			}
			return nil, errors.New("tlsfiles: no certificate file")
		},
	}
	if s.files.CAFile != "" {
		c.ClientAuth = tls.RequireAnyClientCert // verified below
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			return verifyClient(cs.PeerCertificates, s.cur.Load().pool)
		}
	}
	return c
}

// suites are the TLS 1.2 cipher suites a server accepts and a client
// offers: ECDHE with an AEAD cipher, as Mozilla's "intermediate"
// configuration has it. Go's defaults add the CBC suites with SHA-1
// (flagged weak by TLS scanners); grpc-go already leaves those out of its
// listeners and clients, and this list makes net/http's (the gateway's
// public listener) refuse them too.
var suites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// verifyClient checks a client's chain as tls.RequireAndVerifyClientCert
// does.
func verifyClient(chain []*x509.Certificate, roots *x509.CertPool) error {
	if len(chain) == 0 {
		return errors.New("tlsfiles: no client certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{
		Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	return err
}

// ClientConfig returns a client configuration of the current material: the
// CA file's certificates as the roots (the system's without a CA file), the
// key pair as client certificate, and serverName as the name the server's
// certificate must carry (empty: the host dialled). It is a snapshot: take
// one per connection, as ClientCredentials does, to follow rotations.
func (s *Source) ClientConfig(serverName string) *tls.Config {
	return clientConfig(s.cur.Load(), serverName)
}

// SystemClientConfig is ClientConfig for a client without files: the
// system's roots, no client certificate. Nothing to re-read, so no Source:
// the system's roots are read once, when first used.
func SystemClientConfig(serverName string) *tls.Config {
	return clientConfig(&material{}, serverName)
}

// clientConfig is the client configuration of m.
func clientConfig(m *material, serverName string) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12, CipherSuites: suites, RootCAs: m.pool, ServerName: serverName}
	if m.cert != nil {
		c.Certificates = []tls.Certificate{*m.cert}
	}
	return c
}

// ClientCredentials returns gRPC transport credentials that handshake with
// the ClientConfig(serverName) of the moment, so that a reloaded CA or
// client certificate applies from the next connection on.
func (s *Source) ClientCredentials(serverName string) credentials.TransportCredentials {
	return &clientCredentials{TransportCredentials: credentials.NewTLS(s.ClientConfig(serverName)), src: s, serverName: serverName}
}

// clientCredentials is credentials.NewTLS with a configuration made afresh
// for each handshake; the embedded credentials answer Info and the rest.
type clientCredentials struct {
	credentials.TransportCredentials
	src        *Source
	serverName string
}

func (c *clientCredentials) ClientHandshake(ctx context.Context, authority string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return credentials.NewTLS(c.src.ClientConfig(c.serverName)).ClientHandshake(ctx, authority, conn)
}

func (c *clientCredentials) Clone() credentials.TransportCredentials {
	return c.src.ClientCredentials(c.serverName)
}
