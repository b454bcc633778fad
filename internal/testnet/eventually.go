// Package testnet is network machinery for tests: a TCP proxy whose
// connections a test can cut, hold or silence, a free address, an accept
// loop, and the one poll that waits for something to become true.
package testnet

import (
	"errors"
	"net"
	"testing"
	"time"
)

// PollTimeout bounds every wait of a test for something to happen:
// generous, since a loaded two-core machine running -race may be slow, and
// never a threshold that an assertion measures.
const PollTimeout = 30 * time.Second

// pollStep is the pause between two attempts of Eventually.
const pollStep = 20 * time.Millisecond

// Eventually calls cond until it returns nil, and fails the test if it has
// not within PollTimeout; cond's last error, what it saw, is in the message.
func Eventually(t testing.TB, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(PollTimeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last saw: %v", what, PollTimeout, err)
		}
		time.Sleep(pollStep)
	}
}

// FreeAddr returns a loopback address whose port was free a moment ago,
// for a server that must be given its address before it starts or that
// must come back on the same one.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Unless is nil when ok and otherwise an error saying what was seen: the
// result of a condition of Eventually, in one line.
func Unless(ok bool, saw string) error {
	if ok {
		return nil
	}
	return errors.New(saw)
}

// Serve accepts on ln until the test ends and handles each connection in a
// goroutine of its own; it returns ln's address.
func Serve(t testing.TB, ln net.Listener, handle func(net.Conn)) string {
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return ln.Addr().String()
}
