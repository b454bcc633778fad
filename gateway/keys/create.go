package keys

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// KeyPrefix starts every key that Generate makes. It lets secret scanners
// (GitHub's, gitleaks, trufflehog) recognise a leaked key in code, logs or
// chat, and lets people tell an exercisedb key from other secrets.
const KeyPrefix = "exdb_"

// ErrDuplicateID is returned, wrapped, by Append when the keys file already
// has an entry with the new key's id.
var ErrDuplicateID = errors.New("a key with this id already exists")

// Generate returns a new random key and its hash, the form the keys file
// stores. The key is KeyPrefix followed by 32 bytes (256 bits) from
// crypto/rand in unpadded URL-safe base64, 48 characters in all: it fits in
// a header and a URL unescaped. Show the key once to its holder and keep
// only the hash.
func Generate() (key, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("generate key: %w", err)
	}
	key = KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return key, Hash(key), nil
}

// NewID returns a new key id: "key_" followed by 12 random lowercase base32
// characters (60 bits), enough that ids made apart never collide in practice.
// An id is not secret.
func NewID() string {
	return "key_" + strings.ToLower(rand.Text()[:12])
}

// Append adds the entry k with the given hash to the keys file at path,
// atomically: readers, and a File watching the file, see either the old
// file or the new one, never a partial write. A missing file is created with
// mode 0600; an existing file keeps its mode (and, where the process may set
// it, its owner). If path is a symlink, the file it points to is replaced.
//
// Existing entries and comments are kept: the new entry is added as text at
// the end of the "keys:" list when the file has the usual block layout, and
// otherwise the file is re-encoded from its YAML nodes, which keeps comments
// but may change formatting. The result is parsed before it replaces the
// file, and must hold exactly the previous keys plus the new one.
//
// Append refuses an existing id (ErrDuplicateID), an existing hash, an
// invalid entry, and an existing file that does not parse.
//
// Appends from several goroutines or processes do not lose entries: each
// holds an exclusive lock on the file path+".lock" (flock(2) on Unix, so a
// crashed process never leaves a stale lock; the lock file is left in place,
// which is harmless and required for flock). Editors do not take this lock.
func Append(path string, k Key, hash string) error {
	if _, err := Parse(entryFile(k, hash)); err != nil {
		return fmt.Errorf("append key: invalid entry: %w", err)
	}
	target := path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		target = p
	}
	unlock, err := lockFile(target + ".lock")
	if err != nil {
		return fmt.Errorf("append key: %w", unavailable(err))
	}
	defer unlock()

	old, err := os.ReadFile(target)
	var info fs.FileInfo
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return fmt.Errorf("append key: %w", unavailable(err))
	default:
		if info, err = os.Stat(target); err != nil {
			return fmt.Errorf("append key: %w", unavailable(err))
		}
	}
	set, err := Parse(old)
	if err != nil {
		return fmt.Errorf("append key: %w, fix it first: %s: %w", ErrInvalidFile, target, err)
	}
	if set.hasID(k.ID) {
		return fmt.Errorf("append key: id %q: %w", k.ID, ErrDuplicateID)
	}
	d, _ := parseHash(hash)
	if i, dup := set.byHash[d]; dup {
		return fmt.Errorf("append key: the hash is already used by id %q", set.entries[i].key.ID)
	}

	content, err := appendEntry(old, k, hash, set)
	if err != nil {
		return fmt.Errorf("append key: %w", err)
	}
	if err := writeAtomic(target, content, info); err != nil {
		return fmt.Errorf("append key: %w", unavailable(err))
	}
	return nil
}

// entryNode renders k as the mapping node of one list item, in the field
// order of the spec's example; an empty name is left out.
func entryNode(k Key, hash string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("id"), str(k.ID)}}
	if k.Name != "" {
		n.Content = append(n.Content, str("name"), str(k.Name))
	}
	n.Content = append(n.Content,
		str("hash"), str(hash),
		str("products"), productsNode(k.Products),
		str("disabled"), boolNode(k.Disabled),
	)
	for _, f := range []struct {
		name string
		t    time.Time
	}{{"expires_at", k.ExpiresAt}, {"created_at", k.CreatedAt}} {
		if !f.t.IsZero() {
			n.Content = append(n.Content, str(f.name), instantNode(f.t))
		}
	}
	return n
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

// productsNode renders products as a flow mapping in name order.
func productsNode(products map[string]string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	for _, name := range slices.Sorted(maps.Keys(products)) {
		n.Content = append(n.Content, str(name), str(products[name]))
	}
	return n
}

// instantNode renders t as an RFC 3339 scalar, UTC, to the second.
func instantNode(t time.Time) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: t.UTC().Truncate(time.Second).Format(time.RFC3339)}
}

// entryText renders k as a block list item at column 0.
func entryText(k Key, hash string) []byte {
	b, err := encode(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{entryNode(k, hash)}})
	if err != nil {
		panic(err) // a node of strings and a bool always encodes
	}
	return b
}

