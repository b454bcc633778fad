package redisconn

import (
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		url     string
		cluster bool
		addrs   []string
		read    time.Duration
	}{
		{"redis://127.0.0.1:6379/0", false, []string{"127.0.0.1:6379"}, IOTimeout},
		{"redis://:secret@redis:6380/2?read_timeout=50ms", false, []string{"redis:6380"}, 50 * time.Millisecond},
		{"redis://cfg.example.com:6379?cluster=true", true, []string{"cfg.example.com:6379"}, IOTimeout},
		{"rediss://a:6379?addr=b:6379&addr=c:6379", true, []string{"a:6379", "b:6379", "c:6379"}, IOTimeout},
		{"redis://a:6379?cluster=false", false, []string{"a:6379"}, IOTimeout},
	} {
		t.Run(tc.url, func(t *testing.T) {
			c, err := Open(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			switch cc := c.(type) {
			case *redis.Client:
				o := cc.Options()
				if tc.cluster || o.Addr != tc.addrs[0] || o.ReadTimeout != tc.read || o.DialTimeout != DialTimeout ||
					o.MaxRetries != 0 || o.DialerRetries != 1 || !o.ContextTimeoutEnabled {
					t.Errorf("single-node options %+v", o)
				}
			case *redis.ClusterClient:
				o := cc.Options()
				if !tc.cluster || !slices.Equal(o.Addrs, tc.addrs) || o.ReadTimeout != tc.read || o.MaxRetries > 0 || o.DialerRetries != 1 || !o.ContextTimeoutEnabled {
					t.Errorf("cluster options %+v", o)
				}
			default:
				t.Fatalf("client %T", c)
			}
		})
	}
	for _, bad := range []string{"http://a:6379", "redis://a:6379?cluster=yes", "redis://a:6379?frobnicate=1", "redis://a:6379/x"} {
		if c, err := Open(bad); err == nil {
			c.Close()
			t.Errorf("Open(%q): no error", bad)
		}
	}
}
