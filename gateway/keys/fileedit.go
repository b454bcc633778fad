package keys

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// The Store operations of the keys file. Each reads the file afresh, so
// that the CLI, the admin API of any process and an editor see one truth;
// writes take the lock Append takes and replace the file atomically, then
// reload the Set of a File that serves requests.

// FileAt returns a File for the operations on the keys file at path, for
// the CLI: it loads nothing, and its Current is nil.
func FileAt(path string) *File { return &File{path: path} }

func (s *File) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Close does nothing: a File holds no connection.
func (s *File) Close() {}

// Create adds the key at the end of the file (see Append).
func (s *File) Create(_ context.Context, n New) (Created, error) {
	c, hash, err := Prepare(n, s.now())
	if err != nil {
		return Created{}, err
	}
	if err := Append(s.path, c.Key, hash); err != nil {
		return Created{}, err
	}
	s.reloadServed()
	return c, nil
}

// List reads the file and returns one page of its keys in id order.
func (s *File) List(_ context.Context, after string, limit int) (Page, error) {
	set, err := s.read()
	if err != nil {
		return Page{}, err
	}
	ks := set.keys()
	sortByID(ks)
	return page(ks, after, limit), nil
}

// Get reads the file and returns the key of the given id.
func (s *File) Get(_ context.Context, id string) (Key, error) {
	set, err := s.read()
	if err != nil {
		return Key{}, err
	}
	i := set.index(id)
	if i < 0 {
		return Key{}, fmt.Errorf("key %q: %w", id, ErrNotFound)
	}
	return set.entries[i].key, nil
}

// Update changes the key's entry in place; other entries and comments stay.
func (s *File) Update(_ context.Context, id string, c Change) (Key, error) {
	var out Key
	err := s.edit(id, func(list, item *yaml.Node, old Key) error {
		k, err := Apply(old, c, s.now())
		if err != nil {
			return err
		}
		if c.Name != nil {
			setField(item, "name", str(k.Name))
		}
		if c.Disabled != nil {
			setField(item, "disabled", boolNode(k.Disabled))
		}
		if c.Products != nil {
			setField(item, "products", productsNode(k.Products))
		}
		if c.ExpiresAt != nil {
			setInstant(item, "expires_at", k.ExpiresAt)
		}
		out = k
		return nil
	})
	return out, err
}

// Rotate sets the old entry's expires_at and appends the new key's entry,
// in one write.
func (s *File) Rotate(_ context.Context, id string, overlap time.Duration) (Created, Key, error) {
	var next Created
	var ended Key
	err := s.edit(id, func(list, item *yaml.Node, old Key) error {
		var hash string
		var err error
		if ended, next, hash, err = Rotation(old, overlap, s.now()); err != nil {
			return err
		}
		setInstant(item, "expires_at", ended.ExpiresAt)
		list.Content = append(list.Content, entryNode(next.Key, hash))
		return nil
	})
	return next, ended, err
}

// Delete removes the key's entry.
func (s *File) Delete(_ context.Context, id string) error {
	return s.edit(id, func(list, item *yaml.Node, _ Key) error {
		list.Content = slices.DeleteFunc(list.Content, func(n *yaml.Node) bool { return n == item })
		return nil
	})
}

// read parses the file as it is now.
func (s *File) read() (*Set, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return newSet(nil), nil
	}
	if err != nil {
		return nil, unavailable(err)
	}
	set, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidFile, s.path, err)
	}
	return set, nil
}

// unavailable marks a failure of the file system (the lock, a read, a
// write: permission denied, a full disk, the lock held too long) as the
// store's being unavailable, as PostgreSQL's are: the request is fine and
// the code is not at fault.
func unavailable(err error) error { return fmt.Errorf("%w: %w", ErrUnavailable, err) }

// edit runs change on the entry of the given id, under the file's lock,
// and replaces the file with the result, which must parse.
func (s *File) edit(id string, change func(list, item *yaml.Node, old Key) error) error {
	target := s.path
	if p, err := filepath.EvalSymlinks(s.path); err == nil {
		target = p
	}
	unlock, err := lockFile(target + ".lock")
	if err != nil {
		return unavailable(err)
	}
	defer unlock()
	old, err := os.ReadFile(target)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("key %q: %w", id, ErrNotFound)
	} else if err != nil {
		return unavailable(err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return unavailable(err)
	}
	set, err := Parse(old)
	if err != nil {
		return fmt.Errorf("%w, fix it first: %s: %w", ErrInvalidFile, target, err)
	}
	i := set.index(id)
	if i < 0 {
		return fmt.Errorf("key %q: %w", id, ErrNotFound)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(old, &doc); err != nil {
		return err
	}
	list, err := listNode(&doc)
	if err != nil {
		return err
	}
	var item *yaml.Node
	for _, n := range list.Content {
		if n = resolve(n); n.Kind == yaml.MappingNode && fieldValue(n, "id") == id {
			item = n
		}
	}
	if item == nil { // an id in an alias or a flow style Parse accepts; cannot happen in practice
		return fmt.Errorf("key %q: its entry cannot be edited in place; edit the file by hand", id)
	}
	if err := change(list, item, set.entries[i].key); err != nil {
		return err
	}
	content, err := encode(&doc)
	if err != nil {
		return err
	}
	if _, err := Parse(content); err != nil {
		return fmt.Errorf("the edited file would not parse; it is left unchanged: %w", err)
	}
	if err := writeAtomic(target, content, info); err != nil {
		return unavailable(err)
	}
	s.reloadServed()
	return nil
}

// reloadServed reloads the Set of a File opened to serve requests, so that
// a change made through this process is in force when the call returns.
func (s *File) reloadServed() {
	if s.cur.Load() != nil {
		s.Reload()
	}
}

func fieldValue(m *yaml.Node, name string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return resolve(m.Content[i+1]).Value
		}
	}
	return ""
}

// setField sets the field name of the mapping m to v, adding it if absent.
func setField(m *yaml.Node, name string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, str(name), v)
}

// setInstant sets a time field, or removes it when t is zero.
func setInstant(m *yaml.Node, name string, t time.Time) {
	if !t.IsZero() {
		setField(m, name, instantNode(t))
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

// keys returns the keys of the set, in file order.
func (s *Set) keys() []Key {
	out := make([]Key, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.key
	}
	return out
}

// index returns the position of the key of the given id, or -1.
func (s *Set) index(id string) int {
	return slices.IndexFunc(s.entries, func(e entry) bool { return e.key.ID == id })
}
