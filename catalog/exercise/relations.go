package exercise

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/exercisedb/exercisedb/catalog/search"
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
	// is no substitute for a bench press). When the filter leaves none of
	// the pattern, they are those of its neighbouring patterns, and the
	// page says so (Page.Fallback). Best first, see alternatives.
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
// a related record must need none but these and what comes with them (a
// bench with dumbbells or a barbell, see comesWith), where a listing takes
// a record needing any of them. A catalogue
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
	page, err := c.rankedPage(r, limit, cur, p.RecordCap)
	if err == nil && rel == Alternatives {
		page.MovementPatterns, page.Fallback = r.patterns, r.fallback
		if page.MovementPatterns == nil {
			page.MovementPatterns = []string{}
		}
	}
	return page, err
}

// variations ranks the other members of src's family that set holds in
// progression order: easiest difficulty first; then, as in search, the
// standard form and names of fewer words, the plain form before its
// elaborations.
func (c *Catalogue) variations(src uint32, set *roaring.Bitmap) *ranked {
	fam := c.families[c.exercises[src].Family]
	if fam == nil {
		return &ranked{List: search.NewList()}
	}
	members := roaring.And(fam, set)
	members.Remove(src)
	tiers := make([]*roaring.Bitmap, 0, len(c.vocab.Difficulties))
	for _, d := range c.vocab.Difficulties { // easiest first
		tiers = append(tiers, roaring.And(members, c.postings[byDifficulty][d.Name]))
	}
	return &ranked{List: search.NewSplitList(tiers, c.searchIdx.Masks())}
}

// alternatives ranks the substitutes for src that set holds: the records
// of src's pattern sharing a target muscle with it or, when set holds none
// of them, those of its neighbouring patterns (neighbourPatterns). The
// list opens with each pattern's staple (see staple), then holds the rest,
// nearest pattern first, each pattern's better first:
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
	if c.patterns[x.Pattern] == nil {
		return &ranked{List: search.NewList()}
	}
	targets := make([]*roaring.Bitmap, len(x.TargetMuscles))
	for i, m := range x.TargetMuscles {
		targets[i] = c.postings[byTargetMuscle][m]
	}
	trained := roaring.FastOr(targets...)
	fam := c.families[x.Family]
	if fam == nil {
		fam = roaring.New()
	}
	// The members of src's family that need exactly its equipment are
	// variations, not substitutes.
	out := roaring.And(fam, c.equipmentSets[equipmentSetKey(x.Equipments)])
	out.Add(src)
	candidates := func(pattern string) *roaring.Bitmap {
		p := c.patterns[pattern]
		if p == nil {
			return roaring.New()
		}
		b := roaring.FastAnd(p, set, trained)
		b.AndNot(out)
		return b
	}
	patterns, lists := []string{x.Pattern}, []*roaring.Bitmap{candidates(x.Pattern)}
	fallback := lists[0].IsEmpty()
	if fallback {
		patterns, lists = []string{}, nil
		for _, p := range neighbourPatterns[x.Pattern] {
			if b := candidates(p); !b.IsEmpty() {
				patterns, lists = append(patterns, p), append(lists, b)
			}
		}
		fallback = len(lists) > 0
	}
	// The records that aim at a muscle src does not train at all, as a
	// target or a secondary muscle.
	var others []*roaring.Bitmap
	for m, b := range c.postings[byTargetMuscle] {
		if !slices.Contains(x.TargetMuscles, m) && !slices.Contains(x.SecondaryMuscles, m) && b != nil {
			others = append(others, b)
		}
	}
	beyond := roaring.FastOr(others...)
	groups := c.difficultyGroups(x.Difficulty)
	// The staples of every pattern come first, so that a fallback list
	// shows each kind of substitute (a row and a pullover for a pull-up).
	var tiers []*roaring.Bitmap
	// Within its own pattern, a staple comes before src's own family only
	// if it is not a much rarer movement (a family of at least two thirds
	// as many records): a lat pulldown's first substitute is the pull-up,
	// a bench press's a bench press on other equipment, not an incline
	// press.
	minFamily := minStapleSubstitute
	if !fallback {
		minFamily = max(minFamily, (2*int(fam.GetCardinality())+2)/3)
	}
	for _, list := range lists {
		if s, ok := c.staple(x, list, minFamily); ok {
			tiers = append(tiers, roaring.BitmapOf(s))
			list.Remove(s)
		}
	}
	for _, list := range lists {
		for _, shared := range sharedCounts(list, targets) {
			for _, g := range groups {
				group := roaring.And(shared, g)
				for _, kin := range []*roaring.Bitmap{roaring.And(group, fam), roaring.AndNot(group, fam)} {
					tiers = append(tiers, roaring.AndNot(kin, beyond), roaring.And(kin, beyond))
				}
			}
		}
	}
	r := &ranked{List: search.NewSplitList(tiers, c.searchIdx.Masks())}
	r.patterns, r.fallback = patterns, fallback
	return r
}

