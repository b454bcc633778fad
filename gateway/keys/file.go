package keys

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exercisedb/exercisedb/pkg/filewatch"
)

// File holds the keys file's current Set and replaces it when the file
// changes. It is safe for concurrent use: requests call Current while Reload
// or Watch swap the Set.
type File struct {
	// OnReload, when not nil, is called after every reload that Reload or
	// Watch attempts (not the first load in Open), with the attempt's error:
	// nil when the new keys are in force, non-nil when the previous ones
	// stay. It lets the caller count reloads and failures in metrics. Set it
	// before calling Watch or Reload and do not change it afterwards; calls
	// come one at a time.
	OnReload func(err error)
	// Now is the clock of the operations that check expiry times; nil
	// means time.Now.
	Now func() time.Time

	path string
	log  *slog.Logger
	cur  atomic.Pointer[Set]

	mu     sync.Mutex        // serialises reloads
	digest [sha256.Size]byte // of the file content in force

	watching func() // if not nil, called once Watch sees changes; for tests
}

// Open loads the keys file at path and returns a File holding it. A file
// that cannot be read or parsed is an error: the gateway does not start
// without its keys. log may be nil.
func Open(path string, log *slog.Logger) (*File, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &File{path: path, log: log}
	set, digest, err := load(path, true)
	if err != nil {
		return nil, err
	}
	s.cur.Store(set)
	s.digest = digest
	log.Info("keys file loaded", "path", path, "keys", set.Len())
	return s, nil
}

// Current returns the Set in force. Hold it for one request, not longer:
// a reload replaces it.
func (s *File) Current() *Set { return s.cur.Load() }

// Reload reads the keys file again. On success the new Set replaces the
// current one and the number of keys is logged. On failure the error is
// logged (never the file's content) and returned, and the previous Set stays
// in force: a broken, missing or half-written file never revokes every key.
func (s *File) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reloadLocked()
}

func (s *File) reloadLocked() error {
	set, digest, err := load(s.path, false)
	if err != nil {
		s.log.Error("keys file reload failed; the previous keys stay in force",
			"path", s.path, "keys", s.cur.Load().Len(), "err", err)
	} else {
		s.cur.Store(set)
		s.digest = digest
		s.log.Info("keys file reloaded", "path", s.path, "keys", set.Len())
	}
	if s.OnReload != nil {
		s.OnReload(err)
	}
	return err
}

// reloadIfChanged reloads when the file's content differs from the content
// in force, or cannot be read.
func (s *File) reloadIfChanged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(s.path)
	if err == nil && sha256.Sum256(data) == s.digest {
		return
	}
	s.reloadLocked()
}

// load reads the keys file. An empty one is no keys when allowEmpty (at
// start), and an error otherwise.
func load(path string, allowEmpty bool) (*Set, [sha256.Size]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, [sha256.Size]byte{}, fmt.Errorf("read keys file: %w", err)
	}
	if !allowEmpty && len(bytes.TrimSpace(data)) == 0 {
		// A file rewritten in place is empty for a moment (truncated, not
		// yet written): taking that for "no keys" on a reload refused
		// every key until the rest was written.
		return nil, [sha256.Size]byte{}, fmt.Errorf("%s: the file is empty (a write in progress?); an empty list of keys is written keys: []", path)
	}
	set, err := Parse(data)
	if err != nil {
		return nil, [sha256.Size]byte{}, fmt.Errorf("%s: %w", path, err)
	}
	return set, sha256.Sum256(data), nil
}

// Watch reloads the keys file on every value received from hup, and when the
// file changes, until ctx ends; then it returns nil. The caller wires hup
// with signal.Notify(hup, syscall.SIGHUP); a nil hup is never ready. Call
// Watch once per File. How changes are seen, and what is not seen, is
// filewatch.Watch's.
func (s *File) Watch(ctx context.Context, hup <-chan os.Signal) error {
	started := func() {
		// The file may have changed between Open and the start of the watch.
		s.reloadIfChanged()
		if s.watching != nil {
			s.watching()
		}
	}
	return filewatch.Watch(ctx, s.path, hup, s.log, started, func(why filewatch.Reason) {
		if why == filewatch.Signal {
			s.log.Info("reloading keys file on signal", "path", s.path)
		}
		s.Reload() // logs its own error
	})
}
