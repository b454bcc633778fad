package bufpool

import (
	"math/bits"
	"testing"
)

func TestPool(t *testing.T) {
	var p Pool
	for _, n := range []int{1, 1000, 1024, 1025, 70_000, 4 << 20, 4<<20 + 1} {
		b := p.Get(n)
		if len(*b) != n || cap(*b) < n {
			t.Fatalf("Get(%d): length %d, capacity %d", n, len(*b), cap(*b))
		}
		if c := cap(*b); n <= 4<<20 && (c < 1024 || bits.OnesCount(uint(c)) != 1) {
			t.Errorf("Get(%d): capacity %d, want a power of two from 1 KiB", n, c)
		}
		(*b)[n-1] = 7
		p.Put(b)
		if again := p.Get(n); len(*again) != n {
			t.Errorf("Get(%d) after Put: length %d", n, len(*again))
		}
	}
	odd := make([]byte, 3000) // not a class's capacity: dropped
	p.Put(&odd)
	if b := p.Get(2500); cap(*b) != 4096 {
		t.Errorf("Get(2500) after an odd Put: capacity %d, want 4096", cap(*b))
	}
}
