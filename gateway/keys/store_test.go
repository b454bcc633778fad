package keys_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/keys/keystest"
)

// TestFileStore holds File to what every Store does. Its own writes put
// the keys in force, with no Watch.
func TestFileStore(t *testing.T) {
	keystest.Run(t, func(t *testing.T, now func() time.Time) keys.Store {
		path := filepath.Join(t.TempDir(), "keys.yaml")
		if err := os.WriteFile(path, []byte("# keys of the test\nkeys: []\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := keys.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Now = now
		return s
	})
}
