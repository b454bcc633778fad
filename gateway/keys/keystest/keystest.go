// Package keystest holds what every keys.Store must do alike, as tests
// that each store's package runs against its own (Run), and the helpers
// of those tests.
package keystest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// T0 is the tests' "now": in the future of the machine's clock, so that
// expiries a database compares with nothing are still ahead.
var T0 = time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)

// Clock is a settable clock for the stores' expiry checks.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Run runs the tests every Store must pass, in parallel, each against a
// store of its own that open makes: empty, with now as its clock, its
// Current following its changes until the test ends.
func Run(t *testing.T, open func(t *testing.T, now func() time.Time) keys.Store) {
	for name, test := range map[string]func(t *testing.T, s keys.Store, c *Clock){
		"CreateGet":     storeCreateGet(),
		"Refuses":       storeRefuses(),
		"Update":        storeUpdate(),
		"Rotate":        storeRotate(),
		"DeleteAndList": storeDeleteAndList(),
		"RefusesNames":  storeRefusesNames(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := NewClock(T0)
			test(t, open(t, c.Now), c)
		})
	}
}

// WaitFor polls cond until it holds (testnet.Eventually).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testnet.Eventually(t, what, func() error { return testnet.Unless(cond(), "not yet") })
}

// InForce waits until the store's Current knows secret (want true) or
// does not (want false), and returns the key it knows.
func InForce(t testing.TB, s keys.Store, secret string, want bool) keys.Key {
	t.Helper()
	var k keys.Key
	WaitFor(t, fmt.Sprintf("key in force: %v", want), func() bool {
		var ok bool
		k, ok = s.Current().Lookup(secret)
		return ok == want
	})
	return k
}

// MustCreate creates n in s, failing the test on an error.
func MustCreate(t testing.TB, s keys.Store, n keys.New) keys.Created {
	t.Helper()
	c, err := s.Create(context.Background(), n)
	if err != nil {
		t.Fatalf("Create(%+v): %v", n, err)
	}
	return c
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var in *keys.InputError
	if !errors.As(err, &in) || in.Field != field {
		t.Fatalf("err = %v, want an InputError naming %s", err, field)
	}
}

func storeCreateGet() func(t *testing.T, s keys.Store, c *Clock) {
	return func(t *testing.T, s keys.Store, c *Clock) {
		ctx := context.Background()
		exp := T0.Add(30 * 24 * time.Hour)
		created := MustCreate(t, s, keys.New{ID: "key_a", Name: "app a", Products: map[string]string{"exercisedb": "Pro"}, ExpiresAt: exp})
		want := keys.Key{ID: "key_a", Name: "app a", Products: map[string]string{"exercisedb": "Pro"}, ExpiresAt: exp, CreatedAt: T0}
		if diff := cmp.Diff(want, created.Key); diff != "" {
			t.Errorf("Create (-want +got):\n%s", diff)
		}
		if len(created.Secret) != 48 || created.Secret[:len(keys.KeyPrefix)] != keys.KeyPrefix {
			t.Errorf("secret %d characters, want 48 starting %s", len(created.Secret), keys.KeyPrefix)
		}
		got, err := s.Get(ctx, "key_a")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, InForce(t, s, created.Secret, true)); diff != "" {
			t.Errorf("Lookup (-want +got):\n%s", diff)
		}

		generated := MustCreate(t, s, keys.New{Products: map[string]string{"exercisedb": "Basic"}})
		if _, err := s.Get(ctx, generated.ID); err != nil || generated.ID == "key_a" {
			t.Errorf("generated id %q: %v", generated.ID, err)
		}
		if _, err := s.Create(ctx, keys.New{ID: "key_a", Products: map[string]string{"exercisedb": "Pro"}}); !errors.Is(err, keys.ErrDuplicateID) {
			t.Errorf("Create with a used id: %v, want ErrDuplicateID", err)
		}
		if _, err := s.Get(ctx, "key_none"); !errors.Is(err, keys.ErrNotFound) {
			t.Errorf("Get of an unknown id: %v, want ErrNotFound", err)
		}
	}
}

