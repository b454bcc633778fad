package keys

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

func TestGenerate(t *testing.T) {
	const n = 1000
	seen := map[string]bool{}
	for range n {
		key, hash, err := Generate()
		if err != nil {
			t.Fatalf("Generate: %v", err)
		}
		if !strings.HasPrefix(key, KeyPrefix) {
			t.Fatalf("key %q does not start with %q", key, KeyPrefix)
		}
		if len(key) != 48 {
			t.Fatalf("key has %d characters, want 48", len(key))
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(key, KeyPrefix))
		if err != nil || len(raw) != 32 {
			t.Fatalf("key %q is not 32 bytes in unpadded URL-safe base64 after its prefix (%d bytes, %v)", key, len(raw), err)
		}
		if hash != Hash(key) {
			t.Fatalf("hash = %q, want Hash(key) = %q", hash, Hash(key))
		}
		if _, ok := parseHash(hash); !ok {
			t.Fatalf("hash %q is not in the keys file's form", hash)
		}
		if seen[key] {
			t.Fatalf("key %q generated twice", key)
		}
		seen[key] = true
	}
}

func TestNewID(t *testing.T) {
	form := regexp.MustCompile(`^key_[a-z2-7]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !form.MatchString(id) {
			t.Fatalf("id %q does not match %v", id, form)
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
	}
}

func TestAppend(t *testing.T) {
	newKey := Key{ID: "key_new", Name: "new app: the #1", Products: map[string]string{"exercisedb": "Pro", "other": "Basic"}}
	newEntry := func(indent string) string {
		return fmt.Sprintf("%[1]s- id: key_new\n%[1]s  name: 'new app: the #1'\n%[1]s  hash: %[2]s\n%[1]s  products: {exercisedb: Pro, other: Basic}\n%[1]s  disabled: false\n", indent, hashC)
	}
	existing := fmt.Sprintf(`# Keys of the gateway.
keys:
  # the demo key
  - id: a
    name: demo   # for the README
    hash: %s
    products: {exercisedb: Pro}
    disabled: true
# trailing comment
`, hashA)
	a := Key{ID: "a", Name: "demo", Products: map[string]string{"exercisedb": "Pro"}, Disabled: true}

	tests := []struct {
		name     string
		old      *string // nil: no file
		mode     fs.FileMode
		wantText string   // if set, the exact new content
		wantKeys []Key    // before the new one
		keep     []string // text that must survive
	}{
		{
			name:     "missing file",
			wantText: "keys:\n" + newEntry("  "),
		},
		{
			name:     "canonical file with comments",
			old:      &existing,
			mode:     0o640,
			wantText: existing + newEntry("  "),
			wantKeys: []Key{a},
		},
		{
			name:     "no final newline",
			old:      ptr(strings.TrimSuffix(existing, "\n")),
			mode:     0o644,
			wantText: existing + newEntry("  "),
			wantKeys: []Key{a},
		},
		{
			name:     "list items at column 0",
			old:      ptr("keys:\n- id: a\n  hash: " + hashA + "\n  products: {exercisedb: Pro}\n"),
			wantText: "keys:\n- id: a\n  hash: " + hashA + "\n  products: {exercisedb: Pro}\n" + newEntry(""),
			wantKeys: []Key{{ID: "a", Products: map[string]string{"exercisedb": "Pro"}}},
		},
		{
			name:     "list items indented by 4",
			old:      ptr("keys:\n    -   id: a\n        hash: " + hashA + "\n        products: {exercisedb: Pro}\n"),
			wantText: "keys:\n    -   id: a\n        hash: " + hashA + "\n        products: {exercisedb: Pro}\n" + newEntry("    "),
			wantKeys: []Key{{ID: "a", Products: map[string]string{"exercisedb": "Pro"}}},
		},
		{
			name:     "empty file",
			old:      ptr(""),
			wantText: "keys:\n" + newEntry("  "),
		},
		{
			name:     "comments only",
			old:      ptr("# no keys yet\n"),
			wantText: "# no keys yet\nkeys:\n" + newEntry("  "),
		},
		{
			name:     "keys with no value",
			old:      ptr("# head\nkeys:\n# foot\n"),
			wantText: "# head\nkeys:\n# foot\n" + newEntry("  "),
		},
		{
			name: "empty flow list",
			old:  ptr("# head comment\nkeys: [] # none yet\n"),
			keep: []string{"# head comment", "# none yet"},
		},
		{
			name:     "flow list",
			old:      ptr("# head comment\nkeys: [{id: a, hash: " + hashA + ", products: {exercisedb: Pro}}]\n"),
			wantKeys: []Key{{ID: "a", Products: map[string]string{"exercisedb": "Pro"}}},
			keep:     []string{"# head comment"},
		},
		{
			name:     "document end marker",
			old:      ptr("keys:\n  # the demo key\n  - id: a\n    hash: " + hashA + "\n    products: {exercisedb: Pro}\n...\n"),
			wantKeys: []Key{{ID: "a", Products: map[string]string{"exercisedb": "Pro"}}},
			keep:     []string{"# the demo key"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "keys.yaml")
			wantMode := fs.FileMode(0o600)
			if tt.old != nil {
				writeFile(t, path, *tt.old)
				if err := os.Chmod(path, tt.mode|0o600); err != nil {
					t.Fatal(err)
				}
				wantMode = tt.mode | 0o600
			}
			if err := Append(path, newKey, hashC); err != nil {
				t.Fatalf("Append: %v", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantText != "" {
				if diff := cmp.Diff(tt.wantText, string(got)); diff != "" {
					t.Errorf("file (-want +got):\n%s", diff)
				}
			}
			for _, s := range tt.keep {
				if !strings.Contains(string(got), s) {
					t.Errorf("file lost %q:\n%s", s, got)
				}
			}
			s := mustParse(t, string(got))
			if diff := cmp.Diff(append(tt.wantKeys, newKey), keysOf(t, s)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if k, ok := s.Lookup(keyC); !ok || k.ID != newKey.ID {
				t.Errorf("Lookup(new key) = %v, %v", k, ok)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode() != wantMode {
				t.Errorf("mode = %v, want %v", info.Mode(), wantMode)
			}
			assertNoTempFiles(t, filepath.Dir(path))
		})
	}
}

// assertNoTempFiles checks that dir holds only the keys file and its lock.
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if n := e.Name(); n != "keys.yaml" && n != "keys.yaml.lock" && n != "real.yaml" && n != "real.yaml.lock" {
			t.Errorf("left behind: %s", n)
		}
	}
}

func TestAppendRefuses(t *testing.T) {
	existing := keysFile(t, "a", hashA)
	valid := Key{ID: "b", Products: map[string]string{"exercisedb": "Pro"}}
	tests := []struct {
		name    string
		old     string
		key     Key
		hash    string
		wantErr string
		is      error
	}{
		{name: "duplicate id", old: existing, key: Key{ID: "a", Products: valid.Products}, hash: hashB, wantErr: `id "a"`, is: ErrDuplicateID},
		{name: "duplicate hash", old: existing, key: valid, hash: hashA, wantErr: `already used by id "a"`},
		{name: "no id", old: existing, key: Key{Products: valid.Products}, hash: hashB, wantErr: "missing id"},
		{name: "no products", old: existing, key: Key{ID: "b"}, hash: hashB, wantErr: "products is empty"},
		{name: "product without plan", old: existing, key: Key{ID: "b", Products: map[string]string{"exercisedb": ""}}, hash: hashB, wantErr: "has no plan"},
		{name: "malformed hash", old: existing, key: valid, hash: "sha256:abc", wantErr: "malformed hash"},
		{name: "key instead of hash", old: existing, key: valid, hash: keyB, wantErr: "malformed hash"},
		{name: "invalid existing file", old: existing + "    plan: Pro\n", key: valid, hash: hashB, wantErr: "keys file is invalid, fix it first", is: ErrInvalidFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "keys.yaml")
			writeFile(t, path, tt.old)
			err := Append(path, tt.key, tt.hash)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Append error = %v, want one containing %q", err, tt.wantErr)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Append error = %v, want one that is %v", err, tt.is)
			}
			if strings.Contains(err.Error(), keyB) {
				t.Errorf("error %q contains the key", err)
			}
			got, _ := os.ReadFile(path)
			if diff := cmp.Diff(tt.old, string(got)); diff != "" {
				t.Errorf("file changed (-old +new):\n%s", diff)
			}
			assertNoTempFiles(t, filepath.Dir(path))
		})
	}
}

func TestAppendThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.yaml")
	writeFile(t, real, keysFile(t, "a", hashA))
	path := filepath.Join(dir, "keys.yaml")
	if err := os.Symlink("real.yaml", path); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, Key{ID: "b", Products: map[string]string{"exercisedb": "Pro"}}, hashB); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if info, err := os.Lstat(path); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("keys.yaml is no longer a symlink (%v, %v)", info, err)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	if s := mustParse(t, string(data)); s.Len() != 2 {
		t.Errorf("real.yaml has %d keys, want 2", s.Len())
	}
	assertNoTempFiles(t, dir)
}

// TestAppendWatched checks that a File watching the file picks up a key
// that Append adds.
func TestAppendWatched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	writeFile(t, path, keysFile(t, "a", hashA))
	s, _ := openStore(t, path)
	watch(t, s, nil)

	key, hash, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := Append(path, Key{ID: NewID(), Products: map[string]string{"exercisedb": "Pro"}}, hash); err != nil {
		t.Fatalf("Append: %v", err)
	}
	testnet.Eventually(t, "the new key found", func() error { return testnet.Unless(found(s, key), "not yet") })
}

// appendMany appends n new keys whose ids start with prefix from n
// goroutines at once, and returns the keys by id.
func appendMany(t *testing.T, path, prefix string, n int) map[string]string {
	t.Helper()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		keys = map[string]string{}
	)
	for i := range n {
		wg.Go(func() {
			key, hash, err := Generate()
			if err != nil {
				t.Error(err)
				return
			}
			id := fmt.Sprintf("%s%02d", prefix, i)
			if err := Append(path, Key{ID: id, Products: map[string]string{"exercisedb": "Pro"}}, hash); err != nil {
				t.Errorf("Append %s: %v", id, err)
				return
			}
			mu.Lock()
			keys[id] = key
			mu.Unlock()
		})
	}
	wg.Wait()
	return keys
}

// checkAll checks that the file at path holds exactly the keys given by id.
func checkAll(t *testing.T, path string, keys map[string]string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustParse(t, string(data))
	if s.Len() != len(keys) {
		t.Errorf("file has %d keys, want %d", s.Len(), len(keys))
	}
	for id, key := range keys {
		if k, ok := s.Lookup(key); !ok || k.ID != id {
			t.Errorf("key of %s: Lookup = %v, %v", id, k.ID, ok)
		}
	}
}

func TestAppendConcurrent(t *testing.T) {
	t.Run("goroutines", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "keys.yaml")
		checkAll(t, path, appendMany(t, path, "key_g", 20))
	})

	t.Run("processes", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts the test binary twice")
		}
		path := filepath.Join(t.TempDir(), "keys.yaml")
		const perProcess = 10
		type result struct {
			out []byte
			err error
		}
		results := make(chan result, 2)
		for p := range 2 {
			cmd := exec.Command(os.Args[0], "-test.run=^TestAppendHelperProcess$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(),
				"KEYS_TEST_APPEND_FILE="+path,
				fmt.Sprintf("KEYS_TEST_APPEND_PREFIX=key_p%d_", p),
				fmt.Sprintf("KEYS_TEST_APPEND_N=%d", perProcess),
			)
			go func() {
				out, err := cmd.CombinedOutput()
				results <- result{out, err}
			}()
		}
		keys := appendMany(t, path, "key_g", perProcess)
		for range 2 {
			r := <-results
			if r.err != nil {
				t.Fatalf("helper process: %v\n%s", r.err, r.out)
			}
			// The helper prints each key it added as "added <id> <key>".
			for _, line := range strings.Split(string(r.out), "\n") {
				if f := strings.Fields(line); len(f) == 3 && f[0] == "added" {
					keys[f[1]] = f[2]
				}
			}
		}
		if len(keys) != 3*perProcess {
			t.Fatalf("%d keys reported added, want %d", len(keys), 3*perProcess)
		}
		checkAll(t, path, keys)
	})
}

// TestAppendHelperProcess is run by TestAppendConcurrent in other processes.
func TestAppendHelperProcess(t *testing.T) {
	path := os.Getenv("KEYS_TEST_APPEND_FILE")
	if path == "" {
		t.Skip("helper of TestAppendConcurrent")
	}
	var n int
	fmt.Sscan(os.Getenv("KEYS_TEST_APPEND_N"), &n)
	for id, key := range appendMany(t, path, os.Getenv("KEYS_TEST_APPEND_PREFIX"), n) {
		fmt.Printf("added %s %s\n", id, key)
	}
}
