package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"time"

	"github.com/gin-gonic/gin"
)

// serveReference is the hidden -serve-reference mode: gin in release mode
// answering GET with a fixed, pre-encoded body (a listing page of the
// gateway, so the same size and shape, or a media file), with the
// gateway's server timeouts, and with the headers of headerPath if not
// empty. It is the most a gin server can do per request on this machine:
// the ceiling the gateway's figures are compared with.
func serveReference(ctx context.Context, addr, bodyPath, headerPath string) error {
	body, err := os.ReadFile(bodyPath)
	if err != nil {
		return err
	}
	header := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	if headerPath != "" {
		if header, err = readHeader(headerPath); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           referenceHandler(body, header),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// referenceHandler answers GET and HEAD of any path with body and header,
// whose Content-Type it must hold.
func referenceHandler(body []byte, header http.Header) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	contentType := header.Get("Content-Type")
	others := header.Clone()
	others.Del("Content-Type")
	h := func(c *gin.Context) {
		w := c.Writer.Header()
		for k, v := range others {
			w[k] = v
		}
		c.Data(http.StatusOK, contentType, body)
	}
	e.GET("/*path", h)
	e.HEAD("/*path", h)
	return e
}

// headerFile returns h in wire format, as readHeader reads it.
func headerFile(h http.Header) []byte {
	var b bytes.Buffer
	_ = h.Write(&b)
	b.WriteString("\r\n")
	return b.Bytes()
}

// readHeader reads a file of headers in wire format.
func readHeader(path string) (http.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := textproto.NewReader(bufio.NewReader(f)).ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if h.Get("Content-Type") == "" {
		return nil, fmt.Errorf("%s: no Content-Type", path)
	}
	return http.Header(h), nil
}

// startReference writes body (and header, if not nil) to dir and runs
// this binary in its -serve-reference mode on the given cores, as the
// server name, returning the server and its base URL once it answers
// with body.
func startReference(ctx context.Context, dir, name, cpus string, body []byte, header http.Header) (*server, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	bodyPath := filepath.Join(dir, name+".body")
	if err := os.WriteFile(bodyPath, body, 0o644); err != nil {
		return nil, "", err
	}
	args := []string{"-reference-body", bodyPath}
	if header != nil {
		headerPath := filepath.Join(dir, name+".header")
		if err := os.WriteFile(headerPath, headerFile(header), 0o644); err != nil {
			return nil, "", err
		}
		args = append(args, "-reference-header", headerPath)
	}
	var errs []error
	for range 3 { // another process may take the free port first
		addrs, err := freeAddrs(1)
		if err != nil {
			return nil, "", err
		}
		srv, err := startServer(name, filepath.Join(dir, name+".log"), cpus, self,
			append([]string{"-serve-reference", addrs[0]}, args...)...)
		if err != nil {
			return nil, "", err
		}
		base := "http://" + addrs[0]
		if err = waitReady(ctx, base+"/api/v1/exercises", 30*time.Second, srv); err == nil {
			err = checkBody(ctx, base+"/api/v1/exercises", body)
		}
		if err == nil {
			return srv, base, nil
		}
		srv.stop(5 * time.Second)
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, "", errors.Join(errs...)
}

// checkBody fails unless url answers with want.
func checkBody(ctx context.Context, url string, want []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("reference server at %s answers %d bytes, want the %d of the page", url, len(got), len(want))
	}
	return nil
}
