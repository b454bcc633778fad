package exercise

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// MaxIDLength is the longest identifier a catalogue may use.
const MaxIDLength = 32

// idLength is the length of identifiers made by IDFor: 40 bits, ample for a
// catalogue of thousands of records (collisions are load errors anyway).
const idLength = 8

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// IDFor returns the identifier derived from an exercise's canonical name.
// Authoring tools and importers use it so that an exercise keeps its id for
// as long as it keeps its name, wherever it sits in the file.
func IDFor(name string) string {
	sum := sha256.Sum256([]byte(Canonical(name)))
	return idEncoding.EncodeToString(sum[:])[:idLength]
}

// ValidID reports whether s is a well-formed identifier: 1 to 32 characters
// from the URL-safe set [A-Za-z0-9_-].
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLength {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
	}) < 0
}
