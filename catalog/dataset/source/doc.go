// Package source reads the reviewable YAML form of the exercise catalogue and
// expands it into the catalogue file that the service embeds.
//
// A source directory holds vocabularies.yaml, which declares the closed value
// sets, and families/*.yaml, each a list of movement families. A family
// states what its variants share (target and secondary muscles, exercise
// types, default difficulty) and lists every variant by its full name and
// equipments, so that each record is written out by a person rather than
// produced by a cross product. The generator derives the rest: the id from
// the name (unless a variant pins it), the body parts from the target
// muscles, the media key from the id, and the standard form, the version
// the family's plain name means: the variant marked standard, else the
// first. ../README.md describes the format.
//
// Reading is strict: an unknown key is an error naming the file and the line,
// and so is every value outside the declared vocabularies, a duplicate name
// or a colliding id.
package source
