package docexample

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	md := "intro\n```sh\n$ echo a \\\n    b\na b\n\n$ true\n```\n```\n$ not an example\n```\n```sh\n$ ls\n...\n```\n"
	want := []Example{
		{Line: 3, Command: "echo a b", Output: []string{"a b"}},
		{Line: 7, Command: "true"},
		{Line: 13, Command: "ls", Output: []string{"..."}},
	}
	if diff := cmp.Diff(want, Parse(md)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		want []string
		got  string
		ok   bool
	}{
		{[]string{"a", "b"}, "a\nb\n", true},
		{[]string{"a", "b"}, "a\nb\nc\n", false},
		{[]string{"a", "...", "d"}, "a\nb\nc\nd\n", true},
		{[]string{"a", "...", "d"}, "a\nd", true},
		{[]string{"a", "...", "d"}, "a\nb", false},
		{[]string{"..."}, "anything\nat all", true},
		{[]string{"x  "}, "x", false},
		{[]string{"x"}, "x   \n\n", true},
		{[]string{`{"a":1,...`}, `{"a":1,"b":2}`, true},
		{[]string{`{"a":1,...`}, `{"a":2}`, false},
	}
	for _, tt := range tests {
		if got := Match(tt.want, tt.got); got != tt.ok {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.want, tt.got, got, tt.ok)
		}
	}
}
