package usage

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// classNames are the status classes as the Redis fields spell them.
var classNames = [len(counts{})]string{"2xx", "3xx", "4xx", "5xx"}

// memoryStore keeps the counts in this process: a gateway with neither
// Redis nor PostgreSQL loses them when it exits.
type memoryStore struct {
	retention day

	mu       sync.Mutex
	keys     map[string]map[bucket]counts // by key id
	last     map[string]int64
	prunedOn day
}

func newMemoryStore(retention time.Duration) *memoryStore {
	return &memoryStore{
		retention: day(retention / (24 * time.Hour)),
		keys:      map[string]map[bucket]counts{},
		last:      map[string]int64{},
	}
}

func (s *memoryStore) add(_ context.Context, rows []row, last map[string]int64, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if today := dayOf(now); today != s.prunedOn {
		s.prune(today - s.retention)
		s.prunedOn = today
	}
	for _, r := range rows {
		m := s.keys[r.keyID]
		if m == nil {
			m = map[bucket]counts{}
			s.keys[r.keyID] = m
		}
		n := m[r.bucket]
		n.add(r.n)
		m[r.bucket] = n
	}
	for id, t := range last {
		s.last[id] = max(s.last[id], t)
	}
	return nil
}

// prune drops the days before oldest; s.mu is held.
func (s *memoryStore) prune(oldest day) {
	for id, m := range s.keys {
		for b := range m {
			if b.day < oldest {
				delete(m, b)
			}
		}
		if len(m) == 0 {
			delete(s.keys, id)
		}
	}
}

func (s *memoryStore) read(_ context.Context, keyID string, from, to day) ([]row, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rows []row
	for b, n := range s.keys[keyID] {
		if b.day >= from && b.day <= to {
			rows = append(rows, row{bucket: b, n: n})
		}
	}
	return rows, nil
}

func (s *memoryStore) lastUsed(_ context.Context, since int64) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.last))
	for id, t := range s.last {
		if t < since {
			delete(s.last, id)
			continue
		}
		out[id] = t
	}
	return out, nil
}

// redisStore keeps the counts in Redis, shared by every replica: a hash
// per key and UTC day, "<prefix>{<key id>}:2026-11-24", whose fields are
// "<product>:<class>" ("exercisedb:2xx"), expiring the retention after the
// day ends; and one hash "<prefix>last" of every key's last use (Unix
// seconds), whose fields older than the retention lastUsed deletes. The hash tag {<key id>} puts a key's
// days in one Cluster slot.
type redisStore struct {
	client redis.UniversalClient
	prefix string
	ttl    time.Duration
}

func (s *redisStore) dayKey(keyID string, d day) string {
	return s.prefix + "{" + keyID + "}:" + d.String()
}

func (s *redisStore) lastKey() string { return s.prefix + "last" }

// raiseLast sets each field of KEYS[1] named by ARGV[i] to ARGV[i+1] if
// that is larger, so replicas flushing out of order never move a last use
// back.
var raiseLast = redis.NewScript(`
for i = 1, #ARGV, 2 do
  local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > cur then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return 0
`)

// add sends every increment, expiry and last use in one pipeline. A
// pipeline that fails may have been applied in part or whole; the Meter
// sends it again, so counts are never lost while the process runs, but a
// flush whose reply was lost (a timeout) can count twice.
func (s *redisStore) add(ctx context.Context, rows []row, last map[string]int64, _ time.Time) error {
	p := s.client.Pipeline()
	expiring := map[string]bool{}
	for _, r := range rows {
		k := s.dayKey(r.keyID, r.day)
		for i, n := range r.n {
			if n != 0 {
				p.HIncrBy(ctx, k, r.product+":"+classNames[i], n)
			}
		}
		if !expiring[k] {
			expiring[k] = true
			p.ExpireAt(ctx, k, r.day.time().Add(24*time.Hour+s.ttl))
		}
	}
	if len(last) > 0 {
		args := make([]any, 0, 2*len(last))
		for id, t := range last {
			args = append(args, id, t)
		}
		raiseLast.Eval(ctx, p, []string{s.lastKey()}, args...) // EVAL: EVALSHA's fallback does not work in a pipeline
	}
	_, err := p.Exec(ctx)
	return err
}

func (s *redisStore) read(ctx context.Context, keyID string, from, to day) ([]row, error) {
	p := s.client.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, 0, to-from+1)
	for d := from; d <= to; d++ {
		cmds = append(cmds, p.HGetAll(ctx, s.dayKey(keyID, d)))
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, err
	}
	var rows []row
	for i, cmd := range cmds {
		byProduct := map[string]counts{}
		for field, v := range cmd.Val() {
			product, class, ok := cutLast(field, ":")
			n, err := strconv.ParseInt(v, 10, 64)
			c := classIndex(class)
			if !ok || err != nil || c < 0 {
				continue // not ours
			}
			x := byProduct[product]
			x[c] += n
			byProduct[product] = x
		}
		for product, n := range byProduct {
			rows = append(rows, row{bucket: bucket{keyID: keyID, product: product, day: from + day(i)}, n: n})
		}
	}
	return rows, nil
}

func (s *redisStore) lastUsed(ctx context.Context, since int64) (map[string]int64, error) {
	all, err := s.client.HGetAll(ctx, s.lastKey()).Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(all))
	var old []string
	for id, v := range all {
		if t, err := strconv.ParseInt(v, 10, 64); err == nil && t >= since {
			out[id] = t
		} else {
			old = append(old, id)
		}
	}
	if len(old) > 0 {
		// A replica may raise one of them meanwhile: its key was used
		// after all, and its next flush sets the field again.
		if err := s.client.HDel(ctx, s.lastKey(), old...).Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func classIndex(name string) int {
	for i, c := range classNames {
		if c == name {
			return i
		}
	}
	return -1
}
