package main

import (
	"fmt"
	"log/slog"

	"github.com/exercisedb/exercisedb/pkg/tlsfiles"
)

// listenerTLS loads the gRPC listener's TLS files: nil without -tls-cert
// (plaintext); with -tls-client-ca, clients need a certificate it signed.
func listenerTLS(cfg config, log *slog.Logger) (*tlsfiles.Source, error) {
	if cfg.TLSCert == "" {
		log.Warn("the gRPC listener is plaintext: anyone who reaches it can call it; see -tls-cert")
		return nil, nil
	}
	files, err := tlsfiles.Load(tlsfiles.Files{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey, CAFile: cfg.TLSClientCA}, log)
	if err != nil {
		return nil, fmt.Errorf("TLS of the gRPC listener: %w", err)
	}
	return files, nil
}
