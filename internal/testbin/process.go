package testbin

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/internal/testnet"
)

// Process is a running binary whose stderr, JSON log lines, is collected.
type Process struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has exited
	exitErr error         // its exit status, set before exited closes

	mu    sync.Mutex
	lines []string
	grew  chan struct{} // closed and replaced when a line is added
}

// Start runs bin with args. The process is killed when the test ends, and
// the end of its log is shown if the test failed.
func Start(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: cmd, exited: make(chan struct{}), grew: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			close(p.grew)
			p.grew = make(chan struct{})
			p.mu.Unlock()
		}
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			lines := p.Log()
			lines = lines[max(0, len(lines)-40):]
			t.Logf("last lines of %s's log:\n%s", filepath.Base(bin), strings.Join(lines, "\n"))
		}
	})
	return p
}

// Log returns the lines logged so far.
func (p *Process) Log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// LogEntries decodes the JSON lines logged so far whose msg is msg.
func (p *Process) LogEntries(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range p.Log() {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// AwaitLog waits until the process logs a JSON line whose msg is msg and
// decodes that line into v, unless v is nil. It returns an error if the
// process exits first or the line does not come within
// testnet.PollTimeout.
func (p *Process) AwaitLog(msg string, v any) error {
	timeout := time.After(testnet.PollTimeout)
	exited := false
	for seen := 0; ; {
		p.mu.Lock()
		lines, grew := p.lines[seen:], p.grew
		seen = len(p.lines)
		p.mu.Unlock()
		for _, line := range lines {
			var m struct{ Msg string }
			if json.Unmarshal([]byte(line), &m) == nil && m.Msg == msg {
				if v == nil {
					return nil
				}
				return json.Unmarshal([]byte(line), v)
			}
		}
		select {
		case <-grew:
		case <-p.exited:
			// Every line is in by now: look once more, then give up.
			if !exited {
				exited = true
				continue
			}
			tail := p.Log()
			tail = tail[max(0, len(tail)-5):]
			return fmt.Errorf("exited (%v) before logging %q:\n%s", p.exitErr, msg, strings.Join(tail, "\n"))
		case <-timeout:
			return fmt.Errorf("did not log %q within %v", msg, testnet.PollTimeout)
		}
	}
}

// MustAwaitLog is AwaitLog failing the test on an error.
func (p *Process) MustAwaitLog(t testing.TB, msg string, v any) {
	t.Helper()
	if err := p.AwaitLog(msg, v); err != nil {
		t.Fatal(err)
	}
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process.
func (p *Process) Signal(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("sending %v: %v", sig, err)
	}
}

// Kill kills the process and waits until it has exited.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	<-p.exited
}

// Exited is closed when the process has exited; ExitErr is then its exit
// status.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr is the process's exit status, nil for 0, once Exited is closed.
func (p *Process) ExitErr() error {
	<-p.exited
	return p.exitErr
}

// WaitExit waits for the process to exit and fails the test unless it
// exits 0 within the given time.
func (p *Process) WaitExit(t testing.TB, within time.Duration) {
	t.Helper()
	select {
	case <-p.exited:
		if p.exitErr != nil {
			t.Fatalf("exit: %v, want exit status 0", p.exitErr)
		}
	case <-time.After(within):
		t.Fatalf("still running %v later", within)
	}
}

// Result is the outcome of a command run to its end.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Run runs bin with args to its end and fails the test if it cannot start or is still running after
// 2*testnet.PollTimeout.
func Run(t testing.TB, bin string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * testnet.PollTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s %s: still running %v later", filepath.Base(bin), strings.Join(args, " "), 2*testnet.PollTimeout)
	}
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}
