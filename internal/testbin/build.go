// Package testbin runs the repository's own binaries in tests: it builds
// each main package once per test binary, starts a binary and collects its
// JSON log lines, waits for a line, signals the process and waits for its
// exit. Every wait is bounded by testnet.PollTimeout unless the test says
// otherwise.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	mu      sync.Mutex
	dir     string                // where the binaries are built; set by Main
	running bool                  // Main is running the tests
	builds  = map[string]*build{} // by binary name
)

// build is one main package's binary, built on first use.
type build struct {
	pkg  string
	once sync.Once
	path string
	err  error
}

// Main runs the tests of a package that uses Build and removes the binaries
// afterwards: its TestMain calls it.
func Main(m *testing.M) {
	mu.Lock()
	running = true
	mu.Unlock()
	code := m.Run()
	mu.Lock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	mu.Unlock()
	os.Exit(code)
}

// Build returns the path of the binary of the main package pkg (a
// directory, relative to the test's package), building it on the first
// call of the test binary; a failed build fails the test, and every later
// one, with go build's output. The binary is named after pkg's directory,
// in one directory for all, so that binaries built together sit side by
// side.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(abs)
	mu.Lock()
	if !running {
		mu.Unlock()
		t.Fatal("testbin.Build: the package's TestMain must call testbin.Main")
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "testbin-"); err != nil {
			mu.Unlock()
			t.Fatal(err)
		}
	}
	b := builds[name]
	if b == nil {
		b = &build{pkg: abs, path: filepath.Join(dir, name)}
		builds[name] = b
	}
	mu.Unlock()
	if b.pkg != abs {
		t.Fatalf("testbin.Build: %s and %s would both be built as %s", b.pkg, abs, name)
	}
	b.once.Do(func() {
		if out, err := exec.Command("go", "build", "-o", b.path, abs).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}
