package exercise

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Canonical returns the form in which vocabulary values are stored and
// compared: lower case, surrounding space removed, inner runs of space
// collapsed to one. "  Upper  ARMS " and "upper arms" are the same value.
func Canonical(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// SearchKey returns the form in which names are searched: lower case letters
// and digits only. Spaces, hyphens and other punctuation are dropped, so
// "Pull-up", "pull up" and "pullup" have the same key; compatibility forms
// are folded as q folds them (NFKC), so full-width "ｓｑｕａｔ" is "squat".
func SearchKey(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			s = norm.NFKC.String(s)
			break
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < unicode.MaxASCII && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			b.WriteRune(r)
		case r < unicode.MaxASCII && 'A' <= r && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case r >= unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
