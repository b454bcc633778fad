package pgstore

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// How a Postgres store follows its table: one connection per replica
// LISTENs, and every wake-up reloads the whole table into a new keys.Set.

// Reconnection delays: the first retry after a failure waits
// reconnectFirst, each next one twice as long up to reconnectMax, each
// drawn between half and all of that (jitter, so that replicas do not
// reconnect in step). reconnectDial bounds one connection attempt.
const (
	reconnectFirst = 100 * time.Millisecond
	reconnectMax   = time.Second
	reconnectDial  = 5 * time.Second
)

// Watch follows the table until ctx ends, and returns nil. After a
// connection that worked fails, it reconnects at once (a dropped connection
// costs no delay), then keeps probing at most about a second apart (see
// reconnectDelay): however long the outage, changes made meanwhile are
// loaded within a second or so of the database's return. A probe is one
// connection attempt, cheap for the database.
func (s *Keys) Watch(ctx context.Context, hup <-chan os.Signal) error {
	failures := 0
	for {
		loaded, err := s.follow(ctx, hup)
		if ctx.Err() != nil {
			return nil
		}
		s.synced(err)
		if loaded {
			failures = 0
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(reconnectDelay(failures, rand.Float64())):
		}
		failures++
	}
}

// reconnectDelay is the wait before the next connection attempt after
// failures failed ones in a row (0: the connection that worked just
// dropped, so at once), with jitter in [0, 1) choosing within the upper
// half of the backoff.
func reconnectDelay(failures int, jitter float64) time.Duration {
	if failures == 0 {
		return 0
	}
	d := reconnectMax
	if failures < 8 && reconnectFirst<<(failures-1) < reconnectMax {
		d = reconnectFirst << (failures - 1)
	}
	return d/2 + time.Duration(jitter*float64(d/2))
}

// follow connects, LISTENs, loads, and reloads on every notification, hup
// and ResyncEvery, until the connection fails. It reports whether it loaded
// the keys at least once.
func (s *Keys) follow(ctx context.Context, hup <-chan os.Signal) (loaded bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, reconnectDial)
	conn, err := pgx.ConnectConfig(cctx, s.listen)
	cancel()
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// Listen before loading: a change committed after the load's snapshot
	// is then notified, so none falls between the two.
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return false, err
	}
	why := "connected"
	for {
		set, err := s.load(ctx, conn)
		if err != nil {
			return loaded, err
		}
		loaded = true
		s.cur.Store(set)
		s.synced(nil)
		level := slog.LevelInfo
		if why == "periodic" {
			level = slog.LevelDebug
		}
		s.opts.Log.Log(ctx, level, "keys reloaded from PostgreSQL", "reason", why, "keys", set.Len())

		why, err = s.wait(ctx, conn, hup)
		if err != nil {
			return loaded, err
		}
	}
}

// wait returns when a notification comes ("notified"), hup is ready
// ("signal"), ResyncEvery passes ("periodic"), or the connection fails.
func (s *Keys) wait(ctx context.Context, conn *pgx.Conn, hup <-chan os.Signal) (why string, err error) {
	wctx, cancel := context.WithTimeout(ctx, s.opts.ResyncEvery)
	defer cancel()
	var signalled atomic.Bool
	go func() {
		select {
		case <-hup:
			signalled.Store(true)
			cancel()
		case <-wctx.Done():
		}
	}()
	_, err = conn.WaitForNotification(wctx)
	switch {
	case err == nil:
		return "notified", nil
	case ctx.Err() != nil || conn.IsClosed():
		return "", err
	case signalled.Load():
		return "signal", nil
	case errors.Is(wctx.Err(), context.DeadlineExceeded):
		return "periodic", nil
	}
	return "", err
}

// synced records the outcome of a load attempt: the state, the hook, and
// one log line per outage and per recovery.
func (s *Keys) synced(err error) {
	if s.OnSync != nil {
		s.OnSync(err)
	}
	switch {
	case err == nil && !s.up.Swap(true):
		s.opts.Log.Info("key store reachable again; keys reloaded", "keys", s.cur.Load().Len())
	case err != nil && s.up.Swap(false):
		s.opts.Log.Error("key store unreachable; the keys last loaded stay in force until it is back",
			"keys", s.cur.Load().Len(), "err", err)
	}
}
