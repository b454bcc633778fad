package testnet

import (
	"bufio"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// echo starts a server that writes back every line it reads.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return Serve(t, ln, func(c net.Conn) { defer c.Close(); io.Copy(c, c) })
}

// roundTrip sends a line on c and reads the echo, within a second: the
// proxy forwards at once or not at all, so a second is no threshold.
func roundTrip(c net.Conn, r *bufio.Reader) error {
	c.SetDeadline(time.Now().Add(time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err == nil && line != "ping\n" {
		err = errors.New("echo " + line)
	}
	return err
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func TestProxyCutAndRestore(t *testing.T) {
	p := NewProxy(t, echo(t))
	c, r := dial(t, p.Addr)
	if err := roundTrip(c, r); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	p.Cut()
	if err := roundTrip(c, r); err == nil {
		t.Error("a connection survived the cut")
	}
	if _, err := net.Dial("tcp", p.Addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after the cut: %v, want refused", err)
	}
	p.Restore()
	c, r = dial(t, p.Addr)
	if err := roundTrip(c, r); err != nil {
		t.Errorf("after Restore: %v", err)
	}
	if n := p.Accepted(); n != 2 {
		t.Errorf("Accepted = %d, want 2", n)
	}
}

func TestProxySilence(t *testing.T) {
	p := NewProxy(t, echo(t))
	c, r := dial(t, p.Addr)
	if err := roundTrip(c, r); err != nil {
		t.Fatal(err)
	}
	if n := p.Silence(); n != 1 {
		t.Errorf("Silence = %d, want 1", n)
	}
	var timeout net.Error
	if err := roundTrip(c, r); !errors.As(err, &timeout) || !timeout.Timeout() {
		t.Errorf("on the silent connection: %v, want no answer and no close", err)
	}
	fresh, fr := dial(t, p.Addr)
	if err := roundTrip(fresh, fr); err != nil {
		t.Errorf("a new connection: %v", err)
	}
}

// TestProxyHoldCall holds at the first HEADERS frame after the preface and
// lets it through on Release; other frames pass while the hold waits.
func TestProxyHoldCall(t *testing.T) {
	p := NewGRPCProxy(t, echo(t))
	c, r := dial(t, p.Addr)
	preface := "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	settings := []byte{0, 0, 0, 0x4, 0, 0, 0, 0, 0}
	headers := []byte{0, 0, 1, 0x1, 0x4, 0, 0, 0, 1, 0x82}
	held := p.HoldCall()
	if _, err := c.Write(append([]byte(preface), settings...)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(preface)+len(settings))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != preface+string(settings) {
		t.Fatalf("preface and SETTINGS echoed: %q, %v", got, err)
	}
	select {
	case <-held:
		t.Fatal("held before a HEADERS frame")
	default:
	}
	if _, err := c.Write(headers); err != nil {
		t.Fatal(err)
	}
	<-held
	// While held nothing comes back (a short wait: it can only miss a
	// leak, never fail a correct proxy).
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := r.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("read %d bytes while the call is held: %v", n, err)
	}
	c.SetReadDeadline(time.Time{})
	p.Release()
	got = make([]byte, len(headers))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != string(headers) {
		t.Errorf("HEADERS after Release: %q, %v", got, err)
	}
}