func storeRefuses() func(t *testing.T, s keys.Store, c *Clock) {
	pro := map[string]string{"exercisedb": "Pro"}
	return func(t *testing.T, s keys.Store, c *Clock) {
		ctx := context.Background()
		for _, tc := range []struct {
			n     keys.New
			field string
		}{
			{keys.New{Products: nil}, "products"},
			{keys.New{Products: map[string]string{"exercisedb": " "}}, "products"},
			{keys.New{Products: pro, ExpiresAt: T0}, "expiresAt"},
			{keys.New{Products: pro, ExpiresAt: T0.Add(-time.Hour)}, "expiresAt"},
			{keys.New{ID: "key/../x", Products: pro}, "id"},
			{keys.New{Name: "two\nlines", Products: pro}, "name"},
		} {
			_, err := s.Create(ctx, tc.n)
			wantField(t, err, tc.field)
		}
		MustCreate(t, s, keys.New{ID: "key_a", Products: pro})
		past := T0.Add(-time.Minute)
		_, err := s.Update(ctx, "key_a", keys.Change{ExpiresAt: &past})
		wantField(t, err, "expiresAt")
		_, err = s.Update(ctx, "key_a", keys.Change{Products: map[string]string{}})
		wantField(t, err, "products")
		_, _, err = s.Rotate(ctx, "key_a", -time.Second)
		wantField(t, err, "overlap")
		if _, err := s.Update(ctx, "key_none", keys.Change{}); !errors.Is(err, keys.ErrNotFound) {
			t.Errorf("Update of an unknown id: %v", err)
		}
		if _, _, err := s.Rotate(ctx, "key_none", 0); !errors.Is(err, keys.ErrNotFound) {
			t.Errorf("Rotate of an unknown id: %v", err)
		}
		if err := s.Delete(ctx, "key_none"); !errors.Is(err, keys.ErrNotFound) {
			t.Errorf("Delete of an unknown id: %v", err)
		}
		// Nothing refused was written.
		p, err := s.List(ctx, "", 100)
		if err != nil || p.Total != 1 {
			t.Errorf("List: %d keys, %v; want 1", p.Total, err)
		}
	}
}

func storeUpdate() func(t *testing.T, s keys.Store, c *Clock) {
	return func(t *testing.T, s keys.Store, c *Clock) {
		ctx := context.Background()
		created := MustCreate(t, s, keys.New{ID: "key_a", Name: "a", Products: map[string]string{"exercisedb": "Pro"}})
		exp := T0.Add(time.Hour + 500*time.Millisecond)
		k, err := s.Update(ctx, "key_a", keys.Change{Disabled: new(true), Products: map[string]string{"exercisedb": "Mega", "video": "Basic"}, ExpiresAt: &exp})
		if err != nil {
			t.Fatal(err)
		}
		want := keys.Key{ID: "key_a", Name: "a", Disabled: true, Products: map[string]string{"exercisedb": "Mega", "video": "Basic"},
			ExpiresAt: T0.Add(time.Hour), CreatedAt: T0}
		if diff := cmp.Diff(want, k); diff != "" {
			t.Errorf("Update (-want +got):\n%s", diff)
		}
		got, _ := s.Get(ctx, "key_a")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get after Update (-want +got):\n%s", diff)
		}
		WaitFor(t, "disabled in force", func() bool {
			k, _ := s.Current().Lookup(created.Secret)
			return k.Disabled
		})
		// An empty keys.Change changes nothing; a zero expiry removes it.
		if k, err = s.Update(ctx, "key_a", keys.Change{}); err != nil || !cmp.Equal(want, k) {
			t.Errorf("empty keys.Change: %+v, %v", k, err)
		}
		k, err = s.Update(ctx, "key_a", keys.Change{ExpiresAt: &time.Time{}, Disabled: new(false), Name: new("b")})
		if err != nil || !k.ExpiresAt.IsZero() || k.Disabled || k.Name != "b" {
			t.Errorf("Update: %+v, %v; want no expiry, enabled, named b", k, err)
		}
		WaitFor(t, "enabled in force", func() bool {
			k, ok := s.Current().Lookup(created.Secret)
			return ok && !k.Disabled && k.ExpiresAt.IsZero()
		})
	}
}

