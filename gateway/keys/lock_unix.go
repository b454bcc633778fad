//go:build unix

package keys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// lockWait bounds how long Append waits for another Append to finish.
const lockWait = 10 * time.Second

// lockFile takes an exclusive flock(2) on the file at path, creating it.
// flock locks belong to the open file, so two goroutines of one process
// exclude each other as two processes do, and the kernel drops the lock when
// its holder exits, so a crash never leaves a stale lock.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: still held by another process after %v", path, lockWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// keepOwner gives f the owner and group of the file info describes, so that
// a key added by root to a file the gateway's user reads stays readable by
// that user. Without the privilege to do so, the owner stays the caller.
func keepOwner(f *os.File, info fs.FileInfo) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
