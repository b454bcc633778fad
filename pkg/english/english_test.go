package english

import "testing"

func TestList(t *testing.T) {
	for _, tt := range []struct {
		items []string
		conj  string
		want  string
	}{
		{nil, "and", ""},
		{[]string{"GET"}, "or", "GET"},
		{[]string{"from", "to"}, "and", "from and to"},
		{[]string{"DELETE", "GET", "PATCH"}, "or", "DELETE, GET or PATCH"},
	} {
		if got := List(tt.items, tt.conj); got != tt.want {
			t.Errorf("List(%q, %q) = %q, want %q", tt.items, tt.conj, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n     int
		thing string
		want  string
	}{
		{0, "request", "0 requests"},
		{1, "second", "1 second"},
		{12, "day", "12 days"},
	} {
		if got := Count(tt.n, tt.thing); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.thing, got, tt.want)
		}
	}
}
