package limit

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
)

// BenchmarkStoreTake measures what a request pays for its limits: Memory,
// one Redis PING (the reference: one round trip), the Redis store (rate and quota: two scripts; rate only: one), the Redis
// store behind a Resilient, and a refusal a Resilient answers from its
// cache. The plan is large enough that every request is allowed (except
// for the cached refusal); mode=parallel runs 8 goroutines per core.
// Without REDIS_URL only Memory runs.
//
//	taskset -c 1 redis-server --port 6390 --save "" --appendonly no &
//	REDIS_URL=redis://127.0.0.1:6390/0 taskset -c 0 go test -run '^$' \
//	    -bench BenchmarkStoreTake -count 6 ./gateway/limit > redis.txt
//	benchstat -col /store redis.txt
func BenchmarkStoreTake(b *testing.B) {
	ctx := context.Background()
	rate := &Rate{1_000_000_000, time.Second, 0}
	quota := &Quota{1 << 40, Month}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("exercisedb/key_%04d", i)
	}
	// setup makes the store of a case; rate and quota are the plan, keys
	// the keys taken in turn.
	type setup struct {
		s     Store
		rate  *Rate
		quota *Quota
		keys  []string
	}
	redisStore := func(b *testing.B) *Redis {
		return NewRedis(redisClient(b, redistest.Patient(redistest.URL(b))), benchPrefix(b), nil)
	}
	for _, bc := range []struct {
		name string
		mk   func(b *testing.B) setup
	}{
		{"memory", func(*testing.B) setup { return setup{NewMemory(nil), rate, quota, keys} }},
		{"ping", func(b *testing.B) setup { // the reference: one round trip to Redis
			return setup{pingStore{redisClient(b, redistest.Patient(redistest.URL(b)))}, rate, quota, keys}
		}},
		{"redis", func(b *testing.B) setup { return setup{redisStore(b), rate, quota, keys} }},
		{"redis-rate-only", func(b *testing.B) setup { return setup{redisStore(b), rate, nil, keys} }},
		{"resilient-redis", func(b *testing.B) setup {
			return setup{NewResilient(redisStore(b), ResilientOptions{}), rate, quota, keys}
		}},
		{"resilient-cached-refusal", func(b *testing.B) setup {
			r := NewResilient(redisStore(b), ResilientOptions{})
			over := &Quota{1, Month}
			for i := range 2 {
				if d, err := r.Take(ctx, "over", nil, over); err != nil || d.Allowed != (i == 0) {
					b.Fatalf("Take %d of a quota of 1: %+v, %v", i, d, err)
				}
			}
			return setup{r, nil, over, []string{"over"}}
		}},
	} {
		for _, mode := range []string{"serial", "parallel"} {
			b.Run(fmt.Sprintf("store=%s/mode=%s", bc.name, mode), func(b *testing.B) {
				st := bc.mk(b)
				b.ReportAllocs()
				if mode == "serial" {
					i := 0
					for b.Loop() {
						if _, err := st.s.Take(ctx, st.keys[i%len(st.keys)], st.rate, st.quota); err != nil {
							b.Fatal(err)
						}
						i++
					}
					return
				}
				// Redis calls wait on the network: 8 goroutines per core
				// keep it busy.
				b.SetParallelism(8)
				var next atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					i := int(next.Add(1)) * 7919
					for pb.Next() {
						if _, err := st.s.Take(ctx, st.keys[i%len(st.keys)], st.rate, st.quota); err != nil {
							b.Error(err)
							return
						}
						i++
					}
				})
			})
		}
	}
}

// benchPrefix is a prefix of the benchmark's own, cleaned up after it.
func benchPrefix(b *testing.B) string {
	return redistest.Prefix(b, redisClient(b, redistest.URL(b)))
}

// pingStore is a Store that only sends Redis a PING: one round trip.
type pingStore struct{ c redis.UniversalClient }

func (p pingStore) Take(ctx context.Context, _ string, _ *Rate, _ *Quota) (Decision, error) {
	return Decision{Allowed: true}, p.c.Ping(ctx).Err()
}
