// Package changelog records what each catalogue version changed: the
// records added, changed (and which of their fields) and removed since the
// version before it, so that a client that caches records knows which to
// fetch again. Versions are the catalogue versions the API reports
// (exercise.Catalogue.Version).
package changelog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// Format names the file format; a reader refuses any other.
const Format = "exercisedb-changelog/v1"

// File is a changelog: its versions, newest first, each the successor of
// the next one.
type File struct {
	Format   string    `json:"format"`
	Versions []Version `json:"versions"`
}

// Version is what one catalogue version changed since the one before it.
type Version struct {
	Version string `json:"version"`
	// Previous is the version it replaces; "" for the first one.
	Previous string `json:"previous"`
	// Added, Changed and Removed are in id order.
	Added   []string `json:"added"`
	Changed []Change `json:"changed"`
	Removed []string `json:"removed"`
	// Vocabularies is true when the reference lists (body parts, muscles,
	// equipments, exercise types, difficulties) changed.
	Vocabularies bool `json:"vocabularies"`
}

// Change names a record that changed and the fields that differ, by their
// names in the catalogue file.
type Change struct {
	ID     string   `json:"id"`
	Fields []string `json:"fields"`
}

// Diff returns what next changed since prev; prev nil means next is the
// first version, every record added.
func Diff(prev, next *exercise.Catalogue) (Version, error) {
	v := Version{Version: next.Version(), Added: []string{}, Changed: []Change{}, Removed: []string{}}
	before := map[string]map[string]json.RawMessage{}
	if prev != nil {
		v.Previous = prev.Version()
		for x := range prev.All() {
			fields, err := fieldsOf(x)
			if err != nil {
				return Version{}, err
			}
			before[x.ID] = fields
		}
		same, err := jsonEqual(prev.Vocabularies(), next.Vocabularies())
		if err != nil {
			return Version{}, err
		}
		v.Vocabularies = !same
	} else {
		v.Vocabularies = true
	}
	for x := range next.All() {
		old, ok := before[x.ID]
		if !ok {
			v.Added = append(v.Added, x.ID)
			continue
		}
		delete(before, x.ID)
		fields, err := fieldsOf(x)
		if err != nil {
			return Version{}, err
		}
		if changed := changedFields(old, fields); len(changed) > 0 {
			v.Changed = append(v.Changed, Change{ID: x.ID, Fields: changed})
		}
	}
	for id := range before {
		v.Removed = append(v.Removed, id)
	}
	slices.Sort(v.Added)
	slices.Sort(v.Removed)
	slices.SortFunc(v.Changed, func(a, b Change) int { return strings.Compare(a.ID, b.ID) })
	return v, nil
}

// fieldsOf is the record as the catalogue file holds it, member by member,
// so that a field the record type gains is compared without a change here.
func fieldsOf(x *exercise.Exercise) (map[string]json.RawMessage, error) {
	data, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	err = json.Unmarshal(data, &fields)
	return fields, err
}

