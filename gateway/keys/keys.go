// Package keys owns the gateway's API keys: the keys file format (YAML that
// holds a SHA-256 hash of each key, never a key in clear), the immutable Set
// that tells which key a request presents, the Store that keeps a Set in
// memory and current, with the operations on keys (create, list, update,
// rotate, delete) and the rules every Store applies alike, the File store
// (which follows the keys file on SIGHUP and on change), and the creation
// of new keys. The PostgreSQL store is gateway/pgstore's, so that nothing
// that only reads keys links a database driver.
//
// The keys file looks like this:
//
//	keys:
//	  - id: key_demo
//	    name: demo application
//	    hash: sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//	    products: {exercisedb: Pro}
//	    disabled: false
//	    expires_at: 2027-01-31T00:00:00Z   # optional, RFC 3339
//	    created_at: 2026-11-24T13:50:00Z   # optional, RFC 3339
//
// The package does not know the configured products and plans: the caller
// checks that a key's product and plan names exist.
//
// Error messages and log lines of this package never contain a key or a
// hash, nor any other value of the file; they name fields, entries, lines
// and key ids.
package keys

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// hashPrefix starts every hash in the keys file; it names the algorithm.
const hashPrefix = "sha256:"

// Key is one entry of the keys file, without its hash. It never holds the
// key itself.
type Key struct {
	// ID names the key in logs, metrics and rate-limit counters.
	ID string
	// Name describes the key's holder, for people.
	Name string
	// Products maps a product name to the plan name the key has for it.
	Products map[string]string
	// Disabled reports whether the key is revoked; the caller answers 401.
	Disabled bool
	// ExpiresAt, when not zero, is the instant from which the key is
	// refused (see Expired).
	ExpiresAt time.Time
	// CreatedAt is when the key was made; zero when unknown (keys written
	// by hand).
	CreatedAt time.Time
}

// Expired reports whether the key has an expiry and now is at or past it.
func (k Key) Expired(now time.Time) bool {
	return !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt)
}

// entry is a Key with its hash.
type entry struct {
	key    Key
	digest [sha256.Size]byte
}

// Set is an immutable set of keys, as parsed from one version of the keys
// file. It is safe for concurrent use.
type Set struct {
	entries []entry
	byHash  map[[sha256.Size]byte]int // digest → index in entries
}

// Hash returns the form in which the keys file stores key:
// "sha256:" followed by the lowercase hex SHA-256 of the key's bytes.
func Hash(key string) string {
	d := sha256.Sum256([]byte(key))
	return hashPrefix + hex.EncodeToString(d[:])
}

// Lookup hashes the presented key and returns the entry whose hash matches.
// A disabled key is returned too, with Disabled set: the caller decides. An
// empty presented key is never found. The returned Products map is the
// set's own, shared by every request that presents the key: read it,
// never change it (a copy per request was about 1% of a warm response's CPU).
func (s *Set) Lookup(presented string) (Key, bool) {
	if s == nil || presented == "" {
		return Key{}, false
	}
	d := sha256.Sum256([]byte(presented))
	i, ok := s.byHash[d]
	// The map lookup already matched the digest; comparing again in constant
	// time costs little and keeps the match independent of map internals.
	if !ok || subtle.ConstantTimeCompare(d[:], s.entries[i].digest[:]) != 1 {
		return Key{}, false
	}
	return s.entries[i].key, true
}

// Len returns the number of keys in the set, disabled ones included.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.entries)
}

// hasID reports whether the set holds a key with the given id.
func (s *Set) hasID(id string) bool {
	for _, e := range s.entries {
		if e.key.ID == id {
			return true
		}
	}
	return false
}

