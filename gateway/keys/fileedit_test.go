package keys

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileEditKeepsComments checks that the operations edit the entry they
// name and keep the rest of the file, comments included.
func TestFileEditKeepsComments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	writeFile(t, path, "# customers\nkeys:\n  # the demo\n  - id: key_demo\n    hash: sha256:"+strings.Repeat("a", 64)+"\n    products: {exercisedb: Pro} # upgraded in May\n")
	s := FileAt(path)
	s.Now = func() time.Time { return t0 }
	ctx := context.Background()
	if _, err := s.Update(ctx, "key_demo", Change{Disabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "key_demo", Change{Disabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	next, _, err := s.Rotate(ctx, "key_demo", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"# customers", "# the demo", "# upgraded in May", "expires_at: 2030-05-01T13:00:00Z", "created_at: 2030-05-01T12:00:00Z", "id: " + next.ID} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %q:\n%s", want, data)
		}
	}
	if err := s.Delete(ctx, next.ID); err != nil {
		t.Fatal(err)
	}
	set := mustParse(t, string(mustRead(t, path)))
	if set.Len() != 1 || set.index("key_demo") != 0 || !set.entries[0].key.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("after Delete: %+v", keysOf(t, set))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseTimes(t *testing.T) {
	set := mustParse(t, "keys:\n  - id: k\n    hash: sha256:"+strings.Repeat("b", 64)+"\n    products: {p: Pro}\n    expires_at: 2030-01-02T03:04:05+01:00\n    created_at: \"2029-01-01T00:00:00Z\"\n")
	k := set.entries[0].key
	if !k.ExpiresAt.Equal(time.Date(2030, 1, 2, 2, 4, 5, 0, time.UTC)) || !k.CreatedAt.Equal(time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("times: %v, %v", k.ExpiresAt, k.CreatedAt)
	}
	if !k.Expired(k.ExpiresAt) || k.Expired(k.ExpiresAt.Add(-time.Nanosecond)) {
		t.Error("Expired: wrong at the instant of expiry")
	}
	if _, err := Parse([]byte("keys:\n  - id: k\n    hash: sha256:" + strings.Repeat("b", 64) + "\n    products: {p: Pro}\n    expires_at: tomorrow\n")); err == nil || !strings.Contains(err.Error(), "expires_at must be an RFC 3339 time") {
		t.Errorf("bad expires_at: %v", err)
	}
}
