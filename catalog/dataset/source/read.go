package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Paths inside a source directory.
const (
	// VocabulariesFile declares the closed vocabularies.
	VocabulariesFile = "vocabularies.yaml"
	// FamiliesDir holds the family files, *.yaml, in any sub-directory.
	FamiliesDir = "families"
)

// Read parses the source directory fsys. It is strict: unknown keys, a
// second YAML document in a file and files other than *.yaml under
// families/ are errors. It does not check values; Build does.
func Read(fsys fs.FS) (*Source, error) { return ReadOnly(fsys, nil) }

// ReadOnly is Read limited to the family files that keep accepts (by path
// relative to fsys); nil keeps every file.
func ReadOnly(fsys fs.FS, keep func(file string) bool) (*Source, error) {
	s := &Source{}
	if err := readVocabularies(fsys, &s.Vocabularies); err != nil {
		return nil, err
	}
	files, err := familyFiles(fsys)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, name := range files {
		if keep != nil && !keep(name) {
			continue
		}
		fams, err := readFamilies(fsys, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Families = append(s.Families, fams...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

func readVocabularies(fsys fs.FS, v *Vocabularies) error {
	data, err := fs.ReadFile(fsys, VocabulariesFile)
	if err != nil {
		return err
	}
	if err := decodeStrict(VocabulariesFile, data, v); err != nil {
		return err
	}
	v.File = VocabulariesFile
	return nil
}

// familyFiles lists the family files in lexical order, so that the order of
// problems reported is stable. Any other file is refused rather than
// skipped: a "chest.yml" that is silently ignored would drop exercises.
func familyFiles(fsys fs.FS) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, FamiliesDir, func(name string, d fs.DirEntry, err error) error {
		switch {
		case name == FamiliesDir && errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s/: no family files", FamiliesDir)
		case err != nil:
			return err
		case d.IsDir():
			return nil
		case path.Ext(name) != ".yaml":
			return fmt.Errorf("%s: not a .yaml file; only family files belong in %s/", name, FamiliesDir)
		}
		files = append(files, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s/: no family files", FamiliesDir)
	}
	return files, nil
}

func readFamilies(fsys fs.FS, name string) ([]Family, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var fams []Family
	if err := decodeStrict(name, data, &fams); err != nil {
		return nil, err
	}
	if len(fams) == 0 {
		return nil, fmt.Errorf("%s: no families; a family file is a list of families", name)
	}
	if err := setPositions(name, data, fams); err != nil {
		return nil, err
	}
	return fams, nil
}

// decodeStrict decodes the single YAML document of a file into v, refusing
// unknown keys.
func decodeStrict(file string, data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty file", file)
		}
		return yamlError(file, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return yamlError(file, err)
	default:
		return fmt.Errorf("%s:%d: a second YAML document; a source file holds one", file, extra.Line)
	}
}

// setPositions records the line of each family and variant. The strict
// decoding into structs loses lines, and a custom unmarshaler would lose
// strictness (yaml.Node.Decode ignores KnownFields), so the lines come from
// a second parse into nodes, walked in step with the decoded families.
func setPositions(file string, data []byte, fams []Family) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return yamlError(file, err)
	}
	list := content(&doc, yaml.DocumentNode)
	famNodes := content(first(list), yaml.SequenceNode)
	for i := range fams {
		f := &fams[i]
		fn := at(famNodes, i)
		f.Pos = Position{File: file, Line: lineOr(fn, 0)}
		varNodes := content(mappingValue(fn, "variants"), yaml.SequenceNode)
		for j := range f.Variants {
			f.Variants[j].Pos = Position{File: file, Line: lineOr(at(varNodes, j), f.Pos.Line)}
		}
	}
	return nil
}

// content returns the children of n if it is of the given kind, following
// aliases; the node helpers accept nil so that a shape they do not expect
// degrades to a coarser position instead of a panic.
func content(n *yaml.Node, kind yaml.Kind) []*yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != kind {
		return nil
	}
	return n.Content
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	kv := content(n, yaml.MappingNode)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i].Value == key {
			return kv[i+1]
		}
	}
	return nil
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func first(ns []*yaml.Node) *yaml.Node { return at(ns, 0) }

func at(ns []*yaml.Node, i int) *yaml.Node {
	if i < len(ns) {
		return resolve(ns[i])
	}
	return nil
}

func lineOr(n *yaml.Node, fallback int) int {
	if n == nil {
		return fallback
	}
	return n.Line
}

var (
	// yamlLine matches the messages of the YAML package that carry a line,
	// both syntax errors ("yaml: line 3: ...") and the entries of a
	// *yaml.TypeError ("line 3: ...").
	yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	// unknownField matches the YAML package's unknown key message, which
	// names a Go type that means nothing to the author of the source.
	unknownField = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// yamlError rewrites an error of the YAML package into one message per
// problem, each starting "file:line:" like a compiler's.
func yamlError(file string, err error) error {
	msgs := []string{err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	errs := make([]error, len(msgs))
	for i, msg := range msgs {
		errs[i] = errors.New(locate(file, msg))
	}
	return errors.Join(errs...)
}

func locate(file, msg string) string {
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return file + ": " + strings.TrimPrefix(msg, "yaml: ")
	}
	text := m[2]
	if u := unknownField.FindStringSubmatch(text); u != nil {
		text = fmt.Sprintf("unknown key %q", u[1])
	}
	return fmt.Sprintf("%s:%s: %s", file, m[1], text)
}
