// Package dataset holds the exercise catalogue that ships with the service:
// catalogue.json, generated from the YAML in source/ by cmd/cataloguegen and
// embedded in the binary, with changelog.json, the record of what each
// version changed. Edit the source, never the JSON; README.md says
// how.
package dataset

import _ "embed" // for the catalogue below

// The directive runs from this directory, hence the relative paths.
//go:generate go run ../../cmd/cataloguegen -source source -out catalogue.json

//go:embed catalogue.json
var catalogue []byte

//go:embed changelog.json
var changelogFile []byte

// Default returns the embedded catalogue file, in the format that
// exercise.Decode reads. The slice is the embedded data itself, shared by
// every caller: callers must not modify it.
func Default() []byte {
	return catalogue
}

// Changelog returns the embedded changelog of the catalogue (format
// catalog/changelog): what each version changed since the one before. Its
// newest version is Default's. Like Default, the slice is shared and must
// not be modified.
func Changelog() []byte {
	return changelogFile
}
