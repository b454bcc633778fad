package main

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestFlagsReference holds the table of docs/catalog.md, "Flags and
// environment", to the flag set: one row per flag and no other, each
// default as the flag has it, each environment variable the one that
// sets the flag (and that -h names).
func TestFlagsReference(t *testing.T) {
	data, err := os.ReadFile("../../docs/catalog.md")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ def, env string }
	documented := map[string]row{}
	cell := regexp.MustCompile("^`([^`]*)`$")
	unquote := func(s string) string {
		s = strings.TrimSpace(s)
		if m := cell.FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return s
	}
	for _, line := range strings.Split(string(data), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 6 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`-") {
			continue
		}
		name := strings.TrimPrefix(unquote(cols[1]), "-")
		if _, dup := documented[name]; dup {
			t.Errorf("docs/catalog.md documents -%s twice", name)
		}
		documented[name] = row{env: unquote(cols[2]), def: unquote(cols[3])}
	}

	noEnv := func(string) string { return "" }
	fs, _ := newFlagSet(noEnv)
	usageEnv := regexp.MustCompile(`\(env ([A-Z0-9_]+)\)`)
	var flags []string
	fs.VisitAll(func(f *flag.Flag) {
		flags = append(flags, f.Name)
		r, ok := documented[f.Name]
		if !ok {
			t.Errorf("flag -%s is not in docs/catalog.md", f.Name)
			return
		}
		want := "none"
		if f.DefValue != "" {
			want = f.DefValue
		}
		if r.def != want {
			t.Errorf("-%s: documented default %q, the code has %q", f.Name, r.def, want)
		}
		var named string // the variable -h names
		if m := usageEnv.FindStringSubmatch(f.Usage); m != nil {
			named = m[1]
		}
		if r.env != named {
			t.Errorf("-%s: documented environment %q, -h names %q", f.Name, r.env, named)
		}
		if r.env == "" {
			return
		}
		// The documented variable sets the flag's default.
		value := "from-" + r.env
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			def, _ := strconv.ParseBool(f.DefValue)
			value = strconv.FormatBool(!def)
		}
		envFS, v := newFlagSet(func(name string) string {
			if name == r.env {
				return value
			}
			return ""
		})
		if got := envFS.Lookup(f.Name).DefValue; got != value || v.envErr != nil {
			t.Errorf("-%s: %s=%s makes its default %q (error %v), want %q", f.Name, r.env, value, got, v.envErr, value)
		}
	})
	for name := range documented {
		if !slices.Contains(flags, name) {
			t.Errorf("docs/catalog.md documents -%s, which is not a flag", name)
		}
	}
	if len(flags) < 13 {
		t.Fatalf("walked only %d flags: %v", len(flags), flags)
	}
}
