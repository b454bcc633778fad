package search

import (
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Result is the answer of a search.
type Result struct {
	// List ranks the records that match, best first.
	List *List
	// Records holds the records of the list.
	Records *roaring.Bitmap
	// Ignored lists the words of the query that the search set aside,
	// because no record matched them together with the others (see
	// setAside), or because the query had more than MaxQueryWords;
	// empty if none.
	Ignored []string
}

// Search ranks the records of set that match q, best first:
//
//  1. a name or alias equal to the query (or to the query with its
//     abbreviations spelled out);
//  2. for a query of vocabulary values alone ("biceps", "dumbbell
//     chest"), the staples it describes (see describe and stapleMasks);
//  3. every word of the query in the name, as typed (after stemming and
//     synonyms), then in the name or an alias;
//  4. a name or alias equal to the query with its typos corrected, then
//     one that the query as typed so far begins ("hip thr": "hip thrust";
//     only when few do, see maxCompletions);
//  5. every word in the name or an alias, some only with a typo corrected
//     or, for the last word, as a prefix: in the name proper first, so
//     that "sqaut" finds the squats before "clean" (alias "squat clean");
//  6. every word matched, some only through equipment, muscles, body
//     parts, type or difficulty: more words in the name first, down to
//     none.
//
// Tiers 3 and 5 put first the records whose name ends with the query's
// last word, as typed but for a plural ("row": a helms row before an
// indoor rowing, "fly": a dumbbell fly before a flying knee), then within
// each the records whose fields confirm the words that name equipment,
// muscles and the like; the tiers of 6 are split the same way. Within
// each, the standard forms first, of larger families first (the movement
// most likely meant), then names of fewer words (the closer match), then
// ids.
//
// A search computes at once only the records that match every word (the
// list, and its total); each tier, made of sets computed when first read
// (see lazy and searchSets), only when a page reaches it (see List):
// the first page of a query typed afresh reads one or two tiers of
// dozens, over sets of up to a million records.
func (s *Index) Search(q string, set *roaring.Bitmap) Result {
	units := s.parse(q)
	// A search's cost grows with its words: those beyond MaxQueryWords
	// are set aside from the start.
	ignored := []string{}
	if len(units) > MaxQueryWords {
		for _, u := range units[MaxQueryWords:] {
			ignored = append(ignored, strings.Join(u.alternatives[0], " "))
		}
		units = units[:MaxQueryWords]
		units[len(units)-1].last = false
	}
	x := &searchSets{}
	ms := make([]matches, len(units))
	for i, u := range units {
		ms[i] = s.unit(u, len(units) > 1, x)
	}
	// all, the records that match every unit, are the list, in tiers
	// that are parts of all: it is computed now, for the total, and the
	// tiers only when a page reaches them. When no record matches every
	// unit, some are set aside (see setAside), whatever the filter: the
	// words a query uses do not depend on it, so that a facet counts what
	// its filter would list.
	every := combine(ms, x.lazyAnd)
	anywhere := every.anywhere.get()
	if anywhere.IsEmpty() && len(units) > 1 {
		if keep := s.setAside(units, ms); len(keep) > 0 && len(keep) < len(units) {
			extra := len(ignored) // the words beyond MaxQueryWords come last
			var kept []unit
			var keptMs []matches
			for i, u := range units {
				if slices.Contains(keep, i) {
					kept, keptMs = append(kept, u), append(keptMs, ms[i])
				} else {
					ignored = slices.Insert(ignored, len(ignored)-extra, strings.Join(u.alternatives[0], " "))
				}
			}
			units, ms = kept, keptMs
			every = combine(ms, x.lazyAnd)
			anywhere = every.anywhere.get()
		}
	}
	all := anywhere
	if set.GetCardinality() < s.count { // else set is every record
		all = roaring.And(all, set)
	}
	var inName, fields []*lazy
	for _, m := range ms {
		inName = append(inName, m.inName)
		fields = append(fields, m.field)
	}
	whole := known(all)
	// Every tier but the whole-name ones (1 and 4) and the staples (2) is
	// split twice. First by the head: the records whose name ends with the
	// query's last word. Then the words that name equipment, a muscle, a
	// body part, a type or a difficulty are confirmed when the record's
	// fields have them too:
	// "chest dumbbell" is a dumbbell exercise for the chest before it is a
	// "chest-supported dumbbell row".
	// A query whose last word ends no name may name the movement by its
	// family instead ("incline dumbbell": the incline presses).
	// As the tiers are parts of all, neither is intersected with all.
	headed := deferred(func() *roaring.Bitmap {
		h := s.headed(units)
		if fam := s.familyNamed(units); fam != nil && !h.Intersects(all) {
			return fam
		}
		return h
	})
	// confirmed returns the records of t whose fields confirm every word
	// that some record's fields confirm; none if no word is confirmed.
	confirmed := func(t *lazy) *lazy {
		return deferred(func() *roaring.Bitmap {
			var bs []*roaring.Bitmap
			for _, f := range fields {
				if b := f.get(); !b.IsEmpty() {
					bs = append(bs, b)
				}
			}
			if len(bs) == 0 {
				return empty
			}
			return x.lazyAnd(append([]*lazy{t}, knownAll(bs)...)...).get()
		})
	}
	split := func(b *lazy) []*lazy {
		t := whole
		if b != whole {
			t = x.inAll(b, whole)
		}
		t2 := x.lazyAnd(t, headed)
		return []*lazy{confirmed(t2), t2, confirmed(t), t}
	}
	// A name or alias typed whole comes first even when its words hold
	// filler the query leaves out ("clean-grip pull from the floor").
	tiers := []*lazy{deferred(func() *roaring.Bitmap {
		return roaring.And(or(s.exactKeys(units, false), orEmpty(s.keys[nameKey(words(q))])), all)
	})}
	// A query of vocabulary values alone ("biceps", "dumbbell chest",
	// "cardio") asks for the exercises that train that muscle with that
	// equipment: the staples its values describe come first ("biceps":
	// the barbell curl before a "seated biceps stretch"), of strength
	// first unless it names a type, and of larger families first.
	var staples []*lazy
	var stapleMasks []*roaring.Bitmap
	d, described := s.describe(units, firstTarget)
	// A description of two words or more that begins a name ("dumbbell
	// shoulder", "barbell back", "hex bar") is that name being typed first.
	typed := phrasal(units)
	typing := described && typed != nil
	if typing {
		tiers = append(tiers, deferred(func() *roaring.Bitmap { return roaring.And(s.completedKeys(typed), all) }))
	}
	if described {
		stapleMasks = s.stapleMasks(d.equipments)
		anyStaple := or(stapleMasks...)
		t := deferred(func() *roaring.Bitmap {
			if anyStaple.IsEmpty() {
				return empty
			}
			t := roaring.FastAnd(anyStaple, all, d.records.get())
			// No staple trains the muscle first: those that train it too.
			if t.IsEmpty() && d.anatomical {
				second, _ := s.describe(units, anyTarget)
				t = roaring.FastAnd(anyStaple, all, second.records.get())
			}
			return t
		})
		if !d.typed {
			strength := s.strength
			if d.anatomical {
				strength = s.loaded
			}
			staples = append(staples, x.lazyAnd(t, known(strength)))
		} else if named := s.typeNamed(units); named != nil {
			// A type named for what its exercises are called: its
			// staples so named first ("stretching": the stretches).
			staples = append(staples, x.lazyAnd(t, known(named)))
		}
		staples = append(staples, t)
		// A day of two muscles ("shoulders and triceps") leads with the
		// first staple of each: the overhead press and the pushdown.
		if lead := s.leaders(units, staples[0], stapleMasks); lead != nil {
			staples = append([]*lazy{known(lead)}, staples...)
		}
		tiers = append(tiers, staples...)
	}
	tiers = append(tiers, split(every.own)...)
	tiers = append(tiers, split(every.exact)...)
	tiers = append(tiers,
		deferred(func() *roaring.Bitmap { return roaring.And(s.exactKeys(units, true), all) }),
		deferred(func() *roaring.Bitmap { return roaring.And(s.completedKeys(units), all) }))
	// Without loose matches these are the second and third tiers again;
	// without terms found in aliases only, the first of them is the second.
	if every.loose && every.aliased {
		tiers = append(tiers, split(every.ownLoose)...)
	}
	if every.loose {
		tiers = append(tiers, split(every.inName)...)
	}
	// Then by how many words matched in the name, most first: atLeast[k]
	// holds the records with at least k (with all of them, a record is in
	// the tier above; one or more is a union; none is every match).
	if n := len(units); n >= 3 {
		atLeast := make([]*lazy, n)
		atLeast[0] = whole
		for i, in := range inName {
			for k := min(i+1, n-1); k >= 1; k-- {
				more, fewer := atLeast[k], atLeast[k-1]
				atLeast[k] = deferred(func() *roaring.Bitmap {
					these := roaring.And(fewer.get(), in.get())
					if more == nil {
						return these
					}
					return or(more.get(), these)
				})
			}
		}
		for k := n - 1; k >= 2; k-- {
			tiers = append(tiers, split(atLeast[k])...)
		}
	}
	tiers = append(tiers, split(x.lazyOr(inName...))...)
	tiers = append(tiers, split(whole)...)
	// The staples' tiers follow tier 1 (and the names being typed); they
	// are split by family size.
	first := 1
	if typing {
		first = 2
	}
	// A query of vocabulary values describes what it asks for: after the
	// staples, the records whose fields confirm it come first, each tier
	// in turn, then the others ("shoulder mobility": a shoulder drill of
	// the stretching type before a "knee-to-opposite-shoulder stretch",
	// a stretch for the hips). Without confirmed records, those tiers are
	// empty.
	if described {
		rest := tiers[first+len(staples):]
		conf := make([]*lazy, 0, 2*len(rest))
		for _, t := range rest {
			conf = append(conf, confirmed(t))
		}
		tiers = append(tiers[:first+len(staples):first+len(staples)], append(conf, rest...)...)
	}
	// Each tier less the better ones, then split by the masks: the
	// standard forms, then name length; only as pages reach it.
	staplesDisjoint := disjoint(stapleMasks)
	pending := make([]pendingTier, 0, len(tiers))
	for i, t := range tiers {
		p := pendingTier{records: t, masks: s.searchMasks, disjoint: s.searchMasksPartition}
		if i >= first && i < first+len(staples) {
			p.masks, p.disjoint = stapleMasks, staplesDisjoint
		}
		pending = append(pending, p)
	}
	// Every tier is a part of all, and the last is all: the list holds
	// each record of all once when the masks of every tier are a
	// partition, and its length is then known without materialising it.
	total := -1
	if s.searchMasksPartition && staplesDisjoint {
		total = int(all.GetCardinality())
	}
	r := newDeferredList(all, total, pending)
	r.sets = x
	return Result{List: r, Records: all, Ignored: ignored}
}

// parse reads a query into its units, with the words it runs together,
// misspells and completes.
func (s *Index) parse(q string) []unit {
	return s.orAnatomy(s.completeWord(s.completeSynonyms(s.correctSynonyms(s.splitRunTogether(s.joinSplit(parseQuery(q, s.phrases, s.longestPhrase)))))))
}

// InsteadOf returns, for a query that asks for another exercise than the
// one it names ("pull-up alternative", "instead of leg press"; see
// insteadWords), the record whose name or alias the query says whole
// (abbreviations spelled out, typos corrected), the first of several;
// ok is false for other queries.
func (s *Index) InsteadOf(q string) (pos uint32, ok bool) {
	if !asksInstead(q) {
		return 0, false
	}
	b := s.exactKeys(s.parse(q), true)
	if b.IsEmpty() {
		return 0, false
	}
	return b.Minimum(), true
}

// Masks split a ranked list as search ranks ties, in this order: the
// standard forms, of the largest families first, then the other records
// by the words of their names, fewest first. Every record is in one.
func (s *Index) Masks() []*roaring.Bitmap { return s.masks }

// headed returns the records whose name's head is that of the query's
// last unit, or of a phrase that may stand for it ("ohp": "press"), or
// of a word it misspells. Exact but for a plural: a last word typed so
// far is no head yet.
func (s *Index) headed(units []unit) *roaring.Bitmap {
	if len(units) == 0 {
		return empty
	}
	// The word before the last unit joins it: "pull up" ends in "pullup".
	var before []string
	if len(units) > 1 {
		prev := units[len(units)-2].alternatives[0]
		before = prev[len(prev)-1:]
	}
	// A misspelt last word ends with what it misspells: "squatt" is a
	// squat.
	last := units[len(units)-1]
	alts := last.alternatives
	if w := alts[0]; len(w) == 1 && (len(alts) == 1 || last.misspelt || last.completed || last.split) && s.name[stem(w[0])] == nil && s.field[stem(w[0])] == nil {
		for _, c := range s.similar(w[0], len(units) > 1) {
			alts = append(alts, []string{c})
		}
	}
	var out []*roaring.Bitmap
	for _, alt := range alts {
		for _, h := range heads(append(slices.Clone(before), alt...)) {
			if b := s.head[h]; b != nil {
				out = append(out, b)
			}
		}
	}
	return or(out...)
}

// familyNamed returns the records of the families (of minNamedFamily
// records or more) whose name has every word of the query before its
// last unit that names no equipment, muscle, body part, type or
// difficulty and is the head of no name (a word that says how, not
// what: "incline", not "press"), or nil if there is no such word. When
// the query's last word ends no name, the query names the movement by
// its family: "incline dumbbell" means the incline press with dumbbells
// before the other incline dumbbell exercises ("side planks" still
// means the names that end with "plank" first).
func (s *Index) familyNamed(units []unit) *roaring.Bitmap {
	var each []*roaring.Bitmap
	for _, u := range units[:max(0, len(units)-1)] {
		for _, w := range u.alternatives[0] {
			if stopWords[w] || isNumber(w) || s.field[stem(w)] != nil || s.head[singular(w)] != nil {
				continue
			}
			b := s.familyWord[singular(w)]
			if b == nil {
				return nil
			}
			each = append(each, b)
		}
	}
	if each == nil {
		return nil
	}
	return and(each...)
}
