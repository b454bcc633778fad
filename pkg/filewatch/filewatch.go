// Package filewatch follows a configuration or data file the way operators
// change one: on SIGHUP, and when the file changes on disk, including when
// it is replaced by rename (editors, mv) or when a Kubernetes ConfigMap
// swaps its ..data symlink. Both binaries reload their files through it.
package filewatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Debounce is how long Watch waits after the last change before it calls
// back, so that a burst of events (write, chmod, rename) gives one reload.
const Debounce = 100 * time.Millisecond

// configMapData is the symlink that Kubernetes swaps atomically when a
// ConfigMap or Secret volume is updated.
const configMapData = "..data"

// Reason says why Watch calls back.
type Reason int

const (
	Signal Reason = iota // SIGHUP (a value on the hup channel)
	Change               // the file changed on disk
)

// Watch calls reload on every value received from hup and after the file
// at path changes, until ctx ends; then it returns nil. The caller wires
// hup with signal.Notify(hup, syscall.SIGHUP); a nil hup is never ready.
// started, if not nil, is called once changes are being watched, so that
// the caller can catch a change made before that.
//
// Changes are seen through fsnotify on the file's directory, not on the
// file, so that a replaced file is still followed. Events for other names
// in the directory are ignored. If the file is a symlink whose target
// lies in another directory (other than the ConfigMap layout), changes to
// the target are not seen: send SIGHUP.
//
// Watch returns an error at once if it cannot watch the directory (for
// example when inotify instances are exhausted); nothing is watched then,
// not even hup.
func Watch(ctx context.Context, path string, hup <-chan os.Signal, log *slog.Logger, started func(), reload func(Reason)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", path, err)
	}
	defer w.Close()
	dir, base := filepath.Dir(path), filepath.Base(path)
	if err := w.Add(dir); err != nil {
		return fmt.Errorf("watch the directory of %s: %w", path, err)
	}
	if started != nil {
		started()
	}

	timer := time.NewTimer(Debounce)
	timer.Stop()
	defer timer.Stop()
	var fire <-chan time.Time // nil while no reload is pending
	schedule := func() {
		timer.Reset(Debounce)
		fire = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-hup:
			if !ok {
				hup = nil
				continue
			}
			reload(Signal)
		case ev, ok := <-w.Events:
			if !ok {
				return fmt.Errorf("watch %s: the watcher closed", path)
			}
			if name := filepath.Base(ev.Name); (name == base || name == configMapData) && ev.Op != fsnotify.Chmod {
				schedule()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return fmt.Errorf("watch %s: the watcher closed", path)
			}
			log.Warn("watching file", "path", path, "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				schedule() // events were lost; one of them may have been ours
			}
		case <-fire:
			fire = nil
			reload(Change)
		}
	}
}
