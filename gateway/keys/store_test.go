package keys

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/internal/pgtest"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// clock is a settable clock for the stores' expiry checks.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// t0 is the tests' "now": in the future of the machine's clock, so that
// expiries the database compares with nothing are still ahead.
var t0 = time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)

// storeKinds make an empty store of each kind whose Current follows its
// changes (Watch runs until the test ends), with its clock at t0.
var storeKinds = map[string]func(t *testing.T) (Store, *clock){
	"file": func(t *testing.T) (Store, *clock) {
		path := filepath.Join(t.TempDir(), "keys.yaml")
		writeFile(t, path, "# keys of the test\nkeys: []\n")
		s, _ := openStore(t, path)
		c := &clock{t: t0}
		s.Now = c.Now
		return s, c
	},
	"postgres": func(t *testing.T) (Store, *clock) {
		url, _ := pgtest.URL(t)
		c := &clock{t: t0}
		s, err := OpenPostgres(context.Background(), url, PostgresOptions{Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Watch(ctx, nil); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		return s, c
	},
}

// forEachStore runs test against every kind of store, in parallel.
func forEachStore(t *testing.T, test func(t *testing.T, s Store, c *clock)) {
	for name, open := range storeKinds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, c := open(t)
			test(t, s, c)
		})
	}
}

// inForce waits until the store's Current knows secret (want true) or
// does not (want false).
func inForce(t *testing.T, s Store, secret string, want bool) Key {
	t.Helper()
	var k Key
	testnet.Eventually(t, fmt.Sprintf("key in force: %v", want), func() error {
		var ok bool
		k, ok = s.Current().Lookup(secret)
		return testnet.Unless(ok == want, "not yet")
	})
	return k
}

func mustCreate(t *testing.T, s Store, n New) Created {
	t.Helper()
	c, err := s.Create(context.Background(), n)
	if err != nil {
		t.Fatalf("Create(%+v): %v", n, err)
	}
	return c
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var in *InputError
	if !errors.As(err, &in) || in.Field != field {
		t.Fatalf("err = %v, want an InputError naming %s", err, field)
	}
}

func TestStoreCreateGet(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store, c *clock) {
		ctx := context.Background()
		exp := t0.Add(30 * 24 * time.Hour)
		created := mustCreate(t, s, New{ID: "key_a", Name: "app a", Products: map[string]string{"exercisedb": "Pro"}, ExpiresAt: exp})
		want := Key{ID: "key_a", Name: "app a", Products: map[string]string{"exercisedb": "Pro"}, ExpiresAt: exp, CreatedAt: t0}
		if diff := cmp.Diff(want, created.Key); diff != "" {
			t.Errorf("Create (-want +got):\n%s", diff)
		}
		if len(created.Secret) != 48 || created.Secret[:len(KeyPrefix)] != KeyPrefix {
			t.Errorf("secret %d characters, want 48 starting %s", len(created.Secret), KeyPrefix)
		}
		got, err := s.Get(ctx, "key_a")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, inForce(t, s, created.Secret, true)); diff != "" {
			t.Errorf("Lookup (-want +got):\n%s", diff)
		}

		generated := mustCreate(t, s, New{Products: map[string]string{"exercisedb": "Basic"}})
		if !idPattern.MatchString(generated.ID) || generated.ID == "key_a" {
			t.Errorf("generated id %q", generated.ID)
		}
		if _, err := s.Create(ctx, New{ID: "key_a", Products: map[string]string{"exercisedb": "Pro"}}); !errors.Is(err, ErrDuplicateID) {
			t.Errorf("Create with a used id: %v, want ErrDuplicateID", err)
		}
		if _, err := s.Get(ctx, "key_none"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of an unknown id: %v, want ErrNotFound", err)
		}
	})
}