// difficultyGroups splits the catalogue by difficulty as alternatives
// ranks it: up to difficulty (the exercise's), then each harder one in
// turn, the least harder first.
func (c *Catalogue) difficultyGroups(difficulty string) []*roaring.Bitmap {
	var groups []*roaring.Bitmap
	notHarder := roaring.New()
	for _, d := range c.vocab.Difficulties {
		b := c.postings[byDifficulty][d.Name]
		if b == nil {
			b = roaring.New()
		}
		if len(groups) == 0 {
			notHarder.Or(b)
			if d.Name == difficulty {
				groups = append(groups, notHarder)
			}
			continue
		}
		groups = append(groups, b)
	}
	if len(groups) == 0 { // the difficulty is not in the vocabulary
		groups = append(groups, notHarder)
	}
	return groups
}

// minStapleSubstitute is the smallest family whose standard form can be
// the staple substitute: a movement of fewer variants is no staple.
const minStapleSubstitute = 4

// staple picks, among candidates, the staple lift a coach names first as
// a substitute for x: the standard form of another family of at least
// minFamily records and half the records of the largest such family among
// candidates, at most one difficulty harder than x. Of those, the one
// that shares an equipment with x comes first (a hack squat for a leg
// press: the machine beside the machine), then the one of the larger
// family (a pull-up for a lat pulldown), then of more shared target
// muscles, then of the lower position. Standard forms are few, so this
// reads few records whatever the catalogue's size.
func (c *Catalogue) staple(x *Exercise, candidates *roaring.Bitmap, minFamily int) (uint32, bool) {
	type option struct {
		pos                  uint32
		shares               bool
		familySize, targeted int
	}
	rank := map[string]int{}
	for i, d := range c.vocab.Difficulties {
		rank[d.Name] = i
	}
	var opts []option
	largest := 0
	it := roaring.And(candidates, c.standards).Iterator()
	for it.HasNext() {
		pos := it.Next()
		y := &c.exercises[pos]
		size := int(c.families[y.Family].GetCardinality())
		if y.Family == x.Family || size < minFamily || rank[y.Difficulty] > rank[x.Difficulty]+1 {
			continue
		}
		largest = max(largest, size)
		opts = append(opts, option{
			pos:        pos,
			shares:     slices.ContainsFunc(y.Equipments, func(e string) bool { return slices.Contains(x.Equipments, e) }),
			familySize: size,
			targeted:   len(slices.DeleteFunc(slices.Clone(y.TargetMuscles), func(m string) bool { return !slices.Contains(x.TargetMuscles, m) })),
		})
	}
	opts = slices.DeleteFunc(opts, func(o option) bool { return 2*o.familySize < largest })
	if len(opts) == 0 {
		return 0, false
	}
	best := slices.MinFunc(opts, func(a, b option) int {
		if a.shares != b.shares {
			if a.shares {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.familySize, a.familySize), cmp.Compare(b.targeted, a.targeted), cmp.Compare(a.pos, b.pos))
	})
	return best.pos, true
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

// comesWith maps an equipment to those one has wherever one has it: a
// gym's dumbbells and barbells stand beside benches, so "dumbbell" keeps
// the dumbbell bench press and the dumbbell row on a bench. Nothing comes
// with body weight alone, nor with machines: a bench is not a given at
// home.
var comesWith = map[string][]string{
	"dumbbell":   {"bench"},
	"barbell":    {"bench"},
	"ez barbell": {"bench"},
}

// otherEquipment returns the records that need an equipment not among
// equipments (values as a Filter takes them, already checked) nor coming
// with one of them (comesWith), or nil when
// equipments holds none. The result is new and may be modified.
func (c *Catalogue) otherEquipment(equipments []string) *roaring.Bitmap {
	have := map[string]bool{}
	for _, raw := range equipments {
		if v := Canonical(raw); v != "" {
			have[v] = true
			for _, w := range comesWith[v] {
				have[w] = true
			}
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
