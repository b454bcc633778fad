package keys

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestKeysFileReference holds docs/configuration.md, "The keys file", to
// the parser: its YAML example parses, and the fields it shows are the
// fields an entry may have, no more and no fewer, as the parser's switch
// has them and as entryFields lists them for errors.
func TestKeysFileReference(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := yamlBlocks(t, string(data), "## The keys file")
	if len(blocks) == 0 {
		t.Fatal(`docs/configuration.md, "The keys file", has no yaml example`)
	}
	var documented []string
	for _, b := range blocks {
		set, err := Parse([]byte(b.text))
		if err != nil {
			t.Errorf("docs/configuration.md:%d: the keys file example does not parse: %v", b.line, err)
			continue
		}
		if set.Len() == 0 {
			t.Errorf("docs/configuration.md:%d: the keys file example holds no key", b.line)
		}
		var doc struct {
			Keys []yaml.Node `yaml:"keys"`
		}
		if err := yaml.Unmarshal([]byte(b.text), &doc); err != nil {
			t.Fatal(err)
		}
		for _, e := range doc.Keys {
			for i := 0; i+1 < len(e.Content); i += 2 {
				if name := e.Content[i].Value; !slices.Contains(documented, name) {
					documented = append(documented, name)
				}
			}
		}
	}

	accepted := parserFields(t)
	if len(accepted) < 5 {
		t.Fatalf("found only %d fields in the parser's switch: %v", len(accepted), accepted)
	}
	for _, f := range accepted {
		if !slices.Contains(documented, f) {
			t.Errorf("the parser accepts the entry field %q, which the example of docs/configuration.md (The keys file) does not show", f)
		}
	}
	for _, f := range documented {
		if !slices.Contains(accepted, f) {
			t.Errorf("docs/configuration.md (The keys file) shows the entry field %q, which the parser does not accept", f)
		}
	}
	listed := strings.Split(entryFields, ", ")
	slices.Sort(listed)
	if !slices.Equal(listed, accepted) {
		t.Errorf("entryFields lists %v, the parser accepts %v", listed, accepted)
	}
}

// docBlock is a fenced code block and the line of its opening fence.
type docBlock struct {
	line int
	text string
}

// yamlBlocks returns the fenced blocks whose info string is "yaml" in the
// section of md under heading, up to the next heading of the same level
// or above.
func yamlBlocks(t *testing.T, md, heading string) []docBlock {
	t.Helper()
	level := strings.Index(heading, " ")
	var out []docBlock
	var cur *docBlock
	in := false
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if h := strings.Index(line, " "); cur == nil && h > 0 && h <= level && strings.Trim(line[:h], "#") == "" {
			if in {
				break
			}
			in = trimmed == heading
			continue
		}
		switch {
		case !in:
		case cur == nil && trimmed == "```yaml":
			out = append(out, docBlock{line: i + 1})
			cur = &out[len(out)-1]
		case cur != nil && trimmed == "```":
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("docs/configuration.md:%d: a yaml block is not closed", cur.line)
	}
	return out
}

// parserFields returns, sorted, the field names that (*parser).entry in
// keys.go switches on: the fields an entry may have.
func parserFields(t *testing.T) []string {
	t.Helper()
	f, err := goparser.ParseFile(token.NewFileSet(), "keys.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "entry" || fn.Recv == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if !ok {
				return true
			}
			// switch k.Value { case "id": ... }: the switch on a field's name.
			if sel, ok := sw.Tag.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Value" {
				return true
			}
			for _, s := range sw.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						name, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						fields = append(fields, name)
					}
				}
			}
			return false
		})
	}
	slices.Sort(fields)
	return fields
}
