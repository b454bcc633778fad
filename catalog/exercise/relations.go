package exercise

import (
	"slices"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Relation names a list of exercises related to one exercise.
type Relation int

const (
	// Variations are the other exercises of the exercise's family, in
	// progression order: easiest difficulty first, then the standard form,
	// then names of fewer words, ties by id.
	Variations Relation = iota + 1
	// Alternatives are the exercises of the same movement pattern that
	// share at least one target muscle, except those that differ only in
	// name: the same family with the same equipment (a paused bench press
	// is no substitute for a bench press). Best first, see alternatives.
	Alternatives
)

func (r Relation) String() string {
	switch r {
	case Variations:
		return "variations"
	case Alternatives:
		return "alternatives"
	}
	return "relation(" + strconv.Itoa(int(r)) + ")"
}

// Related returns one page of the exercises related to the exercise id,
// restricted to those f selects, ranked and paged as ranked lists are:
// the cursor is a record of the list, and the record cap keeps the first
// RecordCap ranks reachable. Errors: ErrNotFound for an unknown id, an
// *ArgumentError, or a *CapError. f.Equipments means what one has at hand:
// a related record must need none but these (all of its equipments among
// them), where a listing takes a record needing any of them. A catalogue
// loaded from a version 1 file has no families or patterns, so every
// relation is empty.
func (c *Catalogue) Related(rel Relation, id string, f Filter, p PageRequest) (Page, error) {
	var bad ArgumentError
	if rel != Variations && rel != Alternatives {
		bad.add(FieldRelation, rel.String(), "is not a relation (want variations or alternatives)")
	}
	src, found := uint32(0), false
	if !ValidID(id) {
		bad.add(FieldID, id, malformedID)
	} else {
		src, found = c.position(id)
	}
	limit, cur := c.pageArgs(p, &bad)
	if f.Query != "" {
		bad.add(FieldQuery, f.Query, "cannot be combined with a relation: a relation list has its own order")
	}
	set, key := c.resolve(&f, &bad)
	if err := bad.orNil(); err != nil {
		return Page{}, err
	}
	if !found {
		return Page{}, ErrNotFound
	}
	k := rel.String() + "|" + strconv.FormatUint(uint64(src), 10) + "|" + key
	r := c.ranking(k, func() *ranked {
		// A relation answers "what can I do with what I have": with
		// equipments given, a record needing any other equipment is out.
		if other := c.otherEquipment(f.Equipments); other != nil {
			set = roaring.AndNot(set, other)
		}
		if rel == Variations {
			return c.variations(src, set)
		}
		return c.alternatives(src, set)
	})
	return c.rankedPage(r, limit, cur, p.RecordCap)
}

// variations ranks the other members of src's family that set holds in
// progression order: easiest difficulty first; then, as in search, the
// standard form and names of fewer words, the plain form before its
// elaborations.
func (c *Catalogue) variations(src uint32, set *roaring.Bitmap) *ranked {
	fam := c.families[c.exercises[src].Family]
	if fam == nil {
		return newRanked()
	}
	members := roaring.And(fam, set)
	members.Remove(src)
	tiers := make([]*roaring.Bitmap, 0, len(c.vocab.Difficulties))
	for _, d := range c.vocab.Difficulties { // easiest first
		tiers = append(tiers, roaring.And(members, c.postings[byDifficulty][d.Name]))
	}
	return newSplitRanked(tiers, c.searchIdx.masks)
}

// alternatives ranks the substitutes for src that set holds. Better first:
//
//  1. those that train more of src's target muscles (all of them before
//     all but one, and so on);
//  2. within each, those no harder than src, then the harder ones, the
//     least harder first (a substitute should not demand more, so a
//     weighted pull-up comes after a lat pulldown as a pull-up's
//     substitute);
//  3. within each, the same family (the movement done with other
//     equipment) before other families of the pattern;
//  4. within each, those whose target muscles src trains too (as targets
//     or secondary muscles) before those that aim at a muscle src does not
//     train at all (a thruster is a squat and a press);
//  5. within each, as in search, the standard forms (of larger families
//     first), then names of fewer words, the plain form before its
//     elaborations: push-up before shoulder tap push-up.
//
// Ties are by id. Each criterion is a bitmap, so ranking costs a few bitmap
// operations whatever the size of the catalogue.
func (c *Catalogue) alternatives(src uint32, set *roaring.Bitmap) *ranked {
	x := &c.exercises[src]
	pattern := c.patterns[x.Pattern]
	if pattern == nil {
		return newRanked()
	}
	targets := make([]*roaring.Bitmap, len(x.TargetMuscles))
	for i, m := range x.TargetMuscles {
		targets[i] = c.postings[byTargetMuscle][m]
	}
	candidates := roaring.FastAnd(pattern, set, roaring.FastOr(targets...))
	candidates.Remove(src)
	fam := c.families[x.Family]
	if fam == nil {
		fam = roaring.New()
	}
	// The members of src's family that need exactly its equipment are
	// variations, not substitutes.
	candidates.AndNot(roaring.And(fam, c.equipmentSets[equipmentSetKey(x.Equipments)]))
	// The records that aim at a muscle src does not train at all, as a
	// target or a secondary muscle.
	var others []*roaring.Bitmap
	for m, b := range c.postings[byTargetMuscle] {
		if !slices.Contains(x.TargetMuscles, m) && !slices.Contains(x.SecondaryMuscles, m) && b != nil {
			others = append(others, b)
		}
	}
	beyond := roaring.FastOr(others...)
	// Difficulty groups: up to src's, then each harder one in turn.
	var groups []*roaring.Bitmap
	notHarder := roaring.New()
	for _, d := range c.vocab.Difficulties {
		b := c.postings[byDifficulty][d.Name]
		if b == nil {
			b = roaring.New()
		}
		if len(groups) == 0 {
			notHarder.Or(b)
			if d.Name == x.Difficulty {
				groups = append(groups, notHarder)
			}
			continue
		}
		groups = append(groups, b)
	}
	if len(groups) == 0 { // src's difficulty is not in the vocabulary
		groups = append(groups, notHarder)
	}
	var tiers []*roaring.Bitmap
	for _, shared := range sharedCounts(candidates, targets) {
		for _, g := range groups {
			group := roaring.And(shared, g)
			for _, kin := range []*roaring.Bitmap{roaring.And(group, fam), roaring.AndNot(group, fam)} {
				tiers = append(tiers, roaring.AndNot(kin, beyond), roaring.And(kin, beyond))
			}
		}
	}
	return newSplitRanked(tiers, c.searchIdx.masks)
}

// sharedCounts splits candidates by how many of the targets hold them,
// most first: the result's i-th bitmap holds the candidates in exactly
// len(targets)-i of them; candidates in none are left out.
func sharedCounts(candidates *roaring.Bitmap, targets []*roaring.Bitmap) []*roaring.Bitmap {
	// byCount[k]: the candidates in exactly k of the targets seen so far.
	byCount := []*roaring.Bitmap{candidates.Clone()}
	for _, t := range targets {
		next := make([]*roaring.Bitmap, len(byCount)+1)
		for k, b := range byCount {
			in := roaring.And(b, t)
			b.AndNot(t)
			if next[k] == nil {
				next[k] = b
			} else {
				next[k].Or(b)
			}
			next[k+1] = in
		}
		byCount = next
	}
	out := make([]*roaring.Bitmap, 0, len(targets))
	for k := len(byCount) - 1; k >= 1; k-- {
		out = append(out, byCount[k])
	}
	return out
}

// equipmentSetKey identifies a set of equipments whatever its order.
func equipmentSetKey(equipments []string) string {
	return strings.Join(slices.Sorted(slices.Values(equipments)), "\x00")
}

// otherEquipment returns the records that need an equipment not among
// equipments (values as a Filter takes them, already checked), or nil when
// equipments holds none. The result is new and may be modified.
func (c *Catalogue) otherEquipment(equipments []string) *roaring.Bitmap {
	have := map[string]bool{}
	for _, raw := range equipments {
		if v := Canonical(raw); v != "" {
			have[v] = true
		}
	}
	if len(have) == 0 {
		return nil
	}
	var other []*roaring.Bitmap
	for name, b := range c.postings[byEquipment] {
		if !have[name] {
			other = append(other, b)
		}
	}
	return roaring.FastOr(other...)
}
