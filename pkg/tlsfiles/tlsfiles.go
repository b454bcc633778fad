// Package tlsfiles holds TLS material read from PEM files (a certificate
// chain and its key, and a CA bundle) and re-reads it when the files change,
// so that a rotated certificate (cert-manager, a Kubernetes Secret, a
// renewal script) takes effect without a restart. Servers and clients read
// the current material at each handshake: connections already open keep
// the material they started with.
//
// It follows the files through pkg/filewatch (fsnotify: rename, and the
// ..data symlink swap of Kubernetes volumes) rather than through grpc-go's
// credentials/tls/certprovider/pemfile, which polls on an interval (an hour
// by default), reports a bad file at start only by blocking the first
// handshake, writes to grpclog instead of the caller's log (the contents
// of both files, private key included, when they do not match), and offers
// nothing to net/http; grpc-go's security/advancedtls builds on the same
// providers, in a separate module, for gRPC only.
package tlsfiles

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/exercisedb/exercisedb/pkg/filewatch"
)

// Files names the PEM files of a Source.
type Files struct {
	CertFile string // certificate chain, leaf first; with KeyFile, or neither
	KeyFile  string // private key of the leaf
	CAFile   string // CA certificates to trust; empty: none (clients use the system's)
}

// material is one consistent reading of the files.
type material struct {
	cert       *tls.Certificate // nil without CertFile
	pool       *x509.CertPool   // nil without CAFile
	raw        [][]byte         // the files' contents, to skip reloads that change nothing
	certExpiry string
}

// Source is TLS material read from Files, kept current by Watch. It is safe
// for concurrent use.
type Source struct {
	files Files
	log   *slog.Logger
	cur   atomic.Pointer[material]
	mu    sync.Mutex // serialises reloads

	// The figures of Collector.
	reloadsOK, reloadsFailed atomic.Uint64
	failing                  atomic.Bool // the last reload failed
}

// Load reads the files. An error names the file at fault.
func Load(files Files, log *slog.Logger) (*Source, error) {
	if (files.CertFile == "") != (files.KeyFile == "") {
		return nil, errors.New("tlsfiles: a certificate file and a key file go together")
	}
	if files.CertFile == "" && files.CAFile == "" {
		return nil, errors.New("tlsfiles: no file given")
	}
	s := &Source{files: files, log: log}
	m, err := read(files)
	if err != nil {
		return nil, err
	}
	s.cur.Store(m)
	return s, nil
}

// Reload re-reads the files. On error the previous material stays in use
// and a warning is logged: a rotation may be half done (the certificate
// replaced, not yet its key), and the next change completes it.
func (s *Source) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := read(s.files)
	if err != nil {
		s.failing.Store(true)
		s.reloadsFailed.Add(1)
		s.log.Warn("TLS files reload failed; the previous certificates stay in use", "err", err)
		return err
	}
	s.failing.Store(false)
	if slices.EqualFunc(m.raw, s.cur.Load().raw, bytes.Equal) {
		return nil
	}
	s.cur.Store(m)
	s.reloadsOK.Add(1)
	s.log.Info("TLS files reloaded", "cert", s.files.CertFile, "ca", s.files.CAFile, "cert_not_after", m.certExpiry)
	return nil
}

// Watch reloads the material whenever one of the files changes, and on
// every value received from hup (the caller wires it with
// signal.Notify(hup, syscall.SIGHUP); nil: never), until ctx ends; it
// returns an error only if the files cannot be watched. The signal is
// what re-reads a file whose change the watch cannot see: one behind a
// symlink into another directory, rewritten there in place.
func (s *Source) Watch(ctx context.Context, hup <-chan os.Signal) error {
	return s.watch(ctx, hup, func() {
		s.log.Info("following TLS files", "cert", s.files.CertFile, "key", s.files.KeyFile, "ca", s.files.CAFile)
	})
}

// watch is Watch calling started once every file is watched.
func (s *Source) watch(ctx context.Context, hup <-chan os.Signal, started func()) error {
	paths := slices.DeleteFunc([]string{s.files.CertFile, s.files.KeyFile, s.files.CAFile}, func(p string) bool { return p == "" })
	ready := make(chan struct{})
	var left atomic.Int32
	left.Store(int32(len(paths)))
	watching := func() {
		if left.Add(-1) == 0 {
			close(ready)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range paths {
		g.Go(func() error {
			return filewatch.Watch(gctx, p, nil, s.log, watching, func(filewatch.Reason) { _ = s.Reload() })
		})
	}
	g.Go(func() error {
		for {
			select {
			case <-gctx.Done():
				return nil
			case _, ok := <-hup:
				if !ok {
					return nil
				}
				s.log.Info("reloading TLS files on signal", "cert", s.files.CertFile, "ca", s.files.CAFile)
				_ = s.Reload()
			}
		}
	})
	g.Go(func() error {
		select {
		case <-ready:
			_ = s.Reload() // a change made while the watches were set up
			started()
		case <-gctx.Done():
		}
		return nil
	})
	return g.Wait()
}

// read reads and checks every file of files.
func read(files Files) (*material, error) {
	m := &material{}
	if files.CertFile != "" {
		certPEM, err := readPEM(files.CertFile)
		if err != nil {
			return nil, err
		}
		keyPEM, err := readPEM(files.KeyFile)
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("%s and %s: %w", files.CertFile, files.KeyFile, err)
		}
		m.cert = &cert
		m.certExpiry = cert.Leaf.NotAfter.UTC().Format("2006-01-02T15:04:05Z")
		m.raw = append(m.raw, certPEM, keyPEM)
	}
	if files.CAFile != "" {
		caPEM, err := readPEM(files.CAFile)
		if err != nil {
			return nil, err
		}
		m.pool = x509.NewCertPool()
		for rest := caPEM; ; {
			var b *pem.Block
			if b, rest = pem.Decode(rest); b == nil {
				break
			}
			if b.Type != "CERTIFICATE" {
				return nil, fmt.Errorf("%s: a %s block where certificates were expected", files.CAFile, b.Type)
			}
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", files.CAFile, err)
			}
			m.pool.AddCert(c)
		}
		m.raw = append(m.raw, caPEM)
	}
	return m, nil
}

// readPEM reads a PEM file and checks that it holds whole blocks only, so
// that a file caught half written is an error rather than a shorter chain.
func readPEM(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // names the file
	}
	n := 0
	rest := data
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		n++
	}
	switch {
	case n == 0:
		return nil, fmt.Errorf("%s: no complete PEM block", path)
	case len(bytes.TrimSpace(rest)) > 0:
		return nil, fmt.Errorf("%s: data after the last complete PEM block (a file half written?)", path)
	}
	return data, nil
}
