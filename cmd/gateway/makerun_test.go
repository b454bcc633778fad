package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestMakeRun runs dev/run.sh (make run) as a newcomer would: it says what
// it builds and when it is ready, the curl line it prints works, a key
// made with the README's command works against it at once, a second one
// beside it refuses naming the port, and the development key, printed on
// a line of its own, is the same on the next run. Its keys go to a
// temporary file (GATEWAY_KEYS_FILE), not to dev/keys.yaml, and the
// development key beside it.
func TestMakeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	for _, port := range []string{"8080", "9090", "9091", "9092"} {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			t.Skipf("127.0.0.1:%s is taken (a make run going?)", port)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	env := append(os.Environ(), "GATEWAY_KEYS_FILE="+keysFile)
	said, stop := makeRun(t, root, env)
	curl := ""
	for _, line := range said {
		if strings.Contains(line, "curl -s") {
			curl = strings.TrimSpace(line)
		}
	}
	if !strings.HasPrefix(said[0], "Building bin/") || !slicesContainsPrefix(said, "Built in ") {
		t.Errorf("make run does not say what it builds:\n%s", strings.Join(said, "\n"))
	}

	// The printed curl line, run as printed.
	m := regexp.MustCompile(`-H 'X-Gateway-Key: (\S+)' '(\S+)'`).FindStringSubmatch(curl)
	if m == nil {
		t.Fatalf("curl line %q", curl)
	}
	if code, body := get(t, m[2], m[1]); code != 200 || !strings.Contains(body, `"success":true`) {
		t.Errorf("the printed curl line: %d %s", code, body)
	}

	// The README's key example, against the running gateway.
	create := exec.Command(filepath.Join(root, "bin/gateway"), "keys", "create", "-config", filepath.Join(root, "dev/gateway.yaml"),
		"-name", "my app", "-product", "exercisedb=Pro")
	create.Env = env
	key, err := create.Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	url := "http://127.0.0.1:8080/api/v1/exercises?limit=1"
	testnet.Eventually(t, "the new key accepted by the running gateway", func() error {
		code, body := get(t, url, strings.TrimSpace(string(key)))
		return testnet.Unless(code == 200, fmt.Sprint(code, " ", body))
	})

	// A second make run refuses, naming the port.
	second := exec.Command("bash", filepath.Join(root, "dev/run.sh"))
	second.Env = env
	msg, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "127.0.0.1:8080 is taken") {
		t.Errorf("a second make run: %v\n%s", err, msg)
	}

	// The key stands on a line of its own, is kept beside the keys file,
	// and the next run prints it again.
	if !slices.Contains(said, m[1]) {
		t.Errorf("the key %s is not on a line of its own:\n%s", m[1], strings.Join(said, "\n"))
	}
	if kept, err := os.ReadFile(filepath.Join(filepath.Dir(keysFile), "dev-key")); err != nil || strings.TrimSpace(string(kept)) != m[1] {
		t.Errorf("dev-key beside the keys file: %q, %v; want the key printed", kept, err)
	}
	stop()
	again, _ := makeRun(t, root, env)
	if !slices.Contains(again, m[1]) {
		t.Errorf("the next make run does not print the same key %s:\n%s", m[1], strings.Join(again, "\n"))
	}
}

// makeRun starts dev/run.sh with env and returns what it printed up to
// "Ctrl-C stops both", and a function that stops it (Ctrl-C) and waits
// for it to end; the test's end stops it too.
func makeRun(t *testing.T, root string, env []string) ([]string, func()) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(root, "dev/run.sh"))
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard // the servers' logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Error("make run did not stop within 30s of Ctrl-C")
			}
		})
	}
	t.Cleanup(stop)

	lines := make(chan string, 100)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	var said []string
	deadline := time.After(10 * time.Minute) // a first build downloads and compiles everything
	for !strings.Contains(strings.Join(said, "\n"), "Ctrl-C stops both") {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("make run ended:\n%s", strings.Join(said, "\n"))
			}
			said = append(said, line)
		case <-deadline:
			t.Fatalf("make run not ready after 10 minutes:\n%s", strings.Join(said, "\n"))
		}
	}
	go func() { // keep draining, so that the script never blocks on its output
		for range lines {
		}
	}()
	return said, stop
}

func slicesContainsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// get fetches url with key, as the README's curl lines do.
func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("X-Gateway-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
