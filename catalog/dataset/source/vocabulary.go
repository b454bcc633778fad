package source

import (
	"fmt"
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// vocabulary is the checked, indexed form of Vocabularies.
type vocabulary struct {
	src                                           *Vocabularies
	bodyParts, muscles, equipments, exerciseTypes map[string]bool
	difficulties, patterns                        map[string]bool
	mechanics, forces, lateralities, measures     map[string]bool
	prescriptions                                 map[string]*PrescriptionScheme
	muscleBodyPart                                map[string]string
	bodyPartRank                                  map[string]int
}

// newVocabulary indexes v and reports values that are missing, not
// canonical, or near-duplicates (equal under exercise.SearchKey, such as
// "pull-up bar" and "pullup bar"), which users could not tell apart.
func newVocabulary(v *Vocabularies, p *problems) *vocabulary {
	voc := &vocabulary{
		src:            v,
		bodyParts:      declare(p, v.File, "bodyParts", v.BodyParts),
		equipments:     declare(p, v.File, "equipments", v.Equipments),
		exerciseTypes:  declare(p, v.File, "exerciseTypes", v.ExerciseTypes),
		difficulties:   declare(p, v.File, "difficulties", v.Difficulties),
		patterns:       declare(p, v.File, "patterns", v.Patterns),
		mechanics:      declare(p, v.File, "mechanics", v.Mechanics),
		forces:         declare(p, v.File, "forces", v.Forces),
		lateralities:   declare(p, v.File, "lateralities", v.Lateralities),
		measures:       declare(p, v.File, "measures", v.Measures),
		prescriptions:  make(map[string]*PrescriptionScheme),
		muscleBodyPart: make(map[string]string),
		bodyPartRank:   make(map[string]int),
	}
	for i, bp := range v.BodyParts {
		voc.bodyPartRank[bp] = i
	}
	var muscles []string
	for _, g := range v.Muscles {
		if !voc.bodyParts[g.BodyPart] {
			p.add("%s: muscles: bodyPart %q is not in bodyParts", v.File, g.BodyPart)
		}
		if len(g.Names) == 0 {
			p.add("%s: muscles: bodyPart %q: names: none", v.File, g.BodyPart)
		}
		for _, m := range g.Names {
			voc.muscleBodyPart[m] = g.BodyPart
		}
		muscles = append(muscles, g.Names...)
	}
	voc.muscles = declare(p, v.File, "muscles", muscles)
	voc.checkPrescriptions(p)
	return voc
}

// checkPrescriptions indexes the prescriptions and reports a scheme
// without a name, with a measure not declared, or without a dose for
// every difficulty in the measure's unit.
func (v *vocabulary) checkPrescriptions(p *problems) {
	if len(v.src.Prescriptions) == 0 {
		p.add("%s: prescriptions: none", v.src.File)
	}
	for i := range v.src.Prescriptions {
		s := &v.src.Prescriptions[i]
		where := fmt.Sprintf("%s: prescriptions: %q", v.src.File, s.Name)
		switch {
		case s.Name == "":
			p.add("%s: prescriptions[%d]: name: missing", v.src.File, i)
		case v.prescriptions[s.Name] != nil:
			p.add("%s: listed twice", where)
		}
		v.prescriptions[s.Name] = s
		if !v.measures[s.Measure] {
			p.add("%s: measure %q is not in measures", where, s.Measure)
		}
		for d := range s.Doses {
			if !v.difficulties[d] {
				p.add("%s: doses: %q is not a difficulty", where, d)
			}
		}
		for _, d := range v.src.Difficulties {
			dose, ok := s.Doses[d]
			if !ok {
				p.add("%s: doses: %s: missing", where, d)
				continue
			}
			checkRange(p, where+": doses: "+d+": sets", dose.Sets)
			for _, u := range []struct {
				measure, unit string
				r             []int
			}{{"reps", "reps", dose.Reps}, {"time", "seconds", dose.Seconds}, {"distance", "meters", dose.Meters}} {
				switch {
				case u.measure == s.Measure:
					checkRange(p, where+": doses: "+d+": "+u.unit, u.r)
				case u.r != nil:
					p.add("%s: doses: %s: %s: not the unit of measure %q", where, d, u.unit, s.Measure)
				}
			}
		}
	}
}

// checkRange requires [low, high] with 1 <= low <= high.
func checkRange(p *problems, where string, r []int) {
	if len(r) != 2 || r[0] < 1 || r[0] > r[1] {
		p.add("%s: %v is not a range [low, high] with 1 <= low <= high", where, r)
	}
}

func declare(p *problems, file, field string, names []string) map[string]bool {
	if len(names) == 0 {
		p.add("%s: %s: none", file, field)
	}
	set := make(map[string]bool, len(names))
	keys := make(map[string]string, len(names))
	for _, n := range names {
		key := exercise.SearchKey(n)
		switch {
		case key == "":
			p.add("%s: %s: empty value", file, field)
		case exercise.Canonical(n) != n:
			p.add("%s: %s: %q is not canonical, write %q", file, field, n, exercise.Canonical(n))
		case keys[key] == n:
			p.add("%s: %s: %q is listed twice", file, field, n)
		case keys[key] != "":
			p.add("%s: %s: %q is a near-duplicate of %q", file, field, n, keys[key])
		}
		keys[key] = n
		set[n] = true
	}
	return set
}

// bodyPartsOf returns the body parts of muscles in vocabulary order, so
// that a record's body parts never disagree with its target muscles.
func (v *vocabulary) bodyPartsOf(muscles []string) []string {
	var parts []string
	for _, m := range muscles {
		if bp, ok := v.muscleBodyPart[m]; ok && !slices.Contains(parts, bp) {
			parts = append(parts, bp)
		}
	}
	slices.SortFunc(parts, func(a, b string) int { return v.bodyPartRank[a] - v.bodyPartRank[b] })
	if parts == nil {
		parts = []string{}
	}
	return parts
}

// file returns the vocabularies as the catalogue file writes them.
func (v *vocabulary) file() exercise.Vocabularies {
	out := exercise.Vocabularies{
		BodyParts:    terms(v.src.BodyParts),
		Equipments:   terms(v.src.Equipments),
		Difficulties: terms(v.src.Difficulties),

		MovementPatterns: terms(v.src.Patterns),
		Mechanics:        terms(v.src.Mechanics),
		Forces:           terms(v.src.Forces),
		Lateralities:     terms(v.src.Lateralities),
		Measures:         terms(v.src.Measures),
	}
	for _, g := range v.src.Muscles {
		for _, m := range g.Names {
			out.Muscles = append(out.Muscles, exercise.Muscle{Name: m, BodyPart: g.BodyPart})
		}
	}
	for _, t := range v.src.ExerciseTypes {
		out.ExerciseTypes = append(out.ExerciseTypes, exercise.ExerciseType{Name: t, MediaKey: TypeMediaKey(t)})
	}
	return out
}

// TypeMediaKey returns the media key of an exercise type: "types/" and the
// name with spaces written as hyphens.
func TypeMediaKey(name string) string {
	return "types/" + strings.ReplaceAll(name, " ", "-")
}

func terms(names []string) []exercise.Term {
	out := make([]exercise.Term, len(names))
	for i, n := range names {
		out[i] = exercise.Term{Name: n}
	}
	return out
}
