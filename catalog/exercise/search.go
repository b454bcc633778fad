package exercise

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/exercisedb/exercisedb/catalog/search"
)

// MaxQueryLength bounds a search query, in characters.
const MaxQueryLength = 200

// checkQuery reports what makes q unusable (see checkText).
func checkQuery(q string, bad *ArgumentError) {
	checkText(FieldQuery, q, MaxQueryLength, len(search.Words(q)) > 0, "to search for", bad)
}

// search ranks the records of set that match q, best first (see
// search.Index.Search). A query that asks for another exercise than the
// one it names ("pull-up alternative") is answered with that exercise's
// alternatives, when it has some within set.
func (c *Catalogue) search(q string, set *roaring.Bitmap) *ranked {
	if src, ok := c.searchIdx.InsteadOf(q); ok {
		if r := c.alternatives(src, set); r.Total() > 0 {
			r.ignored, r.records = []string{}, roaring.BitmapOf(r.Positions(0, r.Total())...)
			return r
		}
	}
	res := c.searchIdx.Search(q, set)
	return &ranked{List: res.List, records: res.Records, ignored: res.Ignored}
}

// searchRecord is what the search index reads of x.
func searchRecord(x *Exercise) *search.Record {
	return &search.Record{
		Name: x.Name, Aliases: x.Aliases,
		Description: x.Description, Instructions: x.Instructions, Tips: x.Tips,
		Equipments: x.Equipments, TargetMuscles: x.TargetMuscles, SecondaryMuscles: x.SecondaryMuscles,
		BodyParts: x.BodyParts, ExerciseTypes: x.ExerciseTypes, Difficulty: x.Difficulty,
		Family: x.Family, Standard: x.Standard,
	}
}

// bodyPartOf maps each muscle to its body part.
func bodyPartOf(muscles []Muscle) map[string]string {
	m := make(map[string]string, len(muscles))
	for _, x := range muscles {
		m[x.Name] = x.BodyPart
	}
	return m
}
