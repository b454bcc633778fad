package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"strings"
	"syscall"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/limit/redistest"
	"github.com/exercisedb/exercisedb/internal/pgtest"
	"github.com/exercisedb/exercisedb/internal/testnet"
	"github.com/exercisedb/exercisedb/pkg/admin"
)

// TestSecretsStayOut starts the gateway with a secret in every setting
// that takes one: a Redis that requires a password (in both URL forms,
// with and without a user), a PostgreSQL URL with a password, the admin
// token's hash and the media signing secret. The limits in Redis work
// (requests are answered, not refused as with a store it cannot reach),
// and after requests with a key, the admin token, a wrong token and a
// body shorter than its Content-Length, no line of the whole output holds
// any secret, the key or the token, and none is an ERROR.
func TestSecretsStayOut(t *testing.T) {
	const redisPassword = "redis-pw-Q7v2Xk"
	srv := redistest.Start(t, "--requirepass", redisPassword)
	dbURL, _ := pgtest.URL(t)
	const dbPassword = "db-pw-M4r9Zt"
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	if u.User != nil {
		name = u.User.Username()
	}
	if name == "" {
		me, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		name = me.Username
	}
	u.User = url.UserPassword(name, dbPassword) // a database that trusts loopback ignores it
	const signingSecret = "media-secret-Hx81Lq"
	hash := admin.HashToken(adminToken)
	_, hashHex, _ := strings.Cut(hash, ":")

	for _, userInfo := range []string{":" + redisPassword, "default:" + redisPassword} {
		t.Run("redis://"+strings.Replace(userInfo, redisPassword, "password", 1)+"@", func(t *testing.T) {
			config := testConfig(t, "127.0.0.1:1", options{})
			withKeyService(t, config, u.String())
			f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "rate_limit:\n  store: redis\n  redis_url: redis://%s@%s/0\n  on_store_error: deny\nmedia:\n  signing_secret: %s\n", userInfo, srv.Addr, signingSecret)
			f.Close()
			g := startGateway(t, config)
			c := newClient(t)
			k := decodeCreated(t, adminCall(t, c, g, "POST", "/admin/v1/keys", `{"products":{"exercisedb":"Pro"}}`))
			for _, path := range []string{"/api/v1/liveness", "/api/v1/usage"} {
				testnet.Eventually(t, path+" with limits in a Redis with a password", func() error {
					r := api(t, c, g, path, k.Key, gifHost)
					return testnet.Unless(r.status == http.StatusOK, r.String())
				})
			}
			req, _ := http.NewRequest("GET", "http://"+g.admin+"/admin/v1/keys", nil)
			req.Header.Set("Authorization", "Bearer wrong-"+adminToken)
			if r, err := do(c, req); err != nil || r.status != http.StatusUnauthorized {
				t.Fatalf("wrong admin token: %v %v", r, err)
			}
			lieAboutLength(t, g.admin)

			g.Signal(t, syscall.SIGTERM)
			g.WaitExit(t, exitTimeout)
			secrets := map[string]string{"Redis password": redisPassword, "database password": dbPassword,
				"admin token": adminToken, "admin token hash": hashHex, "media signing secret": signingSecret,
				"API key": strings.TrimPrefix(k.Key, "exdb_")}
			for i, line := range g.Log() {
				for what, s := range secrets {
					if strings.Contains(line, s) {
						t.Errorf("line %d holds the %s: %s", i+1, what, line)
					}
				}
				if strings.Contains(line, `"level":"ERROR"`) {
					t.Errorf("line %d is an ERROR: %s", i+1, line)
				}
			}
		})
	}
}

// lieAboutLength sends the admin API a body shorter than its
// Content-Length, then closes its side, and reads the answer.
func lieAboutLength(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /admin/v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\n{\"products\"", adminToken)
	conn.(*net.TCPConn).CloseWrite()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a body shorter than its Content-Length: %d, want 400", res.StatusCode)
	}
}
