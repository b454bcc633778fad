package keys

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testlog"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// pollLimit bounds every wait for a file event to be noticed.
const pollLimit = 5 * time.Second

// keysFile returns a keys file holding one key per id, key i having the
// hash of hashes[i].
func keysFile(t *testing.T, idHash ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# test keys\nkeys:\n")
	for i := 0; i+1 < len(idHash); i += 2 {
		fmt.Fprintf(&b, "  - id: %s\n    hash: %s\n    products: {exercisedb: Pro}\n", idHash[i], idHash[i+1])
	}
	return b.String()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// found reports whether the store's current set knows key.
func found(s *File, key string) bool {
	_, ok := s.Current().Lookup(key)
	return ok
}

func openStore(t *testing.T, path string) (*File, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	s, err := Open(path, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s, logs
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content *string // nil: no file
		keys    int
		wantErr string
	}{
		{name: "valid", content: ptr(keysFile(t, "a", hashA, "b", hashB)), keys: 2},
		{name: "empty", content: ptr(""), keys: 0},
		{name: "missing file", wantErr: "no such file"},
		{name: "broken file", content: ptr("keys:\n  - id: a\n"), wantErr: "missing hash"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("keys%d.yaml", i))
			if tt.content != nil {
				writeFile(t, path, *tt.content)
			}
			s, err := Open(path, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if got := s.Current().Len(); got != tt.keys {
				t.Errorf("Len() = %d, want %d", got, tt.keys)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	writeFile(t, path, keysFile(t, "a", hashA))
	s, logs := openStore(t, path)
	var reloads []error
	s.OnReload = func(err error) { reloads = append(reloads, err) }

	t.Run("success swaps the set", func(t *testing.T) {
		writeFile(t, path, keysFile(t, "b", hashB))
		if err := s.Reload(); err != nil {
			t.Fatalf("Reload: %v", err)
		}
		if found(s, keyA) || !found(s, keyB) {
			t.Errorf("after reload: key a found = %v, key b found = %v; want false, true", found(s, keyA), found(s, keyB))
		}
		if !strings.Contains(logs.String(), "keys=1") {
			t.Errorf("logs do not give the number of keys:\n%s", logs)
		}
	})

	// Broken files that hold a key and hashes in places where a careless
	// edit might put them: none may reach the log.
	broken := []struct {
		name    string
		content string
	}{
		{"key instead of hash", "keys:\n  - id: c\n    hash: " + keyC + "\n    products: {exercisedb: Pro}\n"},
		{"duplicate hash", keysFile(t, "b", hashB, "c", hashB)},
		{"unknown field", keysFile(t, "b", hashB) + "    secret: " + keyC + "\n"},
		{"key as bool", keysFile(t, "b", hashB) + "    disabled: " + keyC + "\n"},
		{"syntax error", "keys:\n  - id: c\n    hash: " + hashC + "\n   products: [" + keyC + "\n"},
		{"half written", keysFile(t, "b", hashB, "c", hashC)[:60]},
		// Truncated by a rewrite in place, not written yet.
		{"empty", ""},
		{"blank", "\n  \n"},
	}
	for _, tt := range broken {
		t.Run("broken file keeps the previous set: "+tt.name, func(t *testing.T) {
			before := s.Current()
			writeFile(t, path, tt.content)
			if err := s.Reload(); err == nil {
				t.Fatal("Reload succeeded, want an error")
			}
			if s.Current() != before {
				t.Error("the set changed after a failed reload")
			}
			if !found(s, keyB) {
				t.Error("key b no longer found after a failed reload")
			}
		})
	}

	t.Run("missing file keeps the previous set", func(t *testing.T) {
		os.Remove(path)
		if err := s.Reload(); err == nil {
			t.Fatal("Reload succeeded, want an error")
		}
		if !found(s, keyB) {
			t.Error("key b no longer found after a failed reload")
		}
	})

	t.Run("logs hold no key and no hash", func(t *testing.T) {
		out := logs.String()
		for _, secret := range []string{keyA, keyB, keyC, hashA, hashB, hashC, hexOf(hashA)[:16], hexOf(hashB)[:16], hexOf(hashC)[:16], keyC[:7]} {
			if strings.Contains(out, secret) {
				t.Errorf("logs contain %q:\n%s", secret, out)
			}
		}
		if !strings.Contains(out, "previous keys stay in force") {
			t.Errorf("logs do not report the failed reloads:\n%s", out)
		}
	})

	t.Run("OnReload saw every attempt", func(t *testing.T) {
		if got, want := len(reloads), 2+len(broken); got != want {
			t.Fatalf("OnReload called %d times, want %d", got, want)
		}
		for i, err := range reloads {
			if (err == nil) != (i == 0) {
				t.Errorf("OnReload call %d had error %v", i, err)
			}
		}
	})
}

func hexOf(hash string) string { return strings.TrimPrefix(hash, hashPrefix) }

// watch runs s.Watch until the test ends. It returns once the directory is
// watched, so that the changes the test makes next are seen as events.
func watch(t *testing.T, s *File, hup <-chan os.Signal) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	watching := make(chan struct{})
	s.watching = func() { close(watching) }
	go func() { done <- s.Watch(ctx, hup) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch: %v", err)
			}
		case <-time.After(pollLimit):
			t.Errorf("Watch did not return within %v of its context ending", pollLimit)
		}
	})
	select {
	case <-watching:
	case err := <-done:
		t.Fatalf("Watch returned early: %v", err)
	case <-time.After(pollLimit):
		t.Fatalf("Watch did not start within %v", pollLimit)
	}
}

