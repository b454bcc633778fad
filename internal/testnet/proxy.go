package testnet

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy is a TCP proxy from Addr to a target whose traffic a test can
// break as a network does: Cut closes everything and refuses new
// connections (Restore listens again), Silence makes the open connections
// go quiet without closing them, and HoldCall (a gRPC proxy only) stops
// the next call on its way until Release. It is closed when the test ends.
type Proxy struct {
	// Addr is the address the proxy listens on.
	Addr string

	t        testing.TB
	target   string
	grpc     bool // the client's bytes are read as HTTP/2 frames
	accepted atomic.Int64
	wg       sync.WaitGroup

	mu    sync.Mutex
	ln    net.Listener // nil while cut
	links []*link
	hold  *hold // the armed hold, nil when none
}

// link is one connection through the proxy.
type link struct {
	in, out net.Conn
	silent  atomic.Bool
}

// hold is a HoldCall: held is closed when a call is held, release to let
// it through.
type hold struct {
	held, release chan struct{}
	once          sync.Once
}

// NewProxy starts a proxy to target that forwards bytes as they come.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	return newProxy(t, target, false)
}

// NewGRPCProxy starts a proxy to a gRPC server target. It reads what the
// client sends as HTTP/2 frames, so that HoldCall can stop a call at its
// first frame: it tells the test, without timing, that a call has left the
// client and not reached the server.
func NewGRPCProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	return newProxy(t, target, true)
}

func newProxy(t testing.TB, target string, grpc bool) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), t: t, target: target, grpc: grpc}
	p.serve(ln)
	t.Cleanup(func() {
		p.Release()
		p.Cut()
		p.wg.Wait()
	})
	return p
}

// serve accepts on ln until it is closed.
func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			if p.ln != ln {
				// Cut while this connection was being set up: it must not
				// outlive the cut.
				p.mu.Unlock()
				in.Close()
				out.Close()
				continue
			}
			l := &link{in: in, out: out}
			p.links = append(p.links, l)
			p.accepted.Add(1)
			p.mu.Unlock()
			p.wg.Go(func() {
				if p.grpc {
					p.forwardFrames(l)
				} else {
					l.pump(out, in)
				}
			})
			p.wg.Go(func() { l.pump(in, out) })
		}
	})
}

// Accepted is the number of connections the proxy has forwarded.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Cut closes the listener and every connection: new ones are refused
// until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, l := range p.links {
		l.in.Close()
		l.out.Close()
	}
	p.links = nil
}

// Restore listens again on Addr after a Cut.
func (p *Proxy) Restore() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.Addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

// Silence makes every open connection silent and reports how many: they
// stop forwarding in both directions, but neither side is closed and every
// byte is still read (so acknowledged), as on a path through a NAT or a
// firewall that forgot the connection, or to a host that froze. New
// connections are forwarded.
func (p *Proxy) Silence() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.links {
		l.silent.Store(true)
	}
	return len(p.links)
}

// HoldCall arms a hold: the next call any client starts (its HEADERS
// frame), and everything sent after it on that connection, wait until
// Release. The channel returned is closed once a call is held.
func (p *Proxy) HoldCall() <-chan struct{} {
	p.t.Helper()
	if !p.grpc {
		p.t.Fatal("testnet: HoldCall needs a proxy made by NewGRPCProxy")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold != nil {
		p.t.Fatal("testnet: HoldCall while a hold is armed")
	}
	p.hold = &hold{held: make(chan struct{}), release: make(chan struct{})}
	return p.hold.held
}

// Release lets the held call, and every later one, through.
func (p *Proxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold != nil {
		close(p.hold.release)
		p.hold = nil
	}
}

// pump copies src to dst, reading and dropping what src sends once the
// link is silent; it closes both once src is closed.
func (l *link) pump(dst, src net.Conn) {
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !l.silent.Load() {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// forwardFrames copies the client's HTTP/2 connection preface and frames
// to the server, waiting at a HEADERS frame while a hold is armed.
func (p *Proxy) forwardFrames(l *link) {
	defer l.in.Close()
	defer l.out.Close()
	const frameHeaders = 0x1
	preface := make([]byte, len("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
	if _, err := io.ReadFull(l.in, preface); err != nil {
		return
	}
	if _, err := l.out.Write(preface); err != nil {
		return
	}
	header := make([]byte, 9)
	for {
		if _, err := io.ReadFull(l.in, header); err != nil {
			return
		}
		payload := make([]byte, int(header[0])<<16|int(header[1])<<8|int(header[2]))
		if _, err := io.ReadFull(l.in, payload); err != nil {
			return
		}
		if header[3] == frameHeaders {
			p.mu.Lock()
			h := p.hold
			p.mu.Unlock()
			if h != nil {
				h.once.Do(func() { close(h.held) })
				<-h.release
			}
		}
		if l.silent.Load() {
			continue
		}
		if _, err := l.out.Write(append(header, payload...)); err != nil {
			return
		}
	}
}
