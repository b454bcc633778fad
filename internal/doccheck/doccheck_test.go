package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// history matches words that speak of how the project came to be rather
// than of the system: numbered items of its tracker, its work periods,
// the decision log's marker. (Built from pieces, so that this file does
// not match itself.)
var history = regexp.MustCompile(`(?i)\bissues? #?[0-9]+|\b` + `sess` + `ions?\b|\bdecided ` + `here\b`)

// outside matches a mention of the documents that sit beside the
// repository rather than in it, which a clone does not have.
var outside = regexp.MustCompile(`\.\./` + `shared\b`)

// files returns the repository's files whose names end in one of exts,
// as paths from root, leaving out version control and hidden or vendored
// directories (a test's scratch directory among them).
func files(t *testing.T, exts ...string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		for _, ext := range exts {
			if strings.HasSuffix(name, ext) {
				out = append(out, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no %v files under %s", exts, root)
	}
	return out
}

func rel(path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// TestNoHistory: Markdown and Go files say what the system is and does,
// not which tracker item or work period brought it; and the Markdown is
// complete without the documents beside the repository.
func TestNoHistory(t *testing.T) {
	for _, path := range files(t, ".md", ".go") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			m := history.FindString(line)
			if m == "" && strings.HasSuffix(path, ".md") {
				m = outside.FindString(line)
			}
			if m != "" {
				t.Errorf("%s:%d: %q: %s", rel(path), i+1, m, strings.TrimSpace(line))
			}
		}
	}
}

// link is a Markdown inline link or image: [text](target) or ![alt](target).
var link = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// TestLinks: every relative link of every Markdown file names a file of
// the repository (never one beside it), and a link to
// a heading names one that exists.
func TestLinks(t *testing.T) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // Markdown file (absolute) → its headings' anchors
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(data))
		anchors[path] = a
		return a
	}
	for _, path := range files(t, ".md") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(stripCode(string(data)), "\n") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := abs
				if file != "" {
					if strings.HasPrefix(file, "/") {
						t.Errorf("%s:%d: %s: an absolute path; link relative to the file", rel(path), i+1, target)
						continue
					}
					dest = filepath.Join(filepath.Dir(abs), filepath.FromSlash(file))
				}
				if r, err := filepath.Rel(absRoot, dest); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
					t.Errorf("%s:%d: %s leaves the repository", rel(path), i+1, target)
					continue
				}
				info, err := os.Stat(dest)
				if err != nil {
					t.Errorf("%s:%d: %s: no such file", rel(path), i+1, target)
					continue
				}
				if anchor != "" && !info.IsDir() && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
					t.Errorf("%s:%d: %s: %s has no heading with this anchor", rel(path), i+1, target, filepath.ToSlash(strings.TrimPrefix(dest, absRoot+string(filepath.Separator))))
				}
			}
		}
	}
}

// stripCode blanks fenced code blocks and inline code spans, which hold
// text that looks like links but is not.
func stripCode(md string) string {
	lines := strings.Split(md, "\n")
	inFence := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			lines[i] = ""
			continue
		}
		if inFence {
			lines[i] = ""
			continue
		}
		lines[i] = inlineCode.ReplaceAllString(line, "``")
	}
	return strings.Join(lines, "\n")
}

var inlineCode = regexp.MustCompile("`[^`]*`")

// headingAnchors returns the anchors GitHub gives the headings of md:
// lower case, punctuation dropped but hyphens and underscores, spaces as
// hyphens, and -1, -2, ... for repeats.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}
