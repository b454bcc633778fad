// Package redistest holds what tests need of Redis: the shared server that
// REDIS_URL names, a key prefix of their own on it, and a redis-server of
// their own to kill and restart.
//
// Tests that need Redis call URL (directly, or through Client, Start): it
// skips them, with a message, when REDIS_URL is empty, so a fresh clone's
// tests pass without Redis, and fails them when REDIS_URL is set but Redis
// does not answer, so a CI that provides Redis cannot pass by skipping.
package redistest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// pollTimeout bounds every wait for Redis to answer: generous, since a
// loaded machine running -race may be slow; it is never a measured
// threshold.
const pollTimeout = 30 * time.Second

// URL returns $REDIS_URL. It skips the test when that is empty and fails
// it when Redis at that URL does not answer PING.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("REDIS_URL")
	if u == "" {
		t.Skip("REDIS_URL is not set: skipping a test that needs Redis (.ci/run sets it)")
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("REDIS_URL %q: %v", u, err)
	}
	c := redis.NewClient(o)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("REDIS_URL is set but Redis does not answer: PING %s: %v", o.Addr, err)
	}
	return u
}

// Patient returns url with generous client timeouts (10s) as go-redis
// query parameters, for tests that count admissions exactly and must not
// see a spurious timeout (and a fallback) on a loaded machine. The
// gateway's own defaults are a quarter of a second.
func Patient(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL // redis.ParseURL will say what is wrong
	}
	q := u.Query()
	for _, p := range []string{"dial_timeout", "read_timeout", "write_timeout", "pool_timeout"} {
		if q.Get(p) == "" {
			q.Set(p, "10s")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Client returns a client of URL(t), closed when the test ends.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(URL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Prefix returns a key prefix of this test alone ("test:<name>:<random>:")
// and deletes every key under it, through c, when the test ends.
func Prefix(t testing.TB, c redis.UniversalClient) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	prefix := "test:" + unsafe.ReplaceAllString(t.Name(), "_") + ":" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		var keys []string
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Logf("cleaning up %s*: %v", prefix, err)
			return
		}
		for _, k := range keys {
			c.Del(ctx, k) // one by one: in a Cluster, keys of several slots
		}
	})
	return prefix
}

// Keys returns the keys under prefix, through c.
func Keys(t testing.TB, c redis.UniversalClient, prefix string) []string {
	t.Helper()
	ctx := context.Background()
	var keys []string
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// Server is a redis-server of the test's own, on a free loopback port,
// without persistence: killed and started again, it is empty.
type Server struct {
	t    testing.TB
	Addr string
	args []string // more arguments of redis-server

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	out    *bytes.Buffer
}

// Start runs a redis-server for the test, killed when the test ends, with
// args as more arguments (such as "--requirepass", "secret": the Server's
// own calls then authenticate with the password). Like URL, it skips the
// test when REDIS_URL is empty (the tests that need Redis run where CI
// provides it); it fails if redis-server cannot be run.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	URL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &Server{t: t, Addr: addr, args: args}
	s.run()
	t.Cleanup(func() {
		s.mu.Lock()
		cmd, exited := s.cmd, s.exited
		s.mu.Unlock()
		if cmd != nil {
			cmd.Process.Kill()
			<-exited
		}
	})
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

func (s *Server) run() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	if _, err := strconv.Atoi(port); err != nil {
		s.t.Fatalf("port of %s: %v", s.Addr, err)
	}
	cmd := exec.Command("redis-server", append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, s.args...)...)
	out := new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting redis-server (REDIS_URL is set, so the tests that need Redis must run): %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.mu.Lock()
	s.cmd, s.exited, s.out = cmd, exited, out
	s.mu.Unlock()

	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, Password: s.password()})
	defer c.Close()
	deadline := time.Now().Add(pollTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		select {
		case <-exited:
			s.t.Fatalf("redis-server on %s exited: %s", s.Addr, out.String())
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s: no PONG within %v: %v", s.Addr, pollTimeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// password is the value of --requirepass among the server's arguments.
func (s *Server) password() string {
	for i, a := range s.args {
		if a == "--requirepass" && i+1 < len(s.args) {
			return s.args[i+1]
		}
	}
	return ""
}

// Kill kills the server (SIGKILL) and waits until it has exited.
func (s *Server) Kill() {
	s.t.Helper()
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		s.t.Fatal("redistest: Kill of a server that is not running")
	}
	cmd.Process.Kill()
	<-exited
}

// Restart starts the server again on the same port, empty, and waits until
// it answers.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	running := s.cmd != nil
	s.mu.Unlock()
	if running {
		s.t.Fatal("redistest: Restart of a server that is running")
	}
	s.run()
}

// Pause stops the server (SIGSTOP): connections stay open and commands
// hang, as with a Redis that is overloaded or cut off by the network.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig os.Signal) {
	s.t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		s.t.Fatalf("redistest: %v to a server that is not running", sig)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(fmt.Errorf("redistest: %v: %w", sig, err))
	}
}
