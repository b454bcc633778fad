package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/exercisedb/exercisedb/internal/testlog"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// Server is a PostgreSQL server of one test's own, in a temporary data
// directory, that the test may stop and start again (a database restart)
// without disturbing the server other tests share.
type Server struct {
	t    testing.TB
	bin  string // directory of initdb and postgres
	dir  string // data directory; also holds the Unix socket
	port string
	// cred runs the server's programs as the postgres user when the test
	// runs as root, which PostgreSQL refuses.
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan error
	log  testlog.Buffer // the server's log, shown if the test fails
}

// NewServer initialises and starts a private server on a free port; it is
// stopped when the test ends. Like URL, it skips without DATABASE_URL (the
// sign that PostgreSQL is installed here) and fails if the server's
// programs cannot be found or it does not start.
func NewServer(t testing.TB) *Server {
	t.Helper()
	if os.Getenv("DATABASE_URL") == "" {
		t.Skip("DATABASE_URL is not set; set it to run the PostgreSQL tests")
	}
	bin, err := serverBin()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir()}
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		// The data directory must belong to the user that runs the server.
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs a user of its own: %v", err)
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		for _, d := range []string{filepath.Dir(s.dir), s.dir} {
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	s.run("initdb", "-D", s.dir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
	_, s.port, _ = net.SplitHostPort(testnet.FreeAddr(t))
	s.Start()
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("the private PostgreSQL server's log:\n%s", s.log.String())
		}
	})
	return s
}

// URL is the server's address as a keys_postgres_url.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable", s.port)
}

// Start starts the server (again, after Stop, on the same port and data)
// and waits until it accepts connections.
func (s *Server) Start() {
	s.t.Helper()
	s.cmd = s.command("postgres", "-D", s.dir, "-p", s.port,
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.dir, "-c", "fsync=off")
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start postgres: %v", err)
	}
	s.done = make(chan error, 1)
	go func() { s.done <- s.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.URL())
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("postgres on port %s did not start: %v", s.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop shuts the server down fast (SIGINT: clients are disconnected) and
// waits for it to exit. It does nothing if the server is stopped.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// command is the server's program name with args, as the server's user.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}

func (s *Server) run(name string, args ...string) {
	s.t.Helper()
	if out, err := s.command(name, args...).CombinedOutput(); err != nil {
		s.t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// serverBin finds the directory of initdb and postgres: pg_config's
// bindir, else Debian's /usr/lib/postgresql/<version>/bin.
func serverBin() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := string(out[:len(out)-1])
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", fmt.Errorf("PostgreSQL's initdb is not installed (pg_config --bindir, /usr/lib/postgresql/*/bin): install the server package to run this test")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}
