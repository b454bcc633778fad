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

func TestPrograms(t *testing.T) {
	md := "# x\n```go\npackage main\n```\n\n```output\nhello\n...\n```\n```js\nconsole.log(1)\n```\ntext\n```output\nnot its output\n```\n```go\npackage two\n```\n"
	want := []Program{
		{Line: 2, Source: "package main\n", Output: []string{"hello", "..."}},
		{Line: 17, Source: "package two\n"},
	}
	if diff := cmp.Diff(want, Programs(md, "go")); diff != "" {
		t.Errorf("go (-want +got):\n%s", diff)
	}
	if got := Programs(md, "js"); len(got) != 1 || got[0].Output != nil {
		t.Errorf("js: %+v, want one program without output (prose stands between it and the output block)", got)
	}
}