func storeRotate() func(t *testing.T, s keys.Store, c *Clock) {
	return func(t *testing.T, s keys.Store, c *Clock) {
		ctx := context.Background()
		pro := map[string]string{"exercisedb": "Pro"}
		old := MustCreate(t, s, keys.New{ID: "key_old", Name: "app", Products: pro})
		c.Set(T0.Add(time.Minute))
		next, ended, err := s.Rotate(ctx, "key_old", 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		end := T0.Add(time.Minute + 24*time.Hour)
		if !ended.ExpiresAt.Equal(end) {
			t.Errorf("old key expires %v, want %v", ended.ExpiresAt, end)
		}
		want := keys.Key{ID: next.ID, Name: "app", Products: pro, CreatedAt: T0.Add(time.Minute)}
		if diff := cmp.Diff(want, next.Key); diff != "" || next.ID == "key_old" || next.Secret == old.Secret {
			t.Errorf("new key (-want +got):\n%s", diff)
		}
		InForce(t, s, next.Secret, true)
		WaitFor(t, "old key's expiry in force", func() bool {
			k, ok := s.Current().Lookup(old.Secret)
			return ok && k.ExpiresAt.Equal(end) && !k.Expired(end.Add(-time.Second)) && k.Expired(end)
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
		if _, _, err := s.Rotate(ctx, "key_old", time.Hour); !errors.Is(err, keys.ErrDisabled) {
			t.Errorf("rotation of an expired key: %v, want ErrDisabled", err)
		}
		if _, err := s.Update(ctx, next.ID, keys.Change{Disabled: new(true)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Rotate(ctx, next.ID, time.Hour); !errors.Is(err, keys.ErrDisabled) {
			t.Errorf("rotation of a disabled key: %v, want ErrDisabled", err)
		}
	}
}

func storeDeleteAndList() func(t *testing.T, s keys.Store, c *Clock) {
	return func(t *testing.T, s keys.Store, c *Clock) {
		ctx := context.Background()
		secrets := map[string]string{}
		// Out of order, and with ids whose byte order differs from a
		// natural language collation.
		for _, id := range []string{"key_c", "Key_B", "key_a", "key_e", "key_d", "KEY-z"} {
			secrets[id] = MustCreate(t, s, keys.New{ID: id, Products: map[string]string{"exercisedb": "Pro"}}).Secret
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
		if _, err := s.Get(ctx, "key_c"); !errors.Is(err, keys.ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		InForce(t, s, secrets["key_c"], false)
		InForce(t, s, secrets["key_d"], true)
		if p, _ := s.List(ctx, "", 10); p.Total != 5 {
			t.Errorf("Total after Delete = %d, want 5", p.Total)
		}
	}
}

// storeRefusesNames: a name that is not one line of printable text
// is refused alike by every store, on create and update, with a message
// naming the character; a name carried over (rotation, other changes) is
// not checked again.
func storeRefusesNames() func(t *testing.T, s keys.Store, c *Clock) {
	pro := map[string]string{"exercisedb": "Pro"}
	return func(t *testing.T, s keys.Store, c *Clock) {
		ctx := context.Background()
		MustCreate(t, s, keys.New{ID: "key_a", Name: "Café app ✓", Products: pro})
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
			_, err := s.Create(ctx, keys.New{Name: tc.name, Products: pro})
			wantField(t, err, "name")
			if !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("Create with name %q: %v, want %s", tc.name, err, tc.message)
			}
			_, err = s.Update(ctx, "key_a", keys.Change{Name: &tc.name})
			wantField(t, err, "name")
		}
		if p, err := s.List(ctx, "", 100); err != nil || p.Total != 1 || p.Keys[0].Name != "Café app ✓" {
			t.Errorf("List: %+v, %v; want key_a alone, unchanged", p, err)
		}
	}
}
