package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/gin-gonic/gin"
)

// serveReference is the hidden -serve-reference mode: gin in release mode
// answering GET with a fixed, pre-encoded body (a listing page of the
// gateway, so the same size and shape), with the gateway's server
// timeouts. It is the most a gin server can do per request on this
// machine: the ceiling the gateway's figures are compared with.
func serveReference(ctx context.Context, addr, bodyPath string) error {
	body, err := os.ReadFile(bodyPath)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           referenceHandler(body),
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

// referenceHandler answers GET and HEAD of any path with body.
func referenceHandler(body []byte) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	h := func(c *gin.Context) { c.Data(http.StatusOK, "application/json; charset=utf-8", body) }
	e.GET("/*path", h)
	e.HEAD("/*path", h)
	return e
}

// startReference writes body to dir and runs this binary in its
// -serve-reference mode on the given cores, as the server name, returning
// the server and its base URL once it answers with body.
func startReference(ctx context.Context, dir, name, cpus string, body []byte) (*server, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	bodyPath := filepath.Join(dir, name+".body")
	if err := os.WriteFile(bodyPath, body, 0o644); err != nil {
		return nil, "", err
	}
	var errs []error
	for range 3 { // another process may take the free port first
		addrs, err := freeAddrs(1)
		if err != nil {
			return nil, "", err
		}
		srv, err := startServer(name, filepath.Join(dir, name+".log"), cpus, self,
			"-serve-reference", addrs[0], "-reference-body", bodyPath)
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