func TestStoreRefuses(t *testing.T) {
	pro := map[string]string{"exercisedb": "Pro"}
	forEachStore(t, func(t *testing.T, s Store, c *clock) {
		ctx := context.Background()
		for _, tc := range []struct {
			n     New
			field string
		}{
			{New{Products: nil}, "products"},
			{New{Products: map[string]string{"exercisedb": " "}}, "products"},
			{New{Products: pro, ExpiresAt: t0}, "expiresAt"},
			{New{Products: pro, ExpiresAt: t0.Add(-time.Hour)}, "expiresAt"},
			{New{ID: "key/../x", Products: pro}, "id"},
			{New{Name: "two\nlines", Products: pro}, "name"},
		} {
			_, err := s.Create(ctx, tc.n)
			wantField(t, err, tc.field)
		}
		mustCreate(t, s, New{ID: "key_a", Products: pro})
		past := t0.Add(-time.Minute)
		_, err := s.Update(ctx, "key_a", Change{ExpiresAt: &past})
		wantField(t, err, "expiresAt")
		_, err = s.Update(ctx, "key_a", Change{Products: map[string]string{}})
		wantField(t, err, "products")
		_, _, err = s.Rotate(ctx, "key_a", -time.Second)
		wantField(t, err, "overlap")
		if _, err := s.Update(ctx, "key_none", Change{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("Update of an unknown id: %v", err)
		}
		if _, _, err := s.Rotate(ctx, "key_none", 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Rotate of an unknown id: %v", err)
		}
		if err := s.Delete(ctx, "key_none"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Delete of an unknown id: %v", err)
		}
		// Nothing refused was written.
		p, err := s.List(ctx, "", 100)
		if err != nil || p.Total != 1 {
			t.Errorf("List: %d keys, %v; want 1", p.Total, err)
		}
	})
}

func TestStoreUpdate(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store, c *clock) {
		ctx := context.Background()
		created := mustCreate(t, s, New{ID: "key_a", Name: "a", Products: map[string]string{"exercisedb": "Pro"}})
		exp := t0.Add(time.Hour + 500*time.Millisecond)
		k, err := s.Update(ctx, "key_a", Change{Disabled: ptr(true), Products: map[string]string{"exercisedb": "Mega", "video": "Basic"}, ExpiresAt: &exp})
		if err != nil {
			t.Fatal(err)
		}
		want := Key{ID: "key_a", Name: "a", Disabled: true, Products: map[string]string{"exercisedb": "Mega", "video": "Basic"},
			ExpiresAt: t0.Add(time.Hour), CreatedAt: t0}
		if diff := cmp.Diff(want, k); diff != "" {
			t.Errorf("Update (-want +got):\n%s", diff)
		}
		got, _ := s.Get(ctx, "key_a")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get after Update (-want +got):\n%s", diff)
		}
		testnet.Eventually(t, "disabled in force", func() error {
			k, _ := s.Current().Lookup(created.Secret)
			return testnet.Unless(k.Disabled, "not yet")
		})
		// An empty Change changes nothing; a zero expiry removes it.
		if k, err = s.Update(ctx, "key_a", Change{}); err != nil || !cmp.Equal(want, k) {
			t.Errorf("empty Change: %+v, %v", k, err)
		}
		k, err = s.Update(ctx, "key_a", Change{ExpiresAt: &time.Time{}, Disabled: ptr(false), Name: ptr("b")})
		if err != nil || !k.ExpiresAt.IsZero() || k.Disabled || k.Name != "b" {
			t.Errorf("Update: %+v, %v; want no expiry, enabled, named b", k, err)
		}
		testnet.Eventually(t, "enabled in force", func() error {
			k, ok := s.Current().Lookup(created.Secret)
			return testnet.Unless(ok && !k.Disabled && k.ExpiresAt.IsZero(), "not yet")
		})
	})
}

func TestStoreRotate(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store, c *clock) {
		ctx := context.Background()
		pro := map[string]string{"exercisedb": "Pro"}
		old := mustCreate(t, s, New{ID: "key_old", Name: "app", Products: pro})
		c.set(t0.Add(time.Minute))
		next, ended, err := s.Rotate(ctx, "key_old", 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		end := t0.Add(time.Minute + 24*time.Hour)
		if !ended.ExpiresAt.Equal(end) {
			t.Errorf("old key expires %v, want %v", ended.ExpiresAt, end)
		}
		want := Key{ID: next.ID, Name: "app", Products: pro, CreatedAt: t0.Add(time.Minute)}
		if diff := cmp.Diff(want, next.Key); diff != "" || next.ID == "key_old" || next.Secret == old.Secret {
			t.Errorf("new key (-want +got):\n%s", diff)
		}
		inForce(t, s, next.Secret, true)
		testnet.Eventually(t, "old key's expiry in force", func() error {
			k, ok := s.Current().Lookup(old.Secret)
			return testnet.Unless(ok && k.ExpiresAt.Equal(end) && !k.Expired(end.Add(-time.Second)) && k.Expired(end), "not yet")
		})

		// A shorter expiry is kept; a longer overlap never extends it.
		if _, ended, err = s.Rotate(ctx, "key_old", 48*time.Hour); err != nil || !ended.ExpiresAt.Equal(end) {
			t.Errorf("second rotation: old expires %v (%v), want %v kept", ended.ExpiresAt, err, end)
		}
		// The new key carries the old one's expiry.
		if next2, _, err := s.Rotate(ctx, "key_old", 0); err != nil || !next2.ExpiresAt.Equal(end) {
			t.Errorf("rotation of an expiring key: new key expires %v (%v), want %v", next2.ExpiresAt, err, end)
		}
		// Overlap 0 ended key_old now: it is expired and cannot be rotated.
		if _, _, err := s.Rotate(ctx, "key_old", time.Hour); !errors.Is(err, ErrDisabled) {
			t.Errorf("rotation of an expired key: %v, want ErrDisabled", err)
		}
		if _, err := s.Update(ctx, next.ID, Change{Disabled: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Rotate(ctx, next.ID, time.Hour); !errors.Is(err, ErrDisabled) {
			t.Errorf("rotation of a disabled key: %v, want ErrDisabled", err)
		}
	})
}

func TestStoreDeleteAndList(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store, c *clock) {
		ctx := context.Background()
		secrets := map[string]string{}
		// Out of order, and with ids whose byte order differs from a
		// natural language collation.
		for _, id := range []string{"key_c", "Key_B", "key_a", "key_e", "key_d", "KEY-z"} {
			secrets[id] = mustCreate(t, s, New{ID: id, Products: map[string]string{"exercisedb": "Pro"}}).Secret
		}
		var pages [][]string
		after := ""
		for {
			p, err := s.List(ctx, after, 2)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != 6 {
				t.Errorf("Total = %d, want 6", p.Total)
			}
			var ids []string
			for _, k := range p.Keys {
				ids = append(ids, k.ID)
			}
			pages = append(pages, ids)
			if !p.More {
				break
			}
			after = ids[len(ids)-1]
		}
		want := [][]string{{"KEY-z", "Key_B"}, {"key_a", "key_c"}, {"key_d", "key_e"}}
		if diff := cmp.Diff(want, pages); diff != "" {
			t.Errorf("pages (-want +got):\n%s", diff)
		}
		// A cursor need not name a key: paging goes on after a deletion.
		if p, _ := s.List(ctx, "key_b", 10); len(p.Keys) != 3 || p.Keys[0].ID != "key_c" {
			t.Errorf("List after key_b: %+v", p.Keys)
		}

		if err := s.Delete(ctx, "key_c"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, "key_c"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		inForce(t, s, secrets["key_c"], false)
		inForce(t, s, secrets["key_d"], true)
		if p, _ := s.List(ctx, "", 10); p.Total != 5 {
			t.Errorf("Total after Delete = %d, want 5", p.Total)
		}
	})
}