// Parse parses and validates a keys file. An empty file, a file of comments
// only, "keys:" and "keys: []" are all a valid empty set.
//
// Parse is strict: a field it does not know is an error naming the field and
// its line. Every invalid entry is reported, each naming its position in the
// list (keys[0] is the first), its id when it has one, and its line.
func Parse(data []byte) (*Set, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return newSet(nil), nil
	} else if err != nil {
		return nil, fmt.Errorf("keys file: %w", err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, fmt.Errorf("keys file: line %d: a second YAML document; the file must hold one", next.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("keys file: %w", err)
	}
	if len(doc.Content) == 0 {
		return newSet(nil), nil
	}
	p := parser{}
	entries := p.file(resolve(doc.Content[0]))
	if len(p.errs) > 0 {
		return nil, fmt.Errorf("keys file: %w", errors.Join(p.errs...))
	}
	return newSet(entries), nil
}

// Stored is a key as a store holds it, with its hash (Hash).
type Stored struct {
	Key  Key
	Hash string
}

// NewSet returns the Set of the stored keys. A hash that is not of Hash's
// form is an error naming the key's id.
func NewSet(stored []Stored) (*Set, error) {
	entries := make([]entry, len(stored))
	for i, st := range stored {
		d, ok := parseHash(st.Hash)
		if !ok {
			return nil, fmt.Errorf("key %q: the hash is not %s followed by 64 lowercase hex digits", st.Key.ID, hashPrefix)
		}
		entries[i] = entry{key: st.Key, digest: d}
	}
	return newSet(entries), nil
}

// ValidHash reports whether s has the form of Hash's results.
func ValidHash(s string) bool {
	_, ok := parseHash(s)
	return ok
}

func newSet(entries []entry) *Set {
	s := &Set{entries: entries, byHash: make(map[[sha256.Size]byte]int, len(entries))}
	for i, e := range entries {
		s.byHash[e.digest] = i
	}
	return s
}

// entryFields lists the fields of an entry, for errors.
const entryFields = "id, name, hash, products, disabled, expires_at, created_at"

// parser walks the YAML nodes of a keys file and collects every error.
type parser struct {
	errs []error
}

func (p *parser) fail(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func (p *parser) file(root *yaml.Node) []entry {
	if isNull(root) {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		p.fail("line %d: the file must be a mapping whose only field is \"keys\"", root.Line)
		return nil
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		switch {
		case k.Value != "keys":
			p.fail("line %d: unknown field %q; the only top-level field is \"keys\"", k.Line, k.Value)
		case list != nil:
			p.fail("line %d: field \"keys\" appears twice", k.Line)
		default:
			list = v
		}
	}
	if list == nil || isNull(list) {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		p.fail("line %d: \"keys\" must be a list", list.Line)
		return nil
	}

	entries := make([]entry, 0, len(list.Content))
	byID := map[string]int{}                 // id → list index
	byHash := map[[sha256.Size]byte]string{} // digest → "keys[i] (id ...)"
	for i, item := range list.Content {
		e, label, ok := p.entry(i, resolve(item))
		if !ok {
			continue
		}
		if j, dup := byID[e.key.ID]; dup {
			p.fail("%s: id already used by keys[%d] (line %d)", label, j, list.Content[j].Line)
			continue
		}
		byID[e.key.ID] = i
		if other, dup := byHash[e.digest]; dup {
			p.fail("%s: same hash as %s; every key needs its own", label, other)
			continue
		}
		byHash[e.digest] = label
		entries = append(entries, e)
	}
	if len(p.errs) > 0 {
		return nil
	}
	return entries
}

// entry parses list item i. It reports whether the item is valid, and returns
// the label that names it in errors.
func (p *parser) entry(i int, n *yaml.Node) (e entry, label string, ok bool) {
	label = fmt.Sprintf("keys[%d] (line %d)", i, n.Line)
	if n.Kind != yaml.MappingNode {
		p.fail("%s: an entry must be a mapping with the fields %s", label, entryFields)
		return e, label, false
	}
	// Find the id first, so that every error about this entry can name it.
	for j := 0; j+1 < len(n.Content); j += 2 {
		if v := resolve(n.Content[j+1]); n.Content[j].Value == "id" && v.Kind == yaml.ScalarNode && !isNull(v) {
			label = fmt.Sprintf("keys[%d] (id %q, line %d)", i, v.Value, n.Line)
			break
		}
	}
	before := len(p.errs)
	seen := map[string]bool{}
	var hash string
	var hasHash, productErrs bool
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], resolve(n.Content[j+1])
		if seen[k.Value] {
			p.fail("%s: line %d: field %q appears twice", label, k.Line, k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "id":
			e.key.ID = p.text(label, "id", v)
		case "name":
			e.key.Name = p.text(label, "name", v)
		case "hash":
			hash, hasHash = p.text(label, "hash", v), true
		case "products":
			n := len(p.errs)
			e.key.Products = p.products(label, v)
			productErrs = len(p.errs) > n
		case "disabled":
			e.key.Disabled = p.flag(label, "disabled", v)
		case "expires_at":
			e.key.ExpiresAt = p.instant(label, "expires_at", v)
		case "created_at":
			e.key.CreatedAt = p.instant(label, "created_at", v)
		default:
			p.fail("%s: line %d: unknown field %q; the fields are %s", label, k.Line, k.Value, entryFields)
		}
	}
	if e.key.ID == "" {
		p.fail("%s: missing id", label)
	}
	switch d, valid := parseHash(hash); {
	case !hasHash || hash == "":
		p.fail("%s: missing hash", label)
	case !valid:
		p.fail("%s: malformed hash: want %q followed by 64 lowercase hex digits", label, hashPrefix)
	default:
		e.digest = d
	}
	switch {
	case !seen["products"]:
		p.fail("%s: missing products; name at least one product and its plan", label)
	case len(e.key.Products) == 0 && !productErrs:
		p.fail("%s: products is empty; name at least one product and its plan", label)
	}
	return e, label, len(p.errs) == before
}

// text returns the value of a scalar field; null gives "". The value is
// never quoted in errors, as it might be a key pasted by mistake.
func (p *parser) text(label, field string, v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		p.fail("%s: line %d: %s must be a single value", label, v.Line, field)
		return ""
	}
	if isNull(v) {
		return ""
	}
	return v.Value
}

