// Package importer converts open exercise datasets into the catalogue file
// format (package exercise), mapping their vocabularies onto the closed
// vocabularies of our catalogue and reporting everything it could not map.
//
// Two sources are supported:
//
//   - free-exercise-db (github.com/yuhonas/free-exercise-db): its
//     exercises.json, one JSON array; read by ImportFreeExerciseDB.
//   - wger (github.com/wger-project/wger): its Django fixture exports
//     (exercises, translations, muscles, equipment, categories, languages
//     and, optionally, licences) in one directory; read by ImportWger.
//
// The mapping tables are explicit Go maps from a source value to our
// value(s), plus a short ordered list of name rules that refine a vague
// source value by words of the exercise name (free-exercise-db's "machine"
// and "other" equipment, wger's stretches). docs/importers.md documents
// every table and decision.
//
// Every output record gets its id from exercise.IDFor, its name from
// exercise.Canonical, its body parts from its target muscles and no media
// key. A record that cannot be mapped to at least one target muscle,
// equipment and exercise type is skipped; so is a record whose name has the
// same exercise.SearchKey as one already kept. The Report says what went in,
// what came out, what was skipped and why, and how every source value was
// mapped.
//
// Coverage measures how many names of a dataset the catalogue already holds.
package importer
