//go:build !unix

package keys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockWait bounds how long Append waits for another Append to finish.
const lockWait = 10 * time.Second

// lockFile takes a lock by creating the file at path exclusively, and
// removes it on unlock. A process that crashes while holding the lock leaves
// the file behind; the error says so, and removing the file clears it.
func lockFile(path string) (unlock func(), err error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s: still held after %v; if no key is being added, remove the file", path, lockWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, fs.FileInfo) {}

// syncDir does nothing where directories cannot be synced.
func syncDir(string) error { return nil }
