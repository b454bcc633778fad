package bytecache

import (
	"fmt"
	"testing"
)

func TestBounds(t *testing.T) {
	tests := []struct {
		name              string
		entries           int
		maxBytes          int64
		sizes             []int
		wantLen           int
		wantBytes         int64
		wantKept, wantNot []int // indexes of sizes
	}{
		{name: "bytes bound evicts the oldest", entries: 100, maxBytes: 10, sizes: []int{4, 4, 4}, wantLen: 2, wantBytes: 8, wantKept: []int{1, 2}, wantNot: []int{0}},
		{name: "entry bound evicts the oldest", entries: 2, maxBytes: 100, sizes: []int{1, 1, 1}, wantLen: 2, wantBytes: 2, wantKept: []int{1, 2}, wantNot: []int{0}},
		{name: "a value over the byte bound is not kept", entries: 10, maxBytes: 5, sizes: []int{2, 6}, wantLen: 1, wantBytes: 2, wantKept: []int{0}, wantNot: []int{1}},
		{name: "one large value evicts several", entries: 10, maxBytes: 10, sizes: []int{3, 3, 3, 9}, wantLen: 1, wantBytes: 9, wantKept: []int{3}, wantNot: []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New[string, []byte](tt.entries, tt.maxBytes)
			for i, n := range tt.sizes {
				c.Add(fmt.Sprint(i), make([]byte, n), n)
			}
			if c.Len() != tt.wantLen || c.Bytes() != tt.wantBytes {
				t.Errorf("Len, Bytes = %d, %d; want %d, %d", c.Len(), c.Bytes(), tt.wantLen, tt.wantBytes)
			}
			for _, i := range tt.wantKept {
				if _, ok := c.Get(fmt.Sprint(i)); !ok {
					t.Errorf("value %d was evicted", i)
				}
			}
			for _, i := range tt.wantNot {
				if _, ok := c.Get(fmt.Sprint(i)); ok {
					t.Errorf("value %d is still held", i)
				}
			}
		})
	}
}

func TestReplaceCountsOnce(t *testing.T) {
	c := New[string, []byte](10, 100)
	c.Add("a", make([]byte, 10), 10)
	c.Add("a", make([]byte, 30), 30)
	if c.Len() != 1 || c.Bytes() != 30 {
		t.Errorf("Len, Bytes = %d, %d; want 1, 30", c.Len(), c.Bytes())
	}
}

func TestRecentUseProtects(t *testing.T) {
	c := New[string, []byte](2, 100)
	c.Add("a", []byte("a"), 1)
	c.Add("b", []byte("b"), 1)
	c.Get("a")
	c.Add("c", []byte("c"), 1)
	if _, ok := c.Get("a"); !ok {
		t.Error("a, used recently, was evicted")
	}
	if _, ok := c.Get("b"); ok {
		t.Error("b, the least recently used, is still held")
	}
}
