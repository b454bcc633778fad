package keys

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Keys of the tests, with their hashes.
var (
	keyA, keyB, keyC = "exdb_test_key_a", "exdb_test_key_b", "exdb_test_key_c"
	hashA, hashB     = Hash(keyA), Hash(keyB)
	hashC            = Hash(keyC)
)

// keysOf returns the keys of s in file order.
func keysOf(t *testing.T, s *Set) []Key {
	t.Helper()
	var out []Key
	for _, e := range s.entries {
		out = append(out, e.key)
	}
	return out
}

func mustParse(t *testing.T, data string) *Set {
	t.Helper()
	s, err := Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse: %v\nfile:\n%s", err, data)
	}
	return s
}

func TestHash(t *testing.T) {
	// The spec's example: sha256("test").
	if got, want := Hash("test"), "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"; got != want {
		t.Errorf("Hash(%q) = %q, want %q", "test", got, want)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []Key
	}{
		{
			name: "spec example",
			file: `keys:
  - id: key_demo
    name: demo application
    hash: sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
    products: {exercisedb: Pro}
    disabled: false
`,
			want: []Key{{ID: "key_demo", Name: "demo application", Products: map[string]string{"exercisedb": "Pro"}}},
		},
		{
			name: "several keys, block products, disabled, no name, comments",
			file: fmt.Sprintf(`# the keys
keys:
  - id: a   # first
    hash: %s
    products:
      exercisedb: Basic
      other: Mega
  - id: b
    name: "B: the second"
    hash: %s
    products: {exercisedb: Ultra}
    disabled: true
`, hashA, hashB),
			want: []Key{
				{ID: "a", Products: map[string]string{"exercisedb": "Basic", "other": "Mega"}},
				{ID: "b", Name: "B: the second", Products: map[string]string{"exercisedb": "Ultra"}, Disabled: true},
			},
		},
		{
			name: "anchors and aliases",
			file: fmt.Sprintf(`keys:
  - id: a
    hash: %s
    products: &plans {exercisedb: Pro}
  - id: b
    hash: %s
    products: *plans
`, hashA, hashB),
			want: []Key{
				{ID: "a", Products: map[string]string{"exercisedb": "Pro"}},
				{ID: "b", Products: map[string]string{"exercisedb": "Pro"}},
			},
		},
		{name: "empty file", file: ""},
		{name: "blank lines", file: "\n\n  \n"},
		{name: "comments only", file: "# no keys yet\n"},
		{name: "keys null", file: "keys:\n"},
		{name: "keys empty list", file: "keys: []\n"},
		{name: "null document", file: "~\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.file)
			if diff := cmp.Diff(tt.want, keysOf(t, s)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if s.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", s.Len(), len(tt.want))
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	entry := func(id, hash, extra string) string {
		return fmt.Sprintf("  - id: %s\n    hash: %s\n    products: {exercisedb: Pro}\n%s", id, hash, extra)
	}
	tests := []struct {
		name string
		file string
		want []string // fragments of the error message
	}{
		{
			name: "unknown field in an entry",
			file: "keys:\n" + entry("a", hashA, "    plan: Pro\n"),
			want: []string{`keys[0] (id "a", line 2)`, "line 5", `unknown field "plan"`},
		},
		{
			name: "unknown top-level field",
			file: "keys: []\nkey: []\n",
			want: []string{"line 2", `unknown field "key"`},
		},
		{
			name: "missing id",
			file: "keys:\n" + entry("a", hashA, "") + "  - hash: " + hashB + "\n    products: {x: Pro}\n",
			want: []string{"keys[1] (line 5)", "missing id"},
		},
		{
			name: "null id",
			file: "keys:\n" + entry("~", hashA, ""),
			want: []string{"keys[0] (line 2)", "missing id"},
		},
		{
			name: "missing hash",
			file: "keys:\n  - id: a\n    products: {x: Pro}\n",
			want: []string{`keys[0] (id "a", line 2)`, "missing hash"},
		},
		{
			name: "hash without prefix",
			file: "keys:\n" + entry("a", strings.TrimPrefix(hashA, "sha256:"), ""),
			want: []string{`keys[0] (id "a", line 2)`, "malformed hash"},
		},
		{
			name: "hash in upper case",
			file: "keys:\n" + entry("a", "sha256:"+strings.ToUpper(strings.TrimPrefix(hashA, "sha256:")), ""),
			want: []string{`keys[0] (id "a", line 2)`, "malformed hash"},
		},
		{
			name: "hash too short",
			file: "keys:\n" + entry("a", hashA[:len(hashA)-1], ""),
			want: []string{`keys[0] (id "a", line 2)`, "malformed hash"},
		},
		{
			name: "hash of another algorithm",
			file: "keys:\n" + entry("a", "md5:"+strings.TrimPrefix(hashA, "sha256:"), ""),
			want: []string{`keys[0] (id "a", line 2)`, "malformed hash"},
		},
		{
			name: "duplicate id",
			file: "keys:\n" + entry("a", hashA, "") + entry("a", hashB, ""),
			want: []string{`keys[1] (id "a", line 5)`, "id already used by keys[0] (line 2)"},
		},
		{
			name: "duplicate hash",
			file: "keys:\n" + entry("a", hashA, "") + entry("b", hashA, ""),
			want: []string{`keys[1] (id "b", line 5)`, `same hash as keys[0] (id "a", line 2)`},
		},
		{
			name: "empty products",
			file: "keys:\n  - id: a\n    hash: " + hashA + "\n    products: {}\n",
			want: []string{`keys[0] (id "a", line 2)`, "products is empty"},
		},
		{
			name: "missing products",
			file: "keys:\n  - id: a\n    hash: " + hashA + "\n",
			want: []string{`keys[0] (id "a", line 2)`, "missing products"},
		},
		{
			name: "product without plan",
			file: "keys:\n  - id: a\n    hash: " + hashA + "\n    products: {exercisedb: }\n",
			want: []string{`keys[0] (id "a", line 2)`, `product "exercisedb" has no plan`},
		},
		{
			name: "products as a list",
			file: "keys:\n  - id: a\n    hash: " + hashA + "\n    products: [exercisedb]\n",
			want: []string{`keys[0] (id "a", line 2)`, "line 4", "products must be a mapping"},
		},
		{
			name: "disabled not a bool",
			file: "keys:\n" + entry("a", hashA, "    disabled: sometimes\n"),
			want: []string{`keys[0] (id "a", line 2)`, "line 5", "disabled must be true or false"},
		},
		{
			name: "field twice",
			file: "keys:\n" + entry("a", hashA, "    hash: "+hashB+"\n"),
			want: []string{`keys[0] (id "a", line 2)`, "line 5", `field "hash" appears twice`},
		},
		{
			name: "entry not a mapping",
			file: "keys:\n  - key_a\n",
			want: []string{"keys[0] (line 2)", "must be a mapping"},
		},
		{
			name: "keys not a list",
			file: "keys: {a: b}\n",
			want: []string{"line 1", `"keys" must be a list`},
		},
		{
			name: "top level not a mapping",
			file: "- id: a\n",
			want: []string{"line 1", "must be a mapping"},
		},
		{
			name: "two documents",
			file: "keys: []\n---\nkeys: []\n",
			want: []string{"line 2", "second YAML document"},
		},
		{
			name: "syntax error",
			file: "keys:\n  - id: a\n   hash: [\n",
			want: []string{"keys file", "line"},
		},
		{
			name: "every invalid entry is reported",
			file: "keys:\n  - id: a\n  - id: b\n",
			want: []string{`keys[0] (id "a", line 2): missing hash`, `keys[1] (id "b", line 3): missing hash`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.file))
			if err == nil {
				t.Fatalf("Parse succeeded with %d keys, want an error\nfile:\n%s", s.Len(), tt.file)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestParseErrorsHideValues checks that errors never quote a value of the
// file, which might be a key pasted where its hash belongs.
func TestParseErrorsHideValues(t *testing.T) {
	secret := "exdb_SECRETSECRETSECRETSECRET"
	files := []string{
		"keys:\n  - id: a\n    hash: " + secret + "\n    products: {x: Pro}\n",
		"keys:\n  - id: a\n    hash: " + hashA + "\n    products: {x: Pro}\n    disabled: " + secret + "\n",
		"keys:\n  - id: a\n    hash: [" + secret + "]\n    products: {x: Pro}\n",
		"keys:\n  - id: a\n    hash: " + hashA + "\n    products: " + secret + "\n",
		"keys:\n  - id: a\n    hash: " + hashA + "\n    products: {x: Pro}\n  - id: b\n    hash: " + hashA + "\n    products: {x: Pro}\n",
		"keys: " + secret + "\n",
	}
	for i, f := range files {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := Parse([]byte(f))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			for _, s := range []string{secret[:7], hashA[len("sha256:"):][:8]} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q contains %q", err, s)
				}
			}
		})
	}
}

func TestLookup(t *testing.T) {
	s := mustParse(t, fmt.Sprintf(`keys:
  - id: a
    hash: %s
    products: {exercisedb: Pro}
  - id: b
    hash: %s
    products: {exercisedb: Basic}
    disabled: true
`, hashA, hashB))
	flip := []byte(keyA)
	flip[len(flip)-1] ^= 1
	tests := []struct {
		name      string
		presented string
		want      Key
		found     bool
	}{
		{"right key", keyA, Key{ID: "a", Products: map[string]string{"exercisedb": "Pro"}}, true},
		{"disabled key is returned", keyB, Key{ID: "b", Products: map[string]string{"exercisedb": "Basic"}, Disabled: true}, true},
		{"unknown key", keyC, Key{}, false},
		{"one byte different", string(flip), Key{}, false},
		{"prefix of a key", keyA[:len(keyA)-1], Key{}, false},
		{"key with a byte more", keyA + "x", Key{}, false},
		{"the hash instead of the key", hashA, Key{}, false},
		{"empty", "", Key{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := s.Lookup(tt.presented)
			if found != tt.found {
				t.Errorf("Lookup found = %v, want %v", found, tt.found)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lookup key (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("nil set", func(t *testing.T) {
		var s *Set
		if _, found := s.Lookup(keyA); found || s.Len() != 0 {
			t.Errorf("nil set: found = %v, Len = %d", found, s.Len())
		}
	})
}

// BenchmarkLookup finds a key among 10,000, and misses one: a SHA-256 of
// the presented key and a map lookup, whatever the number of keys.
func BenchmarkLookup(b *testing.B) {
	var file strings.Builder
	file.WriteString("keys:\n")
	for i := range 10_000 {
		fmt.Fprintf(&file, "  - {id: key_%d, hash: %s, products: {exercisedb: Pro}}\n", i, Hash(fmt.Sprintf("exdb_bench_%d", i)))
	}
	set, err := Parse([]byte(file.String()))
	if err != nil {
		b.Fatal(err)
	}
	for name, key := range map[string]string{"hit": "exdb_bench_4242", "miss": "exdb_bench_unknown"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := set.Lookup(key); ok != (name == "hit") {
					b.Fatalf("Lookup(%s) found = %v", key, ok)
				}
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // UTC, RFC 3339; "" for an error
	}{
		{"2030-01-01T00:00:00Z", "2030-01-01T00:00:00Z"},
		{"2030-01-01t00:00:00z", "2030-01-01T00:00:00Z"},
		{"2030-01-01T02:00:00+02:00", "2030-01-01T00:00:00Z"},
		{"2030-01-01T00:00:00.5-23:59", "2030-01-01T23:59:00Z"},
		{"2030-01-01T00:00:00+24:00", ""},
		{"2030-01-01 00:00:00Z", ""},
		{"2030-01-01", ""},
		{"", ""},
	} {
		got, err := ParseTime(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseTime(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got.UTC().Truncate(time.Second).Format(time.RFC3339) != tt.want {
			t.Errorf("ParseTime(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}