// changedFields names the members whose values differ, a member missing on
// one side included, in name order.
func changedFields(a, b map[string]json.RawMessage) []string {
	var out []string
	for k, va := range a {
		if vb, ok := b[k]; !ok || !bytes.Equal(va, vb) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func jsonEqual(a, b any) (bool, error) {
	da, err := json.Marshal(a)
	if err != nil {
		return false, err
	}
	db, err := json.Marshal(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(da, db), nil
}

// ErrBrokenChain is the error of Record for a version whose predecessor the
// changelog does not hold: a catalogue was released without being
// recorded (a branch merged without its changelog, say), so the versions
// before it no longer lead to the new one.
var ErrBrokenChain = errors.New("the changelog cannot take this version")

// Record adds v as the newest version. Versions newer than v's predecessor
// (and one that replaced the same predecessor) are dropped first: they
// were generated from a source that was edited again before it was
// released, and v now covers them. A changelog that
// does not hold v's predecessor cannot take v (the chain would break),
// unless it is empty. Recording a version that changed nothing (v.Version
// equals v.Previous) only drops those newer versions.
func (f *File) Record(v Version) error {
	f.Format = Format
	i := slices.IndexFunc(f.Versions, func(e Version) bool { return e.Version == v.Previous })
	if i < 0 {
		// The changelog starts after v's predecessor: keep what is older
		// than the version that replaced it.
		if j := slices.IndexFunc(f.Versions, func(e Version) bool { return e.Previous == v.Previous }); j >= 0 {
			i = j + 1
		}
	}
	switch {
	case i >= 0:
		f.Versions = f.Versions[i:]
	case len(f.Versions) > 0 && v.Previous != "":
		return fmt.Errorf("%w: it does not hold version %s, the catalogue this one (%s) was compared with; its newest is %s",
			ErrBrokenChain, v.Previous, v.Version, f.Versions[0].Version)
	}
	if v.Version == v.Previous {
		return nil
	}
	f.Versions = append([]Version{v}, f.Versions...)
	return nil
}

// Check reports whether f is a well-formed changelog whose newest version
// is current: the format, a chain of versions each replacing the next,
// each version once, and ids sorted, unique and in one list of a version.
func (f *File) Check(current string) error {
	if f.Format != Format {
		return fmt.Errorf("format %q, want %q", f.Format, Format)
	}
	if len(f.Versions) == 0 {
		return errors.New("no versions")
	}
	if f.Versions[0].Version != current {
		return fmt.Errorf("newest version is %s, want the catalogue's version %s", f.Versions[0].Version, current)
	}
	seen := map[string]bool{}
	for i, v := range f.Versions {
		if seen[v.Version] {
			return fmt.Errorf("version %s is listed twice", v.Version)
		}
		seen[v.Version] = true
		if next := i + 1; next < len(f.Versions) && v.Previous != f.Versions[next].Version {
			return fmt.Errorf("version %s replaces %s, but the next entry is %s", v.Version, v.Previous, f.Versions[next].Version)
		}
		ids := map[string]bool{}
		for _, list := range [][]string{v.Added, v.Removed, changedIDs(v.Changed)} {
			if !slices.IsSorted(list) {
				return fmt.Errorf("version %s: ids out of order", v.Version)
			}
			for _, id := range list {
				if ids[id] {
					return fmt.Errorf("version %s: id %s is listed twice", v.Version, id)
				}
				ids[id] = true
			}
		}
		for _, c := range v.Changed {
			if len(c.Fields) == 0 || !slices.IsSorted(c.Fields) {
				return fmt.Errorf("version %s: record %s: fields missing or out of order", v.Version, c.ID)
			}
		}
	}
	return nil
}

func changedIDs(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// Decode reads a changelog file, refusing unknown members.
func Decode(r io.Reader) (*File, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("changelog: %w", err)
	}
	if f.Format != Format {
		return nil, fmt.Errorf("changelog: format %q, want %q", f.Format, Format)
	}
	return &f, nil
}

// Encode writes f as indented JSON with one id or change to a line, so
// that a new version shows in a review as the lines it adds.
func Encode(w io.Writer, f *File) error {
	var b bytes.Buffer
	str := func(s string) {
		data, _ := json.Marshal(s) // a string always encodes
		b.Write(data)
	}
	b.WriteString("{\n  \"format\": ")
	str(f.Format)
	b.WriteString(",\n  \"versions\": [")
	for i, v := range f.Versions {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    {\n      \"version\": ")
		str(v.Version)
		b.WriteString(",\n      \"previous\": ")
		str(v.Previous)
		list := func(name string, n int, item func(int)) {
			b.WriteString(",\n      \"" + name + "\": [")
			for j := range n {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString("\n        ")
				item(j)
			}
			if n > 0 {
				b.WriteString("\n      ")
			}
			b.WriteString("]")
		}
		list("added", len(v.Added), func(j int) { str(v.Added[j]) })
		list("changed", len(v.Changed), func(j int) {
			b.WriteString("{\"id\": ")
			str(v.Changed[j].ID)
			b.WriteString(", \"fields\": [")
			for k, field := range v.Changed[j].Fields {
				if k > 0 {
					b.WriteString(", ")
				}
				str(field)
			}
			b.WriteString("]}")
		})
		list("removed", len(v.Removed), func(j int) { str(v.Removed[j]) })
		fmt.Fprintf(&b, ",\n      \"vocabularies\": %t\n    }", v.Vocabularies)
	}
	if len(f.Versions) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// ErrUnknownVersion is the error of Since for a version the changelog does
// not reach back to: the client must fetch every record again.
var ErrUnknownVersion = errors.New("not a catalogue version of the changelog")

// Since returns the versions that lead to current, newest first: all of
// them the changelog holds, or with since set only those newer than since
// (none when since is current). A changelog that does not hold current (a
// catalogue it was not generated with) has no versions to give; since is
// then known only when it is current.
func (f *File) Since(current, since string) ([]Version, error) {
	var chain []Version
	if f != nil {
		if i := slices.IndexFunc(f.Versions, func(v Version) bool { return v.Version == current }); i >= 0 {
			chain = f.Versions[i:]
		}
	}
	if since == "" {
		return chain, nil
	}
	if since == current {
		return []Version{}, nil
	}
	for i, v := range chain {
		if v.Previous == since {
			return chain[:i+1], nil
		}
	}
	return nil, ErrUnknownVersion
}
