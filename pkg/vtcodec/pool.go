package vtcodec

import (
	"math/bits"
	"sync"

	"google.golang.org/grpc/mem"
)

// buffers holds the buffers of marshalled messages. grpc-go's default
// pool clears a buffer's whole capacity on every Get: a tenth of the
// catalog's CPU under load, since a batch of listings is tens of
// kilobytes. A marshalled message overwrites every byte it is given, so
// this pool hands buffers back as they are.
var buffers mem.BufferPool = &sizedPool{}

// Buffers go from 1 KiB (2^minShift) to 4 MiB (2^maxShift, gRPC's default
// message limit) in powers of two; larger ones are not pooled.
const minShift, maxShift = 10, 22

// sizedPool is a mem.BufferPool of one sync.Pool per power of two.
type sizedPool struct {
	pools [maxShift - minShift + 1]sync.Pool
}

// class is the index of the smallest class holding n bytes, or -1.
func class(n int) int {
	shift := max(bits.Len(uint(n-1)), minShift)
	if n <= 0 || shift > maxShift {
		return -1
	}
	return shift - minShift
}

// Get returns a buffer of length n, whose bytes are not cleared.
func (p *sizedPool) Get(n int) *[]byte {
	c := class(n)
	if c < 0 {
		b := make([]byte, n)
		return &b
	}
	if b, ok := p.pools[c].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, 1<<(c+minShift))
	return &b
}

// Put keeps b for a later Get if its capacity is one of the classes.
func (p *sizedPool) Put(b *[]byte) {
	c := class(cap(*b))
	if c < 0 || cap(*b) != 1<<(c+minShift) {
		return
	}
	p.pools[c].Put(b)
}