// entryFile renders a keys file holding k alone.
func entryFile(k Key, hash string) []byte {
	return append([]byte("keys:\n"), indent(entryText(k, hash), "  ")...)
}

func encode(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func indent(text []byte, prefix string) []byte {
	var out []byte
	for line := range bytes.Lines(text) {
		out = append(out, prefix...)
		out = append(out, line...)
	}
	return out
}

// appendEntry returns old with the entry added, checked to parse to the keys
// of old followed by the new one.
func appendEntry(old []byte, k Key, hash string, oldSet *Set) ([]byte, error) {
	want, _ := Parse(entryFile(k, hash))
	check := func(b []byte) bool {
		got, err := Parse(b)
		return err == nil && got.Len() == oldSet.Len()+1 &&
			sameEntries(got.entries[:oldSet.Len()], oldSet.entries) &&
			sameEntries(got.entries[oldSet.Len():], want.entries)
	}
	if b, ok := appendText(old, k, hash); ok && check(b) {
		return b, nil
	}
	b, err := appendNode(old, k, hash)
	if err != nil {
		return nil, err
	}
	if !check(b) {
		return nil, errors.New("the new file would not hold the previous keys plus the new one; the file is left unchanged")
	}
	return b, nil
}

func sameEntries(a, b []entry) bool {
	return slices.EqualFunc(a, b, func(x, y entry) bool {
		return x.digest == y.digest && x.key.ID == y.key.ID && x.key.Name == y.key.Name &&
			x.key.Disabled == y.key.Disabled && maps.Equal(x.key.Products, y.key.Products) &&
			x.key.ExpiresAt.Equal(y.key.ExpiresAt) && x.key.CreatedAt.Equal(y.key.CreatedAt)
	})
}

// appendText adds the entry as text after the last line of the file, which
// is right when "keys" is a block list (or empty) ending the file, the usual
// layout. It reports false when the file has another layout; the caller
// checks the result in any case.
func appendText(old []byte, k Key, hash string) ([]byte, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(old, &doc); err != nil {
		return nil, false
	}
	out := bytes.Clone(old)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(doc.Content) == 0 { // empty, or comments only
		return append(out, entryFile(k, hash)...), true
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 {
		return nil, false
	}
	list := root.Content[1]
	switch {
	case list.Kind == yaml.SequenceNode && list.Style&yaml.FlowStyle == 0 && len(list.Content) > 0:
		return append(out, indent(entryText(k, hash), strings.Repeat(" ", list.Column-1))...), true
	case isNull(list) && list.Value == "": // "keys:" and nothing more
		return append(out, indent(entryText(k, hash), "  ")...), true
	}
	return nil, false
}

// appendNode adds the entry to the YAML node tree of old and encodes it
// again. Comments survive; formatting may not.
func appendNode(old []byte, k Key, hash string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(old, &doc); err != nil {
		return nil, err
	}
	list, err := listNode(&doc)
	if err != nil {
		return nil, err
	}
	list.Content = append(list.Content, entryNode(k, hash))
	return encode(&doc)
}

// listNode returns the "keys" list of the document doc, adding what is
// missing (the mapping, the list) to an empty document. A flow list becomes
// a block list.
func listNode(doc *yaml.Node) (*yaml.Node, error) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		*doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!null"}}}
	}
	root := doc.Content[0]
	if isNull(root) {
		*root = yaml.Node{Kind: yaml.MappingNode, HeadComment: root.HeadComment, LineComment: root.LineComment, FootComment: root.FootComment}
	}
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a mapping")
	}
	var name, list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "keys" {
			name, list = root.Content[i], resolve(root.Content[i+1])
		}
	}
	if list == nil {
		name, list = &yaml.Node{Kind: yaml.ScalarNode, Value: "keys"}, &yaml.Node{Kind: yaml.SequenceNode}
		root.Content = append(root.Content, name, list)
	}
	if isNull(list) {
		*list = yaml.Node{Kind: yaml.SequenceNode, HeadComment: list.HeadComment, LineComment: list.LineComment, FootComment: list.FootComment}
	}
	if list.Kind != yaml.SequenceNode {
		return nil, errors.New(`"keys" is not a list`)
	}
	list.Style &^= yaml.FlowStyle
	// A block list has no line of its own for a comment: move it to "keys:".
	if list.LineComment != "" && name.LineComment == "" {
		name.LineComment, list.LineComment = list.LineComment, ""
	}
	return list, nil
}

// writeAtomic replaces path with content through a temporary file in the
// same directory, synced before the rename, and syncs the directory after.
// info describes the file replaced, nil if none.
func writeAtomic(path string, content []byte, info fs.FileInfo) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	mode := fs.FileMode(0o600)
	if info != nil {
		mode = info.Mode().Perm()
		keepOwner(tmp, info)
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if _, err := io.Copy(tmp, bytes.NewReader(content)); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}
