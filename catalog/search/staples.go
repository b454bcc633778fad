package search

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// leaders returns the first staple of a query that "and" joins muscles
// or body parts in (see orAnatomy) and, for each part that one does not
// train, the part's first staple; nil if it trains them all or there are
// no parts. A day of both asks for the best of each before the rest of
// either: "shoulders and triceps", the overhead press and the pushdown;
// "glutes and hamstrings", the deadlift, which trains both.
func (s *Index) leaders(units []unit, staplesOf *lazy, masks []*roaring.Bitmap) *roaring.Bitmap {
	firstOf := func(t *roaring.Bitmap) (uint32, bool) {
		for _, m := range masks {
			if b := roaring.And(t, m); !b.IsEmpty() {
				return b.Minimum(), true
			}
		}
		return 0, false
	}
	var out *roaring.Bitmap
	for i, u := range units {
		if u.parts == nil {
			continue
		}
		staples := staplesOf.get()
		lead, ok := firstOf(staples)
		if !ok {
			return nil
		}
		for _, part := range u.parts {
			one := slices.Clone(units)
			one[i] = unit{alternatives: part, last: u.last}
			trains, ok := s.describe(one, anyTarget)
			if !ok || trains.records.get().Contains(lead) {
				continue
			}
			d, _ := s.describe(one, firstTarget)
			if pos, ok := firstOf(roaring.And(staples, d.records.get())); ok {
				if out == nil {
					out = roaring.BitmapOf(lead)
				}
				out.Add(pos)
			}
		}
	}
	return out
}

// typeNamed returns the records whose name's head is, stemmed, an
// exercise type of the query ("stretching" and the stretches), or nil
// when no type of the query is the head of names.
func (s *Index) typeNamed(units []unit) *roaring.Bitmap {
	var out []*roaring.Bitmap
	for _, u := range units {
		for _, alt := range u.alternatives {
			if len(alt) == 1 && s.types[singularPhrase(alt)] {
				if b := s.stemHead[stem(alt[0])]; b != nil {
					out = append(out, b)
				}
			}
		}
	}
	if out == nil {
		return nil
	}
	return or(out...)
}

// description is what a query of vocabulary values describes: the
// records each of its values describes first (see primary), whether one
// is an exercise type, whether one is a muscle or body part, and the
// equipments among them. The records are computed when first read: a
// query of vocabulary values reads them only for its staples.
type description struct {
	records           *lazy
	typed, anatomical bool
	equipments        []string
}

// targets says which records a muscle or body part of a description
// describes.
type targets int

const (
	firstTarget targets = iota // those it is the first target of
	anyTarget                  // those it is any target of
)

// describe returns the description of a query each of whose units is, or
// stands for, a whole vocabulary value; ok is false for other queries.
// reach says which records a muscle or body part describes.
func (s *Index) describe(units []unit, reach targets) (d description, ok bool) {
	// valuesOf holds, for each unit, the records of its values, and
	// musclesOf its muscles.
	var valuesOf [][]*roaring.Bitmap
	var musclesOf [][]string
	for _, u := range units {
		var values []*roaring.Bitmap
		var muscles []string
		for _, alt := range u.alternatives {
			v := singularPhrase(alt)
			if s.muscles[v] && u.parts == nil {
				muscles = append(muscles, v)
			}
			if b := s.primary[v]; b != nil {
				values = append(values, b)
				if reach == anyTarget && s.secondTargets[v] != nil {
					values = append(values, s.secondTargets[v])
				}
				d.typed = d.typed || s.types[v]
				d.anatomical = d.anatomical || s.anatomy[v]
				if s.equipmentStaples[v] != nil {
					d.equipments = append(d.equipments, v)
				}
			}
		}
		if values == nil {
			return description{}, false
		}
		valuesOf, musclesOf = append(valuesOf, values), append(musclesOf, muscles)
	}
	if valuesOf == nil {
		return description{}, false
	}
	d.records = deferred(func() *roaring.Bitmap {
		each := make([]*roaring.Bitmap, len(valuesOf))
		for k, values := range valuesOf {
			var trained []*roaring.Bitmap
			for _, v := range musclesOf[k] {
				trained = append(trained, or(orEmpty(s.primary[v]), orEmpty(s.secondTargets[v])))
			}
			// A region of two muscles or more ("mid back": the middle
			// trapezius and the rhomboids) is trained first by the
			// records that target two of them, whichever they name first:
			// the barbell and cable rows, which name the lats first.
			values = slices.Clip(values)
			for i := range trained {
				for j := i + 1; j < len(trained); j++ {
					values = append(values, roaring.And(trained[i], trained[j]))
				}
			}
			each[k] = or(values...)
		}
		return and(each...)
	})
	return d, true
}

// stapleMasks returns the staples by family size class, largest first:
// the standard forms of each class, then the rival forms of the class
// above (a rival shares its family's variants with the standard form:
// "upper body", the push-up before the dumbbell bench press), then the
// staples of the equipments (a kettlebell swing before a kettlebell
// overhead press), in their order (see equipmentStaples); within a class,
// names of fewer words first, the plain form before its elaborations, as
// in any tier ("core": the plank before the plank with leg lift).
func (s *Index) stapleMasks(equipments []string) []*roaring.Bitmap {
	var out []*roaring.Bitmap
	last := 0
	for i := range s.standard {
		if standardRanks[i] < minStapleFamily {
			break
		}
		out = append(out, s.standardWords[i]...)
		if i > 0 {
			out = append(out, s.rivalWords[i-1]...)
		}
		last = i
	}
	out = append(out, s.rivalWords[last]...)
	for _, e := range equipments {
		out = append(out, s.equipmentStaples[e]...)
	}
	return out
}

// version returns the version of a family on an equipment among the
// records of the fewest name words on it: the one whose name is a part
// of the most names of the family, the root of its variants (the
// "dumbbell curl" of the incline, seated and alternating dumbbell curls,
// not the "waiter curl"; the "dumbbell shoulder press", not the "dumbbell
// z press"), then the one of fewest equipments (the cable chest press,
// not the cable press-around, which needs a bench too), then the first.
func (s *Index) version(family string, ties []shortName) shortName {
	best, roots := ties[0], -1
	for _, t := range ties {
		n := 0
		if len(ties) > 1 {
			for _, name := range s.familyNames[family] {
				if len(name) > len(t.words) && hasPhrase(name, t.words) {
					n++
				}
			}
		}
		if n > roots || n == roots && (t.equipments < best.equipments || t.equipments == best.equipments && t.pos < best.pos) {
			best, roots = t, n
		}
	}
	return best
}
