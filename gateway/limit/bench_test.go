package limit

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkTake measures Memory.Take with a rate and a quota large enough that
// every request is allowed (the common path), on one key and spread over
// many, serially and from parallel goroutines. The clock is time.Now.
func BenchmarkTake(b *testing.B) {
	ctx := context.Background()
	rate := &Rate{1_000_000_000, time.Second, 0}
	quota := &Quota{1 << 40, Month}
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("exercisedb/key_%05d", i)
	}
	for _, bc := range []struct {
		name string
		keys []string
	}{
		{"one key", keys[:1]},
		{"10k keys", keys},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := NewMemory(nil)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := m.Take(ctx, bc.keys[i%len(bc.keys)], rate, quota); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			m := NewMemory(nil)
			var next atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1)) * 7919
				for pb.Next() {
					if _, err := m.Take(ctx, bc.keys[i%len(bc.keys)], rate, quota); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
		})
	}
}

// BenchmarkFailuresFail measures a failure: of a blocked address (the cost
// of a flood of wrong keys), and of one that is not blocked yet (a fresh
// clock keeps it below the limit).
func BenchmarkFailuresFail(b *testing.B) {
	ctx := context.Background()
	f := NewFailures(Rate{10, time.Minute, 0}, nil)
	for range 10 {
		f.Fail(ctx, "192.0.2.1")
	}
	b.Run("blocked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.Fail(ctx, "192.0.2.1")
		}
	})
	b.Run("counted", func(b *testing.B) {
		c := newClock(t0)
		f := NewFailures(Rate{1, time.Nanosecond, 1}, c.Now)
		b.ReportAllocs()
		for b.Loop() {
			c.Advance(time.Nanosecond)
			f.Fail(ctx, "192.0.2.2")
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				f.Fail(ctx, "192.0.2.1")
			}
		})
	})
}
