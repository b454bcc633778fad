package source

import (
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// vocabulary is the checked, indexed form of Vocabularies.
type vocabulary struct {
	src                                           *Vocabularies
	bodyParts, muscles, equipments, exerciseTypes map[string]bool
	difficulties, patterns                        map[string]bool
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
	return voc
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
