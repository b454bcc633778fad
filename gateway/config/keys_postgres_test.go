package config

import (
	"strings"
	"testing"
)

func TestKeysPostgresURL(t *testing.T) {
	env := map[string]string{"GATEWAY_KEYS_POSTGRES_URL": "postgres://gw:hunter2@db:5432/keys?sslmode=require&password=hunter3"}
	c, err := Parse([]byte(specExample), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.KeysPostgresURL != env["GATEWAY_KEYS_POSTGRES_URL"] {
		t.Errorf("KeysPostgresURL = %q", c.KeysPostgresURL)
	}
	if r := c.Redacted(); strings.Contains(r.KeysPostgresURL, "hunter") || !strings.Contains(r.KeysPostgresURL, "gw:xxxxx@db:5432/keys") {
		t.Errorf("Redacted = %q", r.KeysPostgresURL)
	}
	for _, bad := range []string{"mysql://db/keys", "host=db password=x", "postgres:///keys"} {
		_, err := Parse([]byte(specExample+"keys_postgres_url: \""+bad+"\"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), "keys_postgres_url: want postgres://") || strings.Contains(err.Error(), "password=x") {
			t.Errorf("keys_postgres_url %q: %v", bad, err)
		}
	}
}