func TestWatch(t *testing.T) {
	t.Run("SIGHUP", func(t *testing.T) {
		// The file is a symlink to another directory, whose changes Watch
		// does not see: only the signal reloads it.
		real := filepath.Join(t.TempDir(), "real.yaml")
		writeFile(t, real, keysFile(t, "a", hashA))
		path := filepath.Join(t.TempDir(), "keys.yaml")
		if err := os.Symlink(real, path); err != nil {
			t.Fatal(err)
		}
		s, _ := openStore(t, path)
		hup := make(chan os.Signal)
		watch(t, s, hup)

		writeFile(t, real, keysFile(t, "b", hashB))
		hup <- syscall.SIGHUP
		testnet.Eventually(t, "key b found after SIGHUP", func() error { return testnet.Unless(found(s, keyB), "not yet") })
		writeFile(t, real, keysFile(t, "c", hashC))
		hup <- syscall.SIGHUP
		testnet.Eventually(t, "key c found after a second SIGHUP", func() error { return testnet.Unless(found(s, keyC), "not yet") })
	})

	t.Run("write in place", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "keys.yaml")
		writeFile(t, path, keysFile(t, "a", hashA))
		s, _ := openStore(t, path)
		watch(t, s, nil)

		writeFile(t, path, keysFile(t, "a", hashA, "b", hashB))
		testnet.Eventually(t, "key b found", func() error { return testnet.Unless(found(s, keyB), "not yet") })
	})

	t.Run("replace by rename", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "keys.yaml")
		writeFile(t, path, keysFile(t, "a", hashA))
		s, _ := openStore(t, path)
		watch(t, s, nil)

		tmp := filepath.Join(dir, "keys.yaml.new")
		writeFile(t, tmp, keysFile(t, "b", hashB))
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		testnet.Eventually(t, "key b found and key a gone", func() error { return testnet.Unless(found(s, keyB) && !found(s, keyA), "not yet") })
	})

	t.Run("ConfigMap symlink swap", func(t *testing.T) {
		// The layout of a Kubernetes ConfigMap volume:
		// keys.yaml -> ..data/keys.yaml, ..data -> ..2026_<version>.
		dir := t.TempDir()
		version := func(name, content string) {
			t.Helper()
			if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, name, "keys.yaml"), content)
		}
		version("..2026_a", keysFile(t, "a", hashA))
		if err := os.Symlink("..2026_a", filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "keys.yaml")
		if err := os.Symlink(filepath.Join("..data", "keys.yaml"), path); err != nil {
			t.Fatal(err)
		}
		s, _ := openStore(t, path)
		watch(t, s, nil)

		version("..2026_b", keysFile(t, "b", hashB))
		if err := os.Symlink("..2026_b", filepath.Join(dir, "..data_tmp")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
		testnet.Eventually(t, "key b found and key a gone", func() error { return testnet.Unless(found(s, keyB) && !found(s, keyA), "not yet") })
	})

	t.Run("broken file then fixed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "keys.yaml")
		writeFile(t, path, keysFile(t, "a", hashA))
		s, _ := openStore(t, path)
		failed := make(chan struct{}, 1)
		s.OnReload = func(err error) {
			if err != nil {
				select {
				case failed <- struct{}{}:
				default:
				}
			}
		}
		watch(t, s, nil)

		writeFile(t, path, "keys:\n  - id: b\n")
		select {
		case <-failed:
		case <-time.After(pollLimit):
			t.Fatalf("no failed reload within %v", pollLimit)
		}
		if !found(s, keyA) {
			t.Error("key a lost after a broken file")
		}
		writeFile(t, path, keysFile(t, "b", hashB))
		testnet.Eventually(t, "key b found", func() error { return testnet.Unless(found(s, keyB), "not yet") })
	})

	t.Run("context end stops it", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "keys.yaml")
		writeFile(t, path, keysFile(t, "a", hashA))
		s, _ := openStore(t, path)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Watch(ctx, make(chan os.Signal)) }()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch = %v, want nil", err)
			}
		case <-time.After(pollLimit):
			t.Fatalf("Watch did not return within %v of its context ending", pollLimit)
		}
	})
}
