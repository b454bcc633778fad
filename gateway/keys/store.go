package keys

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Store holds the keys, wherever they live (the keys file: File; a
// PostgreSQL database: gateway/pgstore's Keys). Requests read the in-memory Set of
// Current, which never waits on the store; the other methods are the
// operations of the admin API and the CLI, the same for every store.
type Store interface {
	// Current returns the Set in force. It is safe for concurrent use and
	// never blocks on I/O.
	Current() *Set
	// Watch keeps Current up to date until ctx ends; a value on hup
	// (SIGHUP) forces a reload.
	Watch(ctx context.Context, hup <-chan os.Signal) error

	// Create adds a key and returns it with the key itself, which no other
	// method ever returns.
	Create(ctx context.Context, n New) (Created, error)
	// List returns up to limit keys in id order, from the first id after
	// after ("" for the start).
	List(ctx context.Context, after string, limit int) (Page, error)
	// Get returns the key of the given id, or ErrNotFound.
	Get(ctx context.Context, id string) (Key, error)
	// Update applies c to the key of the given id and returns the result.
	Update(ctx context.Context, id string, c Change) (Key, error)
	// Rotate makes a new key for the subscriptions of the key of the given
	// id, and ends the old one overlap from now (or at its own expiry, if
	// sooner). It returns the new key and the old one as changed.
	Rotate(ctx context.Context, id string, overlap time.Duration) (Created, Key, error)
	// Delete removes the key of the given id.
	Delete(ctx context.Context, id string) error
	// Close releases the store's connections, if any.
	Close()
}

// Errors of the Store operations, wrapped.
var (
	// ErrNotFound: no key has the given id.
	ErrNotFound = errors.New("no key has this id")
	// ErrDisabled: a disabled or expired key cannot be rotated.
	ErrDisabled = errors.New("the key is disabled or expired")
	// ErrInvalidFile: the keys file does not parse, so it can be neither
	// read nor changed until it is fixed (the keys in force stay).
	ErrInvalidFile = errors.New("the keys file is invalid")
	// ErrUnavailable wraps the errors of an operation that failed in the
	// store or on the way to it: the database, or the file system (the
	// lock file, a read, a write).
	ErrUnavailable = errors.New("the key store is unavailable")
	// ErrInvalidRow is wrapped by a RowError: a stored key that does not
	// decode.
	ErrInvalidRow = errors.New("the key's row in the database is invalid")
)

// RowError is a row of gateway_keys that does not decode into a key (a
// plan that is not a string, no product, a malformed hash: what psql can
// write and the table's first CHECKs let through). A load skips the row,
// so that its key is refused and every other key stays in force; Get and
// the changes of that id return the RowError, List reports it in
// Page.Invalid. Delete works, to clean up.
type RowError struct {
	ID string
	// Problem says what is wrong, naming the column; never a value.
	Problem string
}

func (e *RowError) Error() string {
	return fmt.Sprintf("key %q: its row in gateway_keys is invalid: %s", e.ID, e.Problem)
}

func (e *RowError) Unwrap() error { return ErrInvalidRow }

// InputError is a value a Store operation refuses; Field names it as the
// admin API's JSON does (name, products, expiresAt, overlap, id).
type InputError struct {
	Field   string
	Message string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Message }

// New is what Create needs to make a key.
type New struct {
	// ID is the new key's id; empty makes one (NewID).
	ID       string
	Name     string
	Products map[string]string
	// ExpiresAt, when not zero, must be in the future.
	ExpiresAt time.Time
}

// Created is a new key with the key itself, to be shown once.
type Created struct {
	Key
	// Secret is the key its holder sends; stores keep only its hash.
	Secret string
}

// Change is an update of a key; nil fields stay as they are.
type Change struct {
	Name     *string
	Disabled *bool
	Products map[string]string
	// ExpiresAt points to the new expiry; a zero time removes it.
	ExpiresAt *time.Time
}

// Page is one page of List.
type Page struct {
	Keys []Key
	// Total counts every key in the store.
	Total int
	// More reports whether keys follow the page's last one.
	More bool
	// Invalid are the rows of the page that do not decode into a key
	// (PostgreSQL only; see RowError): counted in Total, not in Keys.
	Invalid []*RowError
}

// idPattern is the form of the ids Create accepts: they appear in URLs,
// logs and rate limit counters.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// maxName bounds a key's name.
const maxName = 200

// Prepare validates n and makes the key a Store's Create stores, with its
// secret and hash. Times are kept to the second in every store.
func Prepare(n New, now time.Time) (c Created, hash string, err error) {
	if n.ID == "" {
		n.ID = NewID()
	}
	k := Key{ID: n.ID, Name: n.Name, Products: maps.Clone(n.Products), CreatedAt: second(now), ExpiresAt: second(n.ExpiresAt)}
	if !idPattern.MatchString(k.ID) {
		return Created{}, "", &InputError{"id", "want 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"}
	}
	if err := checkName(k.Name); err != nil {
		return Created{}, "", err
	}
	if err := checkExpiry(n.ExpiresAt, now); err != nil {
		return Created{}, "", err
	}
	if err := check(k, now); err != nil {
		return Created{}, "", err
	}
	secret, hash, err := Generate()
	if err != nil {
		return Created{}, "", err
	}
	return Created{Key: k, Secret: secret}, hash, nil
}

// checkName refuses a name that is not one line of printable text: it is
// shown in terminals (gateway keys list) and logs, and stored in
// PostgreSQL, which refuses NUL. The name of a key is checked when a
// client sets it, not when it is carried over (a rotation, a change of
// other fields), so that a name written by hand never blocks disabling.
func checkName(name string) error {
	if len(name) > maxName {
		return &InputError{"name", fmt.Sprintf("want at most %d bytes, got %d", maxName, len(name))}
	}
	if !utf8.ValidString(name) {
		return &InputError{"name", "not valid UTF-8"}
	}
	for i, r := range name {
		switch {
		case unicode.IsControl(r):
			return &InputError{"name", fmt.Sprintf("%U at byte %d is a control character; want one line of printable text", r, i)}
		case unicode.Is(unicode.Cf, r):
			return &InputError{"name", fmt.Sprintf("%U at byte %d is an invisible format character; want one line of printable text", r, i)}
		}
	}
	return nil
}

// check validates the products of k.
func check(k Key, now time.Time) error {
	if len(k.Products) == 0 {
		return &InputError{"products", "name at least one product and its plan, e.g. {\"exercisedb\": \"Pro\"}"}
	}
	for product, plan := range k.Products {
		if strings.TrimSpace(product) == "" || strings.TrimSpace(plan) == "" {
			return &InputError{"products", "product and plan names must not be empty"}
		}
	}
	return nil
}

// checkExpiry refuses an expiry that is not in the future.
func checkExpiry(t, now time.Time) error {
	if !t.IsZero() && !t.After(now) {
		return &InputError{"expiresAt", "the time is not in the future; to end a key now, disable or delete it"}
	}
	return nil
}

// Apply returns k changed by c, or the InputError that refuses c: the
// rule of every Store's Update.
func Apply(k Key, c Change, now time.Time) (Key, error) {
	if c.Name != nil {
		if err := checkName(*c.Name); err != nil {
			return Key{}, err
		}
		k.Name = *c.Name
	}
	if c.Disabled != nil {
		k.Disabled = *c.Disabled
	}
	if c.Products != nil {
		k.Products = maps.Clone(c.Products)
	}
	if c.ExpiresAt != nil {
		if err := checkExpiry(*c.ExpiresAt, now); err != nil {
			return Key{}, err
		}
		k.ExpiresAt = second(*c.ExpiresAt)
	}
	return k, check(k, now)
}

// Rotation returns old as it is to be kept (ending overlap from now, or at
// its own expiry if sooner) and the new key that replaces it, with the same
// name, subscriptions and expiry: the rule of every Store's Rotate.
func Rotation(old Key, overlap time.Duration, now time.Time) (ended Key, next Created, hash string, err error) {
	if overlap < 0 {
		return Key{}, Created{}, "", &InputError{"overlap", "want a duration of 0 or more, such as 24h"}
	}
	if old.Disabled || old.Expired(now) {
		return Key{}, Created{}, "", fmt.Errorf("key %q: %w", old.ID, ErrDisabled)
	}
	next, hash, err = Prepare(New{Products: old.Products, ExpiresAt: old.ExpiresAt}, now)
	if err != nil {
		return Key{}, Created{}, "", err
	}
	next.Name = old.Name // carried over, not checked again
	end := second(now.Add(overlap))
	if old.ExpiresAt.IsZero() || end.Before(old.ExpiresAt) {
		old.ExpiresAt = end
	}
	return old, next, hash, nil
}

// page cuts the keys sorted by id into the page after after.
func page(sorted []Key, after string, limit int) Page {
	i, _ := slices.BinarySearchFunc(sorted, after, func(k Key, id string) int {
		if k.ID <= id {
			return -1
		}
		return 1
	})
	rest := sorted[i:]
	p := Page{Total: len(sorted), More: len(rest) > limit}
	p.Keys = rest[:min(limit, len(rest))]
	return p
}

func sortByID(ks []Key) {
	slices.SortFunc(ks, func(a, b Key) int { return cmp.Compare(a.ID, b.ID) })
}

// second drops what is below a second, in UTC, as RFC 3339 shows times.
func second(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Second)
}
