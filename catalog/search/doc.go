// Package search finds and ranks records by what people type: names,
// aliases and vocabulary values, with typos, prefixes, abbreviations and
// synonyms, and words set aside when nothing matches them all.
//
// An Index reads each record's text (see Record) once, and answers a
// search with a List, ranked best first in tiers of sets of records
// computed only as pages reach them. The steps, one file each: how text
// becomes terms (analyze.go) and a query units (query.go, stopwords.go,
// synonyms.go, corrections.go); the index and its ranking classes
// (index.go, staples.go); how a word matches (match.go, fuzzy.go,
// keys.go); the tiers of a search (search.go), the words it sets aside
// (setaside.go), the sets it computes once (sets.go) and the ranked
// list (list.go).
//
// It knows records only by their positions and the fields a Record
// holds: the catalogue that owns them depends on it, not the other way.
package search
