// Package bufpool is a pool of byte buffers of many sizes that, unlike
// grpc-go's default pool, does not clear a buffer it hands out: for
// callers that overwrite every byte they use (a marshalled message, a
// rendered body), clearing was a tenth of the catalog's CPU under load,
// since a batch of listings is tens of kilobytes. Its methods are those
// of grpc-go's mem.BufferPool.
package bufpool

import (
	"math/bits"
	"sync"
)

// Buffers go from 1 KiB (2^minShift) to 4 MiB (2^maxShift, gRPC's default
// message limit) in powers of two; larger ones are not pooled.
const minShift, maxShift = 10, 22

// Pool holds buffers in one sync.Pool per power of two. Its zero value
// is ready to use; it is safe for concurrent use.
type Pool struct {
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

// Get returns a buffer of length n, whose bytes are not cleared: they may
// be another caller's.
func (p *Pool) Get(n int) *[]byte {
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

// Put keeps b for a later Get if its capacity is one of the classes (a
// buffer that grew past the capacity Get gave it is dropped). The caller
// must not use b afterwards.
func (p *Pool) Put(b *[]byte) {
	c := class(cap(*b))
	if c < 0 || cap(*b) != 1<<(c+minShift) {
		return
	}
	p.pools[c].Put(b)
}
