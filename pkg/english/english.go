// Package english words lists and counts in messages people read: "GET,
// HEAD or POST", "3 seconds".
package english

import (
	"strconv"
	"strings"
)

// List joins items as a sentence does, with conj ("and", "or") before
// the last: "Basic, Mega, Pro and Ultra".
func List(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Count writes n things, the noun in the plural unless n is 1: "1 day",
// "2 days", "0 requests".
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