// instant parses an RFC 3339 time; null or empty is zero, no time.
func (p *parser) instant(label, field string, v *yaml.Node) time.Time {
	s := p.text(label, field, v)
	if s == "" {
		return time.Time{}
	}
	t, err := ParseTime(s)
	if err != nil {
		p.fail("%s: line %d: %s must be an RFC 3339 time such as 2027-01-31T00:00:00Z", label, v.Line, field)
	}
	return t.UTC()
}

// ParseTime reads an RFC 3339 time as the RFC has it, which Go's
// time.RFC3339 layout does not quite: "t" and "z" may be lower case, and
// an offset's hours stop at 23 ("+24:00" is refused).
func ParseTime(s string) (time.Time, error) {
	upper := strings.ToUpper(s)
	t, err := time.Parse(time.RFC3339, upper)
	if err != nil {
		return time.Time{}, err
	}
	if !strings.HasSuffix(upper, "Z") && len(upper) >= 6 && upper[len(upper)-5:len(upper)-3] > "23" {
		return time.Time{}, fmt.Errorf("%q: the offset's hours are above 23", s)
	}
	// RFC 3339 and the stores hold years 0001 to 9999 in UTC; an offset
	// can carry a time written in that range out of it.
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return time.Time{}, fmt.Errorf("%q: in UTC, the year %d is outside 0001 to 9999", s, y)
	}
	return t, nil
}

func (p *parser) flag(label, field string, v *yaml.Node) bool {
	var b bool
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || v.Decode(&b) != nil {
		p.fail("%s: line %d: %s must be true or false", label, v.Line, field)
	}
	return b
}

func (p *parser) products(label string, v *yaml.Node) map[string]string {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.fail("%s: line %d: products must be a mapping of product name to plan name, e.g. {exercisedb: Pro}", label, v.Line)
		return nil
	}
	m := make(map[string]string, len(v.Content)/2)
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, plan := v.Content[j], resolve(v.Content[j+1])
		name := strings.TrimSpace(p.text(label, "a product name", k))
		planName := strings.TrimSpace(p.text(label, "a plan name", plan))
		switch _, dup := m[name]; {
		case name == "":
			p.fail("%s: line %d: empty product name", label, k.Line)
		case dup:
			p.fail("%s: line %d: product %q appears twice", label, k.Line, name)
		case planName == "":
			p.fail("%s: line %d: product %q has no plan", label, k.Line, name)
		default:
			m[name] = planName
		}
	}
	return m
}

// parseHash decodes "sha256:" followed by 64 lowercase hex digits.
func parseHash(s string) (d [sha256.Size]byte, ok bool) {
	h, found := strings.CutPrefix(s, hashPrefix)
	if !found || len(h) != 2*sha256.Size {
		return d, false
	}
	for _, c := range []byte(h) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return d, false
		}
	}
	if _, err := hex.Decode(d[:], []byte(h)); err != nil {
		return d, false
	}
	return d, true
}
