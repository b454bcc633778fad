// Package exercise owns the exercise catalogue: the records and their closed
// vocabularies, the catalogue file format and its validation, the in-memory
// index, the filter semantics and the cursor rules.
//
// It is plain Go and knows nothing of gRPC or HTTP, so it can be tested and
// benchmarked alone. A Catalogue is immutable once built and safe for
// concurrent use; a new catalogue version is a new Catalogue.
package exercise
