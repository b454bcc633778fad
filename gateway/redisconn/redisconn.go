// Package redisconn builds the gateway's Redis clients from the one URL
// of the configuration (rate_limit.redis_url): the limit store's and the
// usage meter's, each a client of its own with the same options.
package redisconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
)

// Timeouts of a client made by Open, unless its URL sets them:
// short, because a request waits for them, and a circuit breaker (see
// limit.Resilient) stops the waiting once Redis is known to be down.
const (
	DialTimeout = 250 * time.Millisecond
	IOTimeout   = 250 * time.Millisecond // read and write
	PoolTimeout = 250 * time.Millisecond // waiting for a free connection
)

// Open returns a client for rawURL: a redis:// or rediss:// URL
// as go-redis parses it (redis.ParseURL), which may carry go-redis options
// as query parameters (read_timeout=50ms, pool_size=...). With more seed
// nodes as addr= parameters, or with cluster=true (a managed Redis whose one
// address is a cluster configuration endpoint), it returns a Cluster client
// (redis.ParseClusterURL).
//
// Timeouts default to DialTimeout, IOTimeout and
// PoolTimeout, one dial attempt, and no retries: a script that timed
// out may have run, and running it again would count the request twice.
func Open(rawURL string) (redis.UniversalClient, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	q := u.Query()
	cluster := len(q["addr"]) > 0
	if v, ok := q["cluster"]; ok {
		if len(v) != 1 || (v[0] != "true" && v[0] != "false") {
			return nil, errors.New("redis url: cluster: want true or false")
		}
		cluster = cluster || v[0] == "true"
		q.Del("cluster")
		u.RawQuery = q.Encode()
	}
	if cluster {
		o, err := redis.ParseClusterURL(u.String())
		if err != nil {
			return nil, err
		}
		setDefault(&o.DialTimeout, DialTimeout)
		setDefault(&o.ReadTimeout, IOTimeout)
		setDefault(&o.WriteTimeout, IOTimeout)
		setDefault(&o.PoolTimeout, PoolTimeout)
		setDefault(&o.DialerRetries, 1)
		setDefault(&o.MaxRetries, -1)
		o.ContextTimeoutEnabled = true
		return redis.NewClusterClient(o), nil
	}
	o, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, err
	}
	setDefault(&o.DialTimeout, DialTimeout)
	setDefault(&o.ReadTimeout, IOTimeout)
	setDefault(&o.WriteTimeout, IOTimeout)
	setDefault(&o.PoolTimeout, PoolTimeout)
	setDefault(&o.DialerRetries, 1)
	setDefault(&o.MaxRetries, -1)
	o.ContextTimeoutEnabled = true
	return redis.NewClient(o), nil
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// LogTo passes go-redis's own messages (a failed dial, a pool event) to
// log at debug level: outages are logged by their users, once each. It
// sets go-redis's one logger, for every client of the process.
func LogTo(log *slog.Logger) { redis.SetLogger(logger{log}) }

type logger struct{ log *slog.Logger }

func (l logger) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client", slog.String("detail", fmt.Sprintf(format, v...)))
}