// TestStoreRefusesNames: a name that is not one line of printable text
// is refused alike by every store, on create and update, with a message
// naming the character; a name carried over (rotation, other changes) is
// not checked again.
func TestStoreRefusesNames(t *testing.T) {
	pro := map[string]string{"exercisedb": "Pro"}
	forEachStore(t, func(t *testing.T, s Store, c *clock) {
		ctx := context.Background()
		mustCreate(t, s, New{ID: "key_a", Name: "Café app ✓", Products: pro})
		for _, tc := range []struct{ name, message string }{
			{"nul\x00", "name: U+0000 at byte 3 is a control character; want one line of printable text"},
			{"\x1b[31mred", "name: U+001B at byte 0 is a control character"},
			{"tab\there", "name: U+0009 at byte 3 is a control character"},
			{"del\x7f", "name: U+007F at byte 3 is a control character"},
			{"c1\u0085", "name: U+0085 at byte 2 is a control character"},
			{"evil\u202eppa", "name: U+202E at byte 4 is an invisible format character"},
			{"zero\u200bwidth", "name: U+200B at byte 4 is an invisible format character"},
			{"bom\ufeff", "name: U+FEFF at byte 3 is an invisible format character"},
			{"bad\xff", "name: not valid UTF-8"},
			{strings.Repeat("x", 201), "name: want at most 200 bytes, got 201"},
		} {
			_, err := s.Create(ctx, New{Name: tc.name, Products: pro})
			wantField(t, err, "name")
			if !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("Create with name %q: %v, want %s", tc.name, err, tc.message)
			}
			_, err = s.Update(ctx, "key_a", Change{Name: &tc.name})
			wantField(t, err, "name")
		}
		if p, err := s.List(ctx, "", 100); err != nil || p.Total != 1 || p.Keys[0].Name != "Café app ✓" {
			t.Errorf("List: %+v, %v; want key_a alone, unchanged", p, err)
		}
	})
}

// TestFileNameCarriedOver: a name written by hand that the API would
// refuse does not block disabling or rotating its key.
func TestFileNameCarriedOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	writeFile(t, path, "keys:\n  - id: key_a\n    name: \"\\e[31mred\"\n    hash: "+Hash("exdb_a")+"\n    products: {exercisedb: Pro}\n")
	s := FileAt(path)
	s.Now = (&clock{t: t0}).Now
	disabled := false
	if _, err := s.Update(context.Background(), "key_a", Change{Disabled: &disabled}); err != nil {
		t.Errorf("Update of another field: %v", err)
	}
	next, _, err := s.Rotate(context.Background(), "key_a", time.Hour)
	if err != nil || next.Name != "\x1b[31mred" {
		t.Errorf("Rotate: %+v, %v; want the name carried over", next.Key, err)
	}
}
