package queryparam

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	allowed := []string{"limit", "after"}
	for _, tt := range []struct {
		raw     string
		allowed []string
		err     string // "" for none
	}{
		{"", allowed, ""},
		{"limit=5&after=x", allowed, ""},
		{"limit=%zz", allowed, "malformed"},
		{"limit=1;after=2", allowed, "malformed"},
		{"Limit=1", allowed, `Unknown query parameter "Limit": this endpoint takes only limit and after.`},
		{"b=1&a=2", allowed, `Unknown query parameter "a", "b"`},
		{"x=1", nil, `Unknown query parameter "x": this endpoint takes no query parameters.`},
		{strings.Repeat("x", 80) + "=1", nil, `"` + strings.Repeat("x", 64) + `..."`},
		{"limit=" + strings.Repeat("0", MaxRaw-6), allowed, ""},
		{"limit=" + strings.Repeat("0", MaxRaw-5), allowed, "4097 bytes long; at most 4096"},
	} {
		_, err := Parse(tt.raw, tt.allowed)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Parse(%.40q) = %v, want %q", tt.raw, err, tt.err)
		}
	}
}

func TestSingle(t *testing.T) {
	values, err := Parse("limit=5&after=a&after=b&empty=", []string{"limit", "after", "empty", "none"})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := Single(values, "limit"); v != "5" || !ok || err != nil {
		t.Errorf("limit: %q %v %v", v, ok, err)
	}
	if v, ok, err := Single(values, "empty"); v != "" || !ok || err != nil {
		t.Errorf("empty: %q %v %v", v, ok, err)
	}
	if _, ok, err := Single(values, "none"); ok || err != nil {
		t.Errorf("none: %v %v", ok, err)
	}
	if _, _, err := Single(values, "after"); err == nil || !strings.HasSuffix(err.Error(), "after is given 2 times; send it once.") {
		t.Errorf("after twice: %v", err)
	}
}
