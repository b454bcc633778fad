package exercise

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// MaxQueryLength bounds a search query, in characters.
const MaxQueryLength = 200

// maxNameWords caps the name lengths that ranking tells apart: names of
// more words rank together.
const maxNameWords = 8

// searchIndex finds records by the words of their names, aliases and
// vocabulary values (analyze.go says how text becomes terms).
type searchIndex struct {
	// name maps a term to the records whose name or an alias has it;
	// field to those whose equipments, muscles, body parts, types or
	// difficulty have it.
	name, field map[string]*roaring.Bitmap
	// fieldWritten maps each word of those fields as written, singular
	// (see singular), to its records: a field confirms a query's word only
	// when it has the word itself ("row" is no word of "rowing machine").
	// Secondary muscles confirm nothing: "lower back" is for the back
	// extensions before the deadlifts, whose helper it is.
	fieldWritten map[string]*roaring.Bitmap
	// surface maps each word of the indexed text as written (and each
	// adjacent pair joined) to its term: typos and prefixes are what
	// people type, so they are looked up among written words, not stems.
	// sorted and byLength list the surface words that are not numbers, in
	// order and by length.
	surface  map[string]string
	sorted   []string
	byLength [][]string
	// pairOf maps a surface word that is an adjacent pair joined
	// ("pressrow") to its first word ("press"), when every record the
	// pair matches (by name, field, name proper and confirmed field) the
	// word matches too: a prefix or a typo that expands to both need not
	// count the pair's records (see word). firstOf holds, until finish,
	// the first word of each pair ("" if two texts split it apart
	// differently).
	pairOf, firstOf map[string]string
	// sounds maps the sound of each of those words, singular (see sound),
	// to them.
	sounds map[string][]string
	// keys maps the key of every name, alias and family name (of the
	// family's standard form; its terms run together, so "pull-ups" and
	// "pullup" have one key) to its records.
	keys map[string]*roaring.Bitmap
	// sortedKeys lists the keys in order, to complete a query typed so far.
	sortedKeys []string
	// whole holds the terms of the words of names and aliases, as written
	// (no adjacent pair joined): two words of a query that make one of
	// them are one word typed apart ("dead lift").
	whole map[string]bool
	// aliasOnly maps a term to the records that have it in an alias but
	// not in their name: a word of the name proper ranks before one found
	// only in an alias. Aliases are few, so this is smaller than a
	// name-only copy of name.
	aliasOnly map[string]*roaring.Bitmap
	// head maps the head of each name proper (see heads and headPhrase) to
	// its records: a name that ends with what the query ends with ranks
	// first.
	head map[string]*roaring.Bitmap
	// familyWord maps each word of the name of a family of at least
	// minNamedFamily records, singular, to the records of the family: a
	// query that names the family ("incline dumbbell": the incline press)
	// ranks them as if it named their head. familyRecords holds the
	// records of each family until finish.
	familyWord, familyRecords map[string]*roaring.Bitmap
	// stemHead maps the stem of each head to its records: an exercise
	// type may be named for the head of its exercises ("stretching",
	// "stretch").
	stemHead map[string]*roaring.Bitmap
	// words[n] holds the records whose name has n words (at most
	// maxNameWords): a closer name ranks first. Aliases do not count: a
	// one-word abbreviation does not make a long name short. After
	// finish, the standard forms are in standard instead.
	words [maxNameWords + 1]*roaring.Bitmap
	// standard[i] holds the standard forms of the families of at least
	// standardRanks[i] records (and fewer than the rank before), and
	// standardWords[i] the same split by the words of their names, fewest
	// first (the empty ones left out): the staples of a class rank the
	// plain forms first.
	standard      [len(standardRanks)]*roaring.Bitmap
	standardWords [len(standardRanks)][]*roaring.Bitmap
	// The staples are the movements a query of muscles or equipment alone
	// means first: the standard forms of the families of at least
	// minStapleFamily records, their rival forms and, for an equipment of
	// the query, its staples. rivalWords[i] holds the rival forms of the
	// families of the size class i (see standard), split by the words of
	// their names, fewest first: the version of a large family on the
	// equipment that many of its records use and its standard form does
	// not (the dumbbell curl beside the barbell curl; see minRivalFamily).
	// equipmentStaples[e] holds, for each such family and each equipment e
	// but its standard form's, its version on e (the dumbbell bench press,
	// for "dumbbell chest"), in the order they rank: the families of more
	// records with e first (the movement the equipment is most used for:
	// "trx", the row), then the larger families, then names of fewer
	// words.
	rivalWords       [len(standardRanks)][]*roaring.Bitmap
	equipmentStaples map[string][]*roaring.Bitmap
	// primary maps each vocabulary value that confirms, its words singular
	// and space-separated ("upper arm", "body weight"), to the records it
	// describes first: as the first target muscle or its body part, or as
	// an equipment, type or difficulty. A push jerk's triceps help; the
	// jerk is no triceps staple.
	primary map[string]*roaring.Bitmap
	// secondTargets maps each muscle, and its body part, to the records
	// it is a target of but the first: the staples of a description that
	// no record trains first ("biceps no equipment": the chin-up, which
	// trains the lats first).
	secondTargets map[string]*roaring.Bitmap
	// partOf maps a muscle to its body part.
	partOf map[string]string
	// strength holds the records of a strengthTypes type, and types the
	// exercise types as primary spells them: a query of muscles shows
	// their strength staples before stretches, steps and skipping, unless
	// it names a type. loaded holds those of no conditioningTypes type
	// too: for a muscle, a crab walk or a farmer's walk is conditioning
	// before it is a triceps or a trapezius exercise, while for an
	// equipment the kettlebell swing stays a kettlebell staple. anatomy
	// holds the muscles and body parts as primary spells them.
	strength, loaded *roaring.Bitmap
	types, anatomy   map[string]bool
	// muscles holds the muscles as primary spells them.
	muscles map[string]bool
	// shortest holds, until finish, the records of the fewest name words of
	// each family and equipment (at most maxVersionTies of them), the
	// candidates for its version on that equipment (see version).
	shortest map[[2]string][]shortName
	// familyNames holds, until finish, the words of the names of each
	// family (at most maxFamilyNames), and familyEquipment the number of
	// records of each family and equipment.
	familyNames     map[string][][]string
	familyEquipment map[[2]string]int
	// equipmentOf holds, until finish, the equipment of each standard form.
	equipmentOf map[uint32][]string
	// masks split every ranked list, in this order: the standard forms,
	// largest families first, then the other records by name length.
	// searchMasks split the tiers of a search the same way, the rival
	// forms (see rivalWords) ranking after the standard forms of the next
	// class: "dumbbell press" is the dumbbell bench press, not the
	// "dumbbell w press".
	masks, searchMasks []*roaring.Bitmap
	// searchMasksPartition reports whether every record is in exactly
	// one of the searchMasks, so that splitting a set by them keeps its
	// size (see search).
	searchMasksPartition bool
	// familySize counts the records of each family, and standardOf holds
	// each family's standard form, until finish.
	familySize map[string]int
	standardOf map[string]uint32

	// phrases holds the vocabulary values of more than one word, their
	// words stemmed and space-separated ("gluteus medius", "medicine
	// ball"), and longestPhrase their most words: a query reads each as
	// one unit, as it reads a phrase of the synonym table.
	phrases       map[string]bool
	longestPhrase int

	// prose holds the words of the records' descriptions, instructions
	// and tips as written: real words, which a typo correction leaves as
	// they are ("tight" is no misspelt "eight"). proseSeen holds, until
	// finish, the texts already read (most tips are shared).
	prose     map[string]bool
	proseSeen map[string]bool

	memo map[string][]string // memo of terms, for repeated vocabulary values
	// singulars holds the written words of each vocabulary value, singular.
	singulars map[string][]string
}

func newSearchIndex(muscles []Muscle) *searchIndex {
	s := &searchIndex{
		name: map[string]*roaring.Bitmap{}, field: map[string]*roaring.Bitmap{}, aliasOnly: map[string]*roaring.Bitmap{},
		keys: map[string]*roaring.Bitmap{}, memo: map[string][]string{}, surface: map[string]string{}, firstOf: map[string]string{},
		head: map[string]*roaring.Bitmap{}, familyWord: map[string]*roaring.Bitmap{}, familyRecords: map[string]*roaring.Bitmap{}, familySize: map[string]int{}, standardOf: map[string]uint32{},
		fieldWritten: map[string]*roaring.Bitmap{}, singulars: map[string][]string{}, whole: map[string]bool{},
		primary: map[string]*roaring.Bitmap{}, partOf: map[string]string{}, secondTargets: map[string]*roaring.Bitmap{},
		strength: roaring.New(), loaded: roaring.New(), types: map[string]bool{}, anatomy: map[string]bool{}, muscles: map[string]bool{},
		equipmentStaples: map[string][]*roaring.Bitmap{}, shortest: map[[2]string][]shortName{},
		familyNames: map[string][][]string{}, familyEquipment: map[[2]string]int{},
		equipmentOf: map[uint32][]string{}, phrases: map[string]bool{}, prose: map[string]bool{}, proseSeen: map[string]bool{},
	}
	for _, m := range muscles {
		s.partOf[m.Name] = m.BodyPart
		s.anatomy[singularPhrase(words(m.Name))] = true
		s.muscles[singularPhrase(words(m.Name))] = true
		s.anatomy[singularPhrase(words(m.BodyPart))] = true
	}
	for i := range s.words {
		s.words[i] = roaring.New()
	}
	for i := range s.standard {
		s.standard[i] = roaring.New()
	}
	return s
}

// standardRanks are the family sizes from which a family's standard form
// ranks in a class of its own, largest first: the more variants of a
// movement the catalogue holds, the more likely it is the one meant
// ("press": the barbell bench press, of 34, before the leg press, of 9).
var standardRanks = [...]int{24, 16, 12, 8, 4, 1}

// minStapleFamily is the smallest family whose standard form is a staple:
// a family of fewer variants is too rare a movement to come first for a
// muscle ("biceps": the barbell curl, not a biceps drill of its own).
const minStapleFamily = 4

// shortName is a record, the words of its name and the number of its
// equipments.
type shortName struct {
	pos        uint32
	words      []string
	equipments int
}

// maxVersionTies and maxFamilyNames bound what the index keeps until
// finish to choose a family's version on an equipment: a synthetic family
// of thousands of records would cost much for nothing.
const maxVersionTies, maxFamilyNames = 16, 64

// minNamedFamily is the smallest family whose name's words rank its
// records as a head does: a movement of many variants is what they mean
// ("incline dumbbell": the incline press, of 18; "seated dumbbell" is no
// seated calf raise, of 6).
const minNamedFamily = 8

// minRivalFamily is the smallest family that may have a rival form: one
// of the two largest size classes, a movement done in many ways.
const minRivalFamily = 16

// strengthTypes are the exercise types that train a muscle against a
// load; conditioningTypes those that train the heart and lungs.
var (
	strengthTypes     = []string{"strength", "weightlifting"}
	conditioningTypes = []string{"cardio", "aerobic"}
)

// terms is terms(text), remembered: a vocabulary value recurs in
// thousands of records.
func (s *searchIndex) terms(text string) []string {
	if t, ok := s.memo[text]; ok {
		return t
	}
	forms := written(text)
	t := make([]string, len(forms))
	for i, w := range forms {
		t[i] = stem(w)
		// Numbers are never corrected or completed: they stay out.
		if !isNumber(w) {
			s.surface[w] = t[i]
		}
	}
	ws := words(text)
	for i := 1; i < len(ws); i++ {
		if a, b := ws[i-1], ws[i]; !isNumber(a) && !isNumber(b) {
			if first, ok := s.firstOf[a+b]; !ok {
				s.firstOf[a+b] = a
			} else if first != a {
				s.firstOf[a+b] = ""
			}
		}
	}
	if len(s.memo) < 1<<16 {
		s.memo[text] = t
	}
	return t
}

// key is the form in which whole names, aliases and queries are compared:
// their terms run together.
func key(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(stem(w))
	}
	return b.String()
}

// nameKey is the key of a whole name, alias or query: its terms run
// together, less the little words that join the others, which a query
// leaves out as stop words ("clean and press" is "clean press", "plank
// with leg lift" "plank leg lift"), unless nothing else is left. Other
// stop words stay: a "rehab squat" is no "squat", an "a-march" no
// "march".
func nameKey(ws []string) string {
	kept := ws[:0:0]
	for _, w := range ws {
		if !joiners[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return key(ws)
	}
	return key(kept)
}

// joiners are the stop words that join the words of a name.
var joiners = map[string]bool{"and": true, "with": true, "on": true, "the": true, "of": true, "to": true, "in": true, "for": true, "at": true, "using": true}

func (s *searchIndex) add(pos uint32, x *Exercise) {
	own := s.terms(x.Name)
	for _, text := range append([]string{x.Name}, x.Aliases...) {
		for _, t := range s.terms(text) {
			group(s.name, t, pos)
			if text != x.Name && !slices.Contains(own, t) {
				group(s.aliasOnly, t, pos)
			}
		}
		ws := words(text)
		for _, w := range ws {
			if !isNumber(w) { // numbers are never joined (see written)
				s.whole[stem(w)] = true
			}
		}
		group(s.keys, nameKey(ws), pos)
	}
	for _, v := range x.SecondaryMuscles {
		s.addField(pos, v, false) // a helper matches, but does not confirm
	}
	for _, text := range slices.Concat([]string{x.Description}, x.Instructions, x.Tips) {
		if !s.proseSeen[text] {
			s.proseSeen[text] = true
			for _, w := range words(text) {
				s.prose[w] = true
			}
		}
	}
	for _, list := range [][]string{x.Equipments, x.TargetMuscles, x.BodyParts, x.ExerciseTypes, {x.Difficulty}} {
		for _, v := range list {
			s.addField(pos, v, true)
		}
	}
	primary := slices.Concat(x.Equipments, x.ExerciseTypes, []string{x.Difficulty})
	if len(x.TargetMuscles) > 0 {
		primary = append(primary, x.TargetMuscles[0], s.partOf[x.TargetMuscles[0]])
	}
	for _, v := range primary {
		group(s.primary, singularPhrase(words(v)), pos)
	}
	for _, m := range x.TargetMuscles[min(1, len(x.TargetMuscles)):] {
		group(s.secondTargets, singularPhrase(words(m)), pos)
		group(s.secondTargets, singularPhrase(words(s.partOf[m])), pos)
	}
	for _, v := range x.ExerciseTypes {
		s.types[singularPhrase(words(v))] = true
	}
	of := func(types []string) bool {
		return slices.ContainsFunc(x.ExerciseTypes, func(v string) bool { return slices.Contains(types, v) })
	}
	if of(strengthTypes) {
		s.strength.Add(pos)
		if !of(conditioningTypes) {
			s.loaded.Add(pos)
		}
	}
	for _, h := range heads(headPhrase(x.Name)) {
		group(s.head, h, pos)
	}
	if x.Family != "" {
		group(s.familyRecords, x.Family, pos)
	}
	ws := words(x.Name)
	s.words[min(len(ws), maxNameWords)].Add(pos)
	if x.Family != "" {
		s.familySize[x.Family]++
		if names := s.familyNames[x.Family]; len(names) < maxFamilyNames {
			s.familyNames[x.Family] = append(names, ws)
		}
		for _, e := range x.Equipments {
			s.familyEquipment[[2]string{x.Family, e}]++
		}
		if x.Standard {
			// A family's name is a name of its standard form, the version
			// its plain name means: "biceps curl" is the barbell curl.
			group(s.keys, nameKey(words(x.Family)), pos)
			s.standardOf[x.Family] = pos
			s.equipmentOf[pos] = x.Equipments
		}
		for _, e := range x.Equipments {
			// A landmine lateral raise is no barbell staple: a record
			// stands for its equipment alone, or for one its name says.
			if len(x.Equipments) > 1 && !names(ws, e) {
				continue
			}
			k := [2]string{x.Family, e}
			switch ties := s.shortest[k]; {
			case len(ties) == 0 || len(ws) < len(ties[0].words):
				s.shortest[k] = []shortName{{pos, ws, len(x.Equipments)}}
			case len(ws) == len(ties[0].words) && len(ties) < maxVersionTies:
				s.shortest[k] = append(ties, shortName{pos, ws, len(x.Equipments)})
			}
		}
	}
}

// names reports whether the words of a name say the equipment e: its
// words, or its last word but for a plural ("ring dip": gymnastic rings).
func names(ws []string, e string) bool {
	ew := words(e)
	if hasPhrase(ws, ew) {
		return true
	}
	head := singular(ew[len(ew)-1])
	return slices.ContainsFunc(ws, func(w string) bool { return singular(w) == head })
}

// addField indexes the vocabulary value v of the record at pos, and with
// confirms, its written words too.
func (s *searchIndex) addField(pos uint32, v string, confirms bool) {
	for _, t := range s.terms(v) {
		group(s.field, t, pos)
	}
	if !confirms {
		return
	}
	ws, ok := s.singulars[v]
	if !ok {
		for _, w := range written(v) {
			ws = append(ws, singular(w))
		}
		s.singulars[v] = ws // vocabularies are small
		if vw := words(v); len(vw) > 1 {
			s.phrases[stemmed(vw)] = true
			s.longestPhrase = max(s.longestPhrase, len(vw))
		}
	}
	for _, w := range ws {
		group(s.fieldWritten, w, pos)
	}
}

// finish optimises the bitmaps and lists the terms for lookups.
func (s *searchIndex) finish() {
	var records uint64 // each record has a number of name words
	for _, b := range s.words {
		records += b.GetCardinality()
	}
	for _, m := range []map[string]*roaring.Bitmap{s.name, s.field, s.fieldWritten, s.aliasOnly, s.keys, s.head, s.primary, s.secondTargets} {
		for _, b := range m {
			b.RunOptimize()
		}
	}
	for w := range s.surface {
		s.sorted = append(s.sorted, w)
	}
	var byWords [len(standardRanks)][maxNameWords + 1]*roaring.Bitmap
	for family, pos := range s.standardOf {
		for i, n := range standardRanks {
			if s.familySize[family] >= n {
				s.standard[i].Add(pos)
				for k, b := range s.words {
					if b.Contains(pos) {
						if byWords[i][k] == nil {
							byWords[i][k] = roaring.New()
						}
						byWords[i][k].Add(pos)
						b.Remove(pos)
					}
				}
				break
			}
		}
	}
	for i := range byWords {
		for _, b := range byWords[i] {
			if b != nil {
				b.RunOptimize()
				s.standardWords[i] = append(s.standardWords[i], b)
			}
		}
	}
	type staple struct {
		pos                   uint32
		records, class, words int
	}
	byEquipment := map[string][]staple{}
	// rival[family] is the equipment of the family's rival form so far.
	rival := map[string]string{}
	for k, ties := range s.shortest {
		family, e := k[0], k[1]
		std, ok := s.standardOf[family]
		best := s.version(family, ties)
		if !ok || best.pos == std || slices.Contains(s.equipmentOf[std], e) {
			continue
		}
		for i, n := range standardRanks {
			if s.familySize[family] >= n && n >= minStapleFamily {
				v := singularPhrase(words(e))
				byEquipment[v] = append(byEquipment[v], staple{best.pos, s.familyEquipment[k], i, min(len(best.words), maxNameWords)})
				break
			}
		}
		// The equipment of the most records the standard form lacks,
		// more than a quarter of them: the dumbbell, of 6 of the 17
		// biceps curls, is the barbell curl's rival.
		if size, r := s.familySize[family], rival[family]; size >= minRivalFamily && 4*s.familyEquipment[k] > size {
			if n, m := s.familyEquipment[k], s.familyEquipment[[2]string{family, r}]; r == "" || n > m || n == m && e < r {
				rival[family] = e
			}
		}
	}
	var rivals [len(standardRanks)][maxNameWords + 1]*roaring.Bitmap
	rivalOf := map[uint32]bool{}
	for family, e := range rival {
		best := s.version(family, s.shortest[[2]string{family, e}])
		rivalOf[best.pos] = true
		for i, n := range standardRanks {
			if s.familySize[family] >= n {
				w := min(len(best.words), maxNameWords)
				if rivals[i][w] == nil {
					rivals[i][w] = roaring.New()
				}
				rivals[i][w].Add(best.pos)
				break
			}
		}
	}
	for i := range rivals {
		for _, b := range rivals[i] {
			if b != nil {
				b.RunOptimize()
				s.rivalWords[i] = append(s.rivalWords[i], b)
			}
		}
	}
	for e, list := range byEquipment {
		// A rival form ranks as one already.
		list = slices.DeleteFunc(list, func(st staple) bool { return rivalOf[st.pos] })
		slices.SortFunc(list, func(a, b staple) int {
			return cmp.Or(cmp.Compare(b.records, a.records), cmp.Compare(a.class, b.class), cmp.Compare(a.words, b.words))
		})
		var masks []*roaring.Bitmap
		for j, st := range list {
			if j == 0 || st.records != list[j-1].records || st.class != list[j-1].class || st.words != list[j-1].words {
				masks = append(masks, roaring.New())
			}
			masks[len(masks)-1].Add(st.pos)
		}
		for _, b := range masks {
			b.RunOptimize()
		}
		s.equipmentStaples[e] = masks
	}
	for family, b := range s.familyRecords {
		if s.familySize[family] < minNamedFamily {
			continue
		}
		for _, w := range words(family) {
			if !isNumber(w) {
				k := singular(w)
				s.familyWord[k] = or(orEmpty(s.familyWord[k]), b).Clone()
			}
		}
	}
	for _, b := range s.familyWord {
		b.RunOptimize()
	}
	s.familySize, s.standardOf, s.shortest, s.equipmentOf, s.familyNames, s.familyEquipment = nil, nil, nil, nil, nil, nil
	s.familyRecords = nil
	for _, b := range append(s.standard[:], s.words[:]...) {
		if !b.IsEmpty() {
			b.RunOptimize()
			s.masks = append(s.masks, b)
		}
	}
	s.searchMasks = s.masks
	if allRivals := or(slices.Concat(s.rivalWords[:]...)...); !allRivals.IsEmpty() {
		s.searchMasks = nil
		for i, b := range s.standard {
			s.searchMasks = append(s.searchMasks, b)
			if i > 0 {
				s.searchMasks = append(s.searchMasks, or(s.rivalWords[i-1]...))
			}
		}
		for _, b := range s.words {
			s.searchMasks = append(s.searchMasks, roaring.AndNot(b, allRivals))
		}
		s.searchMasks = slices.DeleteFunc(s.searchMasks, (*roaring.Bitmap).IsEmpty)
	}
	s.searchMasksPartition = disjoint(s.searchMasks) && or(s.searchMasks...).GetCardinality() == records
	s.stemHead = map[string]*roaring.Bitmap{}
	for h, b := range s.head {
		k := stem(h)
		if prev := s.stemHead[k]; prev != nil {
			s.stemHead[k] = roaring.Or(prev, b)
		} else {
			s.stemHead[k] = b
		}
	}
	for k := range s.keys {
		s.sortedKeys = append(s.sortedKeys, k)
	}
	slices.Sort(s.sortedKeys)
	slices.Sort(s.sorted)
	s.sounds = map[string][]string{}
	for _, w := range s.sorted {
		if len(w) >= minSoundLength {
			k := sound(singular(w))
			s.sounds[k] = append(s.sounds[k], w)
		}
	}
	for _, t := range s.sorted {
		for len(s.byLength) <= len(t) {
			s.byLength = append(s.byLength, nil)
		}
		s.byLength[len(t)] = append(s.byLength[len(t)], t)
	}
	s.pairOf = map[string]string{}
	for pair, first := range s.firstOf {
		l, k := s.surface[pair], s.surface[first]
		if first == "" || l == k {
			continue
		}
		within := func(b, of *roaring.Bitmap) bool { return b == nil || of != nil && contains(of, b) }
		if within(s.name[l], s.name[k]) && within(s.field[l], s.field[k]) && within(s.ownName(l).get(), s.ownName(k).get()) &&
			within(s.fieldWritten[singular(pair)], s.fieldWritten[singular(first)]) {
			s.pairOf[pair] = first
		}
	}
	s.memo, s.singulars, s.firstOf, s.proseSeen = nil, nil, nil, nil
}

// checkQuery reports what makes q unusable (see checkText).
func checkQuery(q string, bad *ArgumentError) {
	checkText(FieldQuery, q, MaxQueryLength, len(words(q)) > 0, "to search for", bad)
}

// search ranks the records of set that match q, best first:
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
// (see lazy and searchSets), only when a page reaches it (see ranked):
// the first page of a query typed afresh reads one or two tiers of
// dozens, over sets of up to a million records.
func (c *Catalogue) search(q string, set *roaring.Bitmap) *ranked {
	s := c.searchIdx
	units := s.orAnatomy(s.completeWord(s.completeSynonyms(s.correctSynonyms(s.splitRunTogether(s.joinSplit(parseQuery(q, s.phrases, s.longestPhrase)))))))
	if asksInstead(q) {
		if src, ok := c.named(units); ok {
			if r := c.alternatives(src, set); r.total > 0 {
				r.ignored, r.records = []string{}, roaring.BitmapOf(r.positions(0, r.total)...)
				return r
			}
		}
	}
	// A search's cost grows with its words: those beyond maxSearchUnits
	// are set aside from the start.
	ignored := []string{}
	if len(units) > maxSearchUnits {
		for _, u := range units[maxSearchUnits:] {
			ignored = append(ignored, strings.Join(u.alternatives[0], " "))
		}
		units = units[:maxSearchUnits]
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
			extra := len(ignored) // the words beyond maxSearchUnits come last
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
	if set.GetCardinality() < c.all.GetCardinality() { // else set is every record
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
	d, described := s.describe(units, false)
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
				second, _ := s.describe(units, true)
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
	r := newDeferredRanked(all, total, pending)
	r.ignored, r.records, r.sets = ignored, all, x
	return r
}

// named returns the exercise whose name or alias the units say whole
// (abbreviations spelled out, typos corrected): of several, the standard
// form of its family first ("bench press": the barbell bench press).
func (c *Catalogue) named(units []unit) (uint32, bool) {
	b := c.searchIdx.exactKeys(units, true)
	if b.IsEmpty() {
		return 0, false
	}
	for it := b.Iterator(); it.HasNext(); {
		pos := it.Next()
		if std, ok := c.searchIdx.standardOf[c.exercises[pos].Family]; ok && std == pos {
			return pos, true
		}
	}
	return b.Minimum(), true
}

// candidate is a unit of a query that matches records: the unit's index
// and its records within the listing's filter.
type candidate struct {
	i    int
	b    *roaring.Bitmap
	size uint64
	kind wordKind
}

// wordKind says what a unit of a query names, in the order setAside
// keeps them.
type wordKind int

const (
	movementWord wordKind = iota // ends a name: "press", "pull-up"
	valueWord                    // an equipment, muscle, body part, type or difficulty
	modifierWord                 // says how: "alternating", "strict"
)

func (s *searchIndex) kindOf(u unit, m matches) wordKind {
	for _, alt := range u.alternatives {
		for _, h := range heads(alt) {
			if s.head[h] != nil {
				return movementWord
			}
		}
	}
	if !m.field.get().IsEmpty() {
		return valueWord
	}
	return modifierWord
}

// bestSubset returns the largest subset of cs, most specific first, of
// which matchesAll holds; among subsets of one size, those that keep the
// first of cs first (lexicographic order of positions), so that the least
// specific are set aside first. Every single unit matches.
func bestSubset(cs []candidate, matchesAll func([]candidate) bool) []candidate {
	for k := len(cs) - 1; k > 1; k-- {
		pick := make([]int, k)
		for i := range pick {
			pick[i] = i
		}
		subset := make([]candidate, k)
		for {
			for i, p := range pick {
				subset[i] = cs[p]
			}
			if matchesAll(subset) {
				return subset
			}
			// The next combination in lexicographic order.
			i := k - 1
			for i >= 0 && pick[i] == len(cs)-k+i {
				i--
			}
			if i < 0 {
				break
			}
			pick[i]++
			for j := i + 1; j < k; j++ {
				pick[j] = pick[j-1] + 1
			}
		}
	}
	return cs[:1]
}

// maxSearchUnits is the most words (or phrases) of a query a search reads;
// the rest are set aside. Each costs a few sets of records, and a typo up
// to maxCorrections more.
const maxSearchUnits = 10

// maxSetAsideSearch is the most units whose subsets setAside tries in
// turn; beyond, it sets aside the least specific one at a time.
const maxSetAsideSearch = 6

// setAside chooses the units to keep of a query that no record matches
// all of: it sets aside first the units that match nothing, then as few
// of the others as leaves some record matching: words that say how
// ("strict", "alternating", "paused"), the rarest first, before those
// that name equipment, muscles and the like, and these before the words
// that end names (the movement: "press", "pull-up"), of these the least
// specific (matching the most records) first. It keeps the most units
// that some record matches together (of up to maxSetAsideSearch units;
// beyond, it sets aside one at a time), so no record of the answer could
// have used more of the query. keep is empty only when no unit matches
// anything.
func (s *searchIndex) setAside(units []unit, ms []matches) (keep []int) {
	var cs []candidate
	for i, m := range ms {
		if b := m.anywhere.get(); !b.IsEmpty() {
			cs = append(cs, candidate{i: i, b: b, size: b.GetCardinality(), kind: s.kindOf(units[i], m)})
		}
	}
	if len(cs) == 0 {
		return nil
	}
	// Those to keep most first: a subset that keeps the first ones sets
	// aside the others. Of the words that say how, the common ones name a
	// variant ("goblet", "incline") and the rare ones a way of doing it
	// ("tempo", "paused"): the rare ones go first.
	slices.SortStableFunc(cs, func(a, b candidate) int {
		if a.kind == modifierWord && b.kind == modifierWord {
			return cmp.Compare(b.size, a.size)
		}
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.size, b.size))
	})
	matchesAll := func(subset []candidate) bool {
		acc := subset[0].b
		for _, c := range subset[1:] {
			if !acc.Intersects(c.b) {
				return false
			}
			acc = roaring.And(acc, c.b)
		}
		return !acc.IsEmpty()
	}
	chosen := cs
	switch {
	case matchesAll(cs):
	case len(cs) <= maxSetAsideSearch:
		chosen = bestSubset(cs, matchesAll)
	default:
		for len(chosen) > 1 && !matchesAll(chosen) {
			chosen = chosen[:len(chosen)-1]
		}
	}
	for _, c := range chosen {
		keep = append(keep, c.i)
	}
	slices.Sort(keep)
	return keep
}

// disjoint reports whether no record is in two of the bitmaps.
func disjoint(bs []*roaring.Bitmap) bool {
	var sum uint64
	for _, b := range bs {
		sum += b.GetCardinality()
	}
	return sum == or(bs...).GetCardinality()
}

// leaders returns the first staple of a query that "and" joins muscles
// or body parts in (see orAnatomy) and, for each part that one does not
// train, the part's first staple; nil if it trains them all or there are
// no parts. A day of both asks for the best of each before the rest of
// either: "shoulders and triceps", the overhead press and the pushdown;
// "glutes and hamstrings", the deadlift, which trains both.
func (s *searchIndex) leaders(units []unit, staplesOf *lazy, masks []*roaring.Bitmap) *roaring.Bitmap {
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
			trains, ok := s.describe(one, true)
			if !ok || trains.records.get().Contains(lead) {
				continue
			}
			d, _ := s.describe(one, false)
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
func (s *searchIndex) typeNamed(units []unit) *roaring.Bitmap {
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

// describe returns the description of a query each of whose units is, or
// stands for, a whole vocabulary value; ok is false for other queries.
// With second, a muscle or body part describes the records it is any
// target of, not only the first.
func (s *searchIndex) describe(units []unit, second bool) (d description, ok bool) {
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
				if second && s.secondTargets[v] != nil {
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
func (s *searchIndex) stapleMasks(equipments []string) []*roaring.Bitmap {
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
func (s *searchIndex) version(family string, ties []shortName) shortName {
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

// phrasal returns the units of a query of two words or more, as a name
// being typed: the units themselves, or, for a phrase of two words or
// more, the phrases of as many that it stands for ("hex bar": "trap
// bar"; not "chest" for "chest muscles", a word that begins many names
// without being typed). It returns nil for a query of one word, or of
// two that make one ("dumb bell"): "forearms" is no "wrist flexor
// stretch" being typed.
func phrasal(units []unit) []unit {
	if len(units) != 1 {
		return units
	}
	u := units[0]
	if len(u.alternatives[0]) < 2 || u.joined {
		return nil
	}
	u.alternatives = slices.DeleteFunc(slices.Clone(u.alternatives), func(a []string) bool { return len(a) < 2 })
	if len(u.alternatives) == 0 {
		return nil
	}
	return []unit{u}
}

// hasPhrase reports whether the words ws hold the words of phrase in a
// row.
func hasPhrase(ws, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// joinSplit makes one unit of two one-word units that, joined, are a
// word of the catalogue or of the synonym table ("dead lift", "kettle
// bell", "hyper extension"): the unit matches both words, or the word
// they make (see unit) and its synonyms.
func (s *searchIndex) joinSplit(units []unit) []unit {
	out := units[:0:0]
	for i := 0; i < len(units); i++ {
		u := units[i]
		if i+1 < len(units) {
			a, b := u.alternatives[0], units[i+1].alternatives[0]
			if j := stem(a[0] + b[0]); len(a) == 1 && len(b) == 1 && (s.whole[j] || synonyms[j] != nil) {
				u = unit{alternatives: [][]string{{a[0], b[0]}, {a[0] + b[0]}}, last: units[i+1].last, joined: true}
				for _, alt := range synonyms[j] {
					if stemmed(alt) != stemmed(u.alternatives[0]) {
						u.alternatives = append(u.alternatives, alt)
					}
				}
				i++
			}
		}
		out = append(out, u)
	}
	return out
}

// A word run together from whole words of names is split into at least
// minRunTogether of them (two words joined are a term already, see
// written) and at most maxRunTogether.
const minRunTogether, maxRunTogether = 3, 4

// splitRunTogether adds to a one-word unit that is no term of the
// catalogue the words it runs together, when it is made of minRunTogether
// or more whole words of names and aliases, of two letters or more
// ("toestobar": "toes bar", stop words left out): the counterpart of
// joinSplit, for words typed without their spaces or hyphens. The fewest
// words win. The word itself stays the unit's first alternative and is
// corrected as any other ("gobelt": "goblet"), so a typo that happens to
// split ("inline": "in line") still finds what it misspells.
func (s *searchIndex) splitRunTogether(units []unit) []unit {
	for i, u := range units {
		if len(u.alternatives) != 1 || len(u.alternatives[0]) != 1 {
			continue
		}
		w := u.alternatives[0][0]
		if t := stem(w); s.name[t] != nil || s.field[t] != nil || len(w) < 2*minRunTogether || isNumber(w) {
			continue
		}
		parts := s.wordsIn(w)
		if len(parts) < minRunTogether {
			continue
		}
		if parts = slices.DeleteFunc(parts, func(p string) bool { return stopWords[p] }); len(parts) >= 2 {
			units[i].alternatives = [][]string{{w}, parts}
			units[i].split = true
		}
	}
	return units
}

// correctSynonyms adds to a one-word unit that is no term of the
// catalogue, of minSoundLength letters or more, the words of the synonym
// table it misspells (within allowedTypos, or sounding alike; see
// similar) and what they stand for: "abbs" is "abs", the abdominals, as
// "crunchs" is "crunch". The word itself stays the unit's first
// alternative and is corrected as any other. Only the table's words of
// minSynonymTypo letters or more count, so "dbb" is no "db"; and a typed
// word of fewer than minSoundLength letters is too short to tell a typo
// of a three-letter abbreviation from another word. Nor is a last word
// that begins written words: it is being typed.
func (s *searchIndex) correctSynonyms(units []unit) []unit {
	for i, u := range units {
		if len(u.alternatives) != 1 || len(u.alternatives[0]) != 1 {
			continue
		}
		w := u.alternatives[0][0]
		if t := stem(w); len(w) < minSoundLength || isNumber(w) || s.name[t] != nil || s.field[t] != nil || synonyms[t] != nil || s.prose[w] {
			continue
		}
		if u.last && len(s.prefixed(w)) > 0 {
			continue // a word being typed ("bice" is no misspelt "bike")
		}
		k := allowedTypos(len(w), len(units) > 1)
		ws, mask := sound(singular(w)), letterMask(w)
		for j, key := range synonymWords {
			typo := abs(len(key)-len(w)) <= k && bits.OnesCount32(mask^letterMask(key)) <= 2*k && editDistance(w, key, k) <= k
			if !typo && (len(key) < minSoundLength || ws != synonymSounds[j]) {
				continue
			}
			units[i].misspelt = true
			units[i].alternatives = addAlternatives(units[i].alternatives, append([][]string{{key}}, synonyms[stem(key)]...)...)
		}
		// A word whose corrections are all one vocabulary value stands
		// for it, as the value typed would: "dumbell" is "dumbbell".
		if v := s.valueMisspelt(w, len(units) > 1); v != "" && !units[i].misspelt {
			units[i].misspelt = true
			units[i].alternatives = addAlternatives(units[i].alternatives, append([][]string{{v}}, synonyms[stem(v)]...)...)
		}
	}
	return units
}

// valueMisspelt returns the one-word vocabulary value (an equipment,
// muscle, body part, type or difficulty) that w misspells, when all the
// written words within its typos (see similar) but pairs joined are
// that word, or "".
func (s *searchIndex) valueMisspelt(w string, others bool) string {
	var best string
	for _, c := range s.similar(w, others) {
		switch {
		case !s.whole[s.surface[c]] && s.field[s.surface[c]] == nil:
			continue // a pair of words joined ("dumbbellw")
		case best == "":
			best = c
		case s.surface[c] != s.surface[best]:
			return ""
		case len(c) < len(best):
			best = c
		}
	}
	if best == "" || s.primary[singular(best)] == nil {
		return ""
	}
	return best
}

// maxSynonymCompletions is the most phrases of the synonym table a
// query typed so far may be completing: more, and it is too short to
// tell them apart.
const maxSynonymCompletions = 4

// completeSynonyms makes one unit of the last words of a query that are
// a phrase of the synonym table being typed ("full bo", "compo", "warm
// u"): the words before the last as in the phrase (by stem), the last
// the beginning of its last word as written, and that word no term of
// the catalogue nor of the table. The unit matches the words as typed,
// the phrases and what they stand for. None when more than
// maxSynonymCompletions phrases would do, when a single word of fewer
// than minSoundLength letters is typed ("bi" may be anything), or when
// the words begin a name or alias: the name being typed comes first
// ("hip thr", "pec dec").
func (s *searchIndex) completeSynonyms(units []unit) []unit {
	n := len(units)
	if n == 0 || !units[n-1].last || len(units[n-1].alternatives) != 1 || len(units[n-1].alternatives[0]) != 1 {
		return units
	}
	w := units[n-1].alternatives[0][0]
	if t := stem(w); isNumber(w) || s.name[t] != nil || s.field[t] != nil || synonyms[t] != nil {
		return units
	}
	for m := min(n, maxSynonymWords); m >= 1; m-- {
		if m == 1 && len(w) < minSoundLength {
			break
		}
		tail := units[n-m:]
		var found [][]string
		for _, p := range synonymPhrases {
			if len(p) != m || !strings.HasPrefix(p[m-1], w) || p[m-1] == w {
				continue
			}
			same := true
			for i, u := range tail[:m-1] {
				if a := u.alternatives[0]; len(a) != 1 || stem(a[0]) != stem(p[i]) {
					same = false
					break
				}
			}
			if same {
				found = addAlternatives(found, p)
			}
		}
		if len(found) == 0 || len(found) > maxSynonymCompletions {
			continue
		}
		var typed []string
		for _, u := range tail {
			typed = append(typed, u.alternatives[0]...)
		}
		if s.begins(nameKey(typed)) {
			return units // a name is being typed: its completions say more
		}
		merged := unit{alternatives: [][]string{typed}, last: true}
		for _, p := range found {
			merged.alternatives = addAlternatives(merged.alternatives, append([][]string{p}, synonyms[stemmed(p)]...)...)
		}
		return append(units[:n-m:n-m], merged)
	}
	return units
}

// addAlternatives appends to alts each of more that is not one of them
// already, stemmed.
func addAlternatives(alts [][]string, more ...[]string) [][]string {
	for _, alt := range more {
		if !slices.ContainsFunc(alts, func(a []string) bool { return stemmed(a) == stemmed(alt) }) {
			alts = append(alts, alt)
		}
	}
	return alts
}

// synonymSounds holds the sound of each of synonymWords, singular.
var synonymSounds = func() []string {
	out := make([]string, len(synonymWords))
	for i, w := range synonymWords {
		out[i] = sound(singular(w))
	}
	return out
}()

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// begins reports whether a name or alias key begins with k.
func (s *searchIndex) begins(k string) bool {
	i := sort.SearchStrings(s.sortedKeys, k)
	return i < len(s.sortedKeys) && strings.HasPrefix(s.sortedKeys[i], k)
}

// orAnatomy makes one unit of two that "and" joins when both name a
// muscle or body part: "chest and triceps" asks for the exercises of a
// day that trains both, the chest's and the triceps' (any of their
// alternatives), not for the few that train both at once.
func (s *searchIndex) orAnatomy(units []unit) []unit {
	anatomical := func(u unit) bool {
		return slices.ContainsFunc(u.alternatives, func(a []string) bool { return s.anatomy[singularPhrase(a)] })
	}
	out := units[:0:0]
	for _, u := range units {
		if n := len(out); n > 0 && out[n-1].and && anatomical(out[n-1]) && anatomical(u) {
			prev := out[n-1]
			parts := prev.parts
			if parts == nil {
				parts = [][][]string{prev.alternatives}
			}
			out[n-1] = unit{alternatives: addAlternatives(slices.Clone(prev.alternatives), u.alternatives...), last: u.last, and: u.and, parts: append(slices.Clip(parts), u.alternatives)}
			continue
		}
		out = append(out, u)
	}
	return out
}

// wordsIn returns the fewest whole words of names and aliases (of two
// letters or more, at most maxRunTogether) that w is made of, or nil.
func (s *searchIndex) wordsIn(w string) []string {
	// best[i] holds the fewest words that make w[:i], nil if none do.
	best := make([][]string, len(w)+1)
	best[0] = []string{}
	for i := 2; i <= len(w); i++ {
		for j := 0; j+2 <= i; j++ {
			if best[j] == nil || len(best[j]) >= maxRunTogether || (best[i] != nil && len(best[j])+1 >= len(best[i])) {
				continue
			}
			if t, ok := s.surface[w[j:i]]; ok && s.whole[t] {
				best[i] = append(slices.Clip(best[j]), w[j:i])
			}
		}
	}
	return best[len(w)]
}

// headed returns the records whose name's head is that of the query's
// last unit, or of a phrase that may stand for it ("ohp": "press"), or
// of a word it misspells. Exact but for a plural: a last word typed so
// far is no head yet.
func (s *searchIndex) headed(units []unit) *roaring.Bitmap {
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
func (s *searchIndex) familyNamed(units []unit) *roaring.Bitmap {
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

// completeWord makes a last word typed so far that is no term of the
// catalogue nor of the synonym table, of minCompletedWord letters or
// more, the one word of names and aliases it begins, when it begins one
// only but for endings ("incline dumb" is "incline dumbbell", "kettleb"
// "kettlebell"; "hip thr" may be "thrust" or "thruster"), with that
// word's synonyms: it ranks as the word typed whole. The word as typed
// stays, corrected and completed as any other ("pigeon pse" is no
// "pigeon pseudo").
func (s *searchIndex) completeWord(units []unit) []unit {
	n := len(units)
	if n == 0 || !units[n-1].last || len(units[n-1].alternatives) != 1 || len(units[n-1].alternatives[0]) != 1 {
		return units
	}
	w := units[n-1].alternatives[0][0]
	if t := stem(w); len(w) < minCompletedWord || isNumber(w) || s.name[t] != nil || s.field[t] != nil || synonyms[t] != nil {
		return units
	}
	var whole string
	for _, c := range s.prefixed(w) {
		t := s.surface[c]
		if !s.whole[t] {
			continue // a pair of words joined
		}
		switch {
		case whole == "" || t == s.surface[whole] && len(c) < len(whole):
			whole = c
		case t != s.surface[whole]:
			return units
		}
	}
	if whole == "" {
		return units
	}
	u := units[n-1]
	u.completed = true
	u.alternatives = addAlternatives([][]string{{w}, {whole}}, synonyms[stem(whole)]...)
	return append(units[:n-1:n-1], u)
}

// minCompletedWord is the shortest last word completed to the one word it
// begins.
const minCompletedWord = 3

// and is roaring.FastAnd without the copy of a single bitmap: its result
// is only read.
func and(bs ...*roaring.Bitmap) *roaring.Bitmap {
	if len(bs) == 1 {
		return bs[0]
	}
	return roaring.FastAnd(bs...)
}

// or is roaring.FastOr without the empty bitmaps, and without the copy of
// a single one: its result is only read. The bitmaps within the largest
// are left out too, so that, when all are, the largest is the union: a
// union of a million records costs more to allocate and collect than to
// count what the others add.
func or(bs ...*roaring.Bitmap) *roaring.Bitmap {
	return union(bs, func(b, big *roaring.Bitmap) bool { return contains(big, b) })
}

// union is or, in reporting whether a bitmap is within another.
func union(bs []*roaring.Bitmap, in func(b, big *roaring.Bitmap) bool) *roaring.Bitmap {
	distinct := bs[:0:0]
	var largest *roaring.Bitmap
	var most uint64
	for _, b := range bs {
		if n := b.GetCardinality(); n > 0 && !slices.Contains(distinct, b) {
			distinct = append(distinct, b)
			if n > most {
				largest, most = b, n
			}
		}
	}
	if len(distinct) > 1 {
		rest := distinct[:0]
		for _, b := range distinct {
			if b == largest || !in(b, largest) {
				rest = append(rest, b)
			}
		}
		distinct = rest
	}
	switch len(distinct) {
	case 0:
		return empty
	case 1:
		return distinct[0]
	}
	return roaring.FastOr(distinct...)
}

// contains reports whether b is within big.
func contains(big, b *roaring.Bitmap) bool {
	n := b.GetCardinality()
	return n <= big.GetCardinality() && b.AndCardinality(big) == n
}

// searchSets computes the sets of one search, each once. They share
// bitmaps: for a word matched as typed, own, exact, inName and anywhere
// are one bitmap of the index, so that the records with both words of
// "incline press" in their name and those that match both anywhere are
// one intersection; and the terms a prefix or a typo expands to are
// often pairs of words joined ("pressrow"), whose records have the word
// alone ("press"), so that a union is mostly its largest bitmap.
type searchSets struct {
	done []intersection
	// within remembers whether a bitmap is within another, by the pair.
	within map[[2]*roaring.Bitmap]bool
	// unions counts the bytes of the unions made, which lazy sets keep.
	unions int
}

type intersection struct {
	of []*roaring.Bitmap
	bm *roaring.Bitmap
}

// lazyAnd returns the intersection of ls, computed when read: it reads
// them in turn, and none after an empty one.
func (x *searchSets) lazyAnd(ls ...*lazy) *lazy {
	l := deferred(func() *roaring.Bitmap {
		bs := make([]*roaring.Bitmap, 0, len(ls))
		for _, l := range ls {
			b := l.get()
			if b.IsEmpty() {
				return empty
			}
			if !slices.Contains(bs, b) {
				bs = append(bs, b)
			}
		}
		return x.and(bs)
	})
	l.factors = ls
	return l
}

// and returns the intersection of the distinct bitmaps bs, the one
// computed before if any.
func (x *searchSets) and(bs []*roaring.Bitmap) *roaring.Bitmap {
	if len(bs) == 1 {
		return bs[0]
	}
	for _, d := range x.done {
		if len(d.of) == len(bs) && !slices.ContainsFunc(bs, func(b *roaring.Bitmap) bool { return !slices.Contains(d.of, b) }) {
			return d.bm
		}
	}
	// Smallest first: each step is bounded by the smaller operand.
	slices.SortFunc(bs, func(a, b *roaring.Bitmap) int { return cmp.Compare(a.GetCardinality(), b.GetCardinality()) })
	bm := roaring.FastAnd(bs...)
	x.done = append(x.done, intersection{of: bs, bm: bm})
	return bm
}

// lazyOr returns the union of ls, computed when read. An intersection
// of which one set is another of ls adds nothing to it (A ∪ (A ∩ B) is
// A), and is not computed: "bench" or the "bench press" of the synonym
// table is "bench".
func (x *searchSets) lazyOr(ls ...*lazy) *lazy {
	return deferred(func() *roaring.Bitmap {
		var bs []*roaring.Bitmap
		for _, l := range ls {
			if l.factors == nil {
				bs = append(bs, l.get())
			}
		}
		absorbed := func(f *lazy) bool { return f.factors == nil && slices.Contains(bs, f.get()) }
		for _, l := range ls {
			if l.factors != nil && !slices.ContainsFunc(l.factors, absorbed) {
				bs = append(bs, l.get())
			}
		}
		return x.or(bs...)
	})
}

// or is the global or, remembering which bitmaps are within others.
func (x *searchSets) or(bs ...*roaring.Bitmap) *roaring.Bitmap {
	u := union(bs, func(b, big *roaring.Bitmap) bool {
		k := [2]*roaring.Bitmap{b, big}
		in, ok := x.within[k]
		if !ok {
			in = contains(big, b)
			if x.within == nil {
				x.within = map[[2]*roaring.Bitmap]bool{}
			}
			x.within[k] = in
		}
		return in
	})
	if len(bs) > 1 && !slices.Contains(bs, u) {
		x.unions += int(u.GetSizeInBytes())
	}
	return u
}

// inAll returns the records of b within all: b itself when all holds
// it, as it mostly does (the tiers are made of sets within the records
// that match anywhere), or all when b holds it, rather than a copy.
func (x *searchSets) inAll(b, all *lazy) *lazy {
	return deferred(func() *roaring.Bitmap {
		bm, whole := b.get(), all.get()
		switch n := bm.AndCardinality(whole); n {
		case bm.GetCardinality():
			return bm
		case whole.GetCardinality():
			return whole
		}
		return x.and([]*roaring.Bitmap{bm, whole})
	})
}

// knownAll returns bs as lazy sets already computed.
func knownAll(bs []*roaring.Bitmap) []*lazy {
	out := make([]*lazy, len(bs))
	for i, b := range bs {
		out[i] = known(b)
	}
	return out
}

// matches are the records that match a word, or a unit of a query, each
// set within the next but for exact and ownLoose: exactly in the name
// proper (own), exactly in a name or alias (exact), exactly or loosely in
// the name proper (ownLoose), exactly or loosely in a name or alias
// (inName), and anywhere. Loosely means: through a term within the
// allowed typos of the word when it is no term of the catalogue, or, for
// a prefix word, a term that starts with it. Each is computed when first
// read: a search reads anywhere for its total, and the others only as its
// pages reach the tiers made of them.
type matches struct {
	own, exact, ownLoose, inName, anywhere *lazy
	// field holds the records whose equipment, muscles, body parts, type
	// or difficulty confirm the words: have them as written but for a
	// plural, or loosely. (Through stems, the fields match more: anywhere
	// holds them.)
	field *lazy
	// loose reports whether any word matched loosely: if none did,
	// ownLoose is own and inName is exact. aliased reports whether any
	// term it matched is in an alias but not the name of some record: if
	// none is, ownLoose is inName.
	loose, aliased bool
}

// unit returns the records that match a unit of a query.
// With others set, the query has other units to narrow the results, so
// shorter words may be corrected or completed.
func (s *searchIndex) unit(u unit, others bool, x *searchSets) matches {
	alternatives := u.alternatives
	for _, alt := range u.alternatives {
		// Two words may be written as one ("body weight", "bodyweight").
		if joined := []string{strings.Join(alt, "")}; len(alt) == 2 && !slices.ContainsFunc(alternatives, func(a []string) bool { return slices.Equal(a, joined) }) {
			alternatives = append(alternatives, joined)
		}
	}
	// A phrase of the synonym table is known: no typo of another word
	// ("core" is no misspelt "cone"). A word split into the words it runs
	// together is corrected as written, its parts are not.
	correct := len(u.alternatives) == 1 || u.split || u.misspelt || u.completed
	ms := make([]matches, len(alternatives))
	for i, alt := range alternatives {
		// An exercise the table stands for is found by its name: a "leg
		// raise" is no calf raise of the lower legs. For a phrase of the
		// table ("lower abs"), its words in a row first: a "single-leg
		// calf raise" only after the knee raises; an abbreviation is
		// spelled out word by word, and other words may come between
		// ("cgbp dumbbell": the close-grip dumbbell bench press). A
		// spelling of what was typed ("pullup", "pull up") is what was
		// typed.
		if i > 0 && i < len(u.alternatives) && !u.split && s.exerciseName(alt) && strings.Join(alt, "") != strings.Join(u.alternatives[0], "") {
			ws := make([]matches, len(alt))
			for j, w := range alt {
				ws[j] = s.word(w, u.last && j == len(alt)-1, others, false, x)
			}
			apart := combine(ws, x.lazyAnd)
			ms[i] = apart
			if len(u.alternatives[0]) > 1 {
				// The words apart match as through a field would, below
				// the names that have them in a row ("upper chest cable":
				// the incline cable fly).
				ms[i] = combine(s.wordPairs(alt, u.last, others, x), x.lazyAnd)
			}
			ms[i].anywhere, ms[i].field = apart.inName, known(empty)
			continue
		}
		ws := make([]matches, len(alt))
		for j, w := range alt {
			ws[j] = s.word(w, u.last && j == len(alt)-1, others, correct && !((u.split || u.misspelt || u.completed) && i > 0), x)
		}
		ms[i] = combine(ws, x.lazyAnd)
	}
	return combine(ms, x.lazyOr)
}

// wordPairs returns the matches of the adjacent words of a phrase joined,
// as the index holds them (see written): the phrase's words in a row. A
// number and a word are never joined: they match apart.
func (s *searchIndex) wordPairs(alt []string, last, others bool, x *searchSets) []matches {
	var out []matches
	for j := 1; j < len(alt); j++ {
		a, b := alt[j-1], alt[j]
		if isNumber(a) == isNumber(b) {
			out = append(out, s.word(a+b, last && j == len(alt)-1, others, false, x))
			continue
		}
		out = append(out, s.word(a, false, others, false, x), s.word(b, last && j == len(alt)-1, others, false, x))
	}
	return out
}

// exerciseName reports whether a phrase of the synonym table names
// exercises rather than a vocabulary value: two words or more that are no
// equipment, muscle, body part, type or difficulty ("leg raise", "crow
// pose"; not "body weight" or "middle trapezius").
func (s *searchIndex) exerciseName(alt []string) bool {
	return len(alt) >= 2 && !s.phrases[stemmed(alt)] && s.primary[singularPhrase(alt)] == nil
}

// combine returns the matches of all of ms (op a lazyAnd) or any (op a
// lazyOr).
func combine(ms []matches, op func(...*lazy) *lazy) matches {
	if len(ms) == 1 {
		return ms[0]
	}
	var out matches
	var own, exact, ownLoose, inName, anywhere, field []*lazy
	for _, m := range ms {
		own, exact, ownLoose = append(own, m.own), append(exact, m.exact), append(ownLoose, m.ownLoose)
		inName, anywhere, field = append(inName, m.inName), append(anywhere, m.anywhere), append(field, m.field)
		out.loose, out.aliased = out.loose || m.loose, out.aliased || m.aliased
	}
	out.own, out.exact, out.inName, out.anywhere, out.field = op(own...), op(exact...), op(inName...), op(anywhere...), op(field...)
	out.ownLoose = out.inName
	if out.aliased { // else each ownLoose is its inName
		out.ownLoose = op(ownLoose...)
	}
	return out
}

// word returns the records that match w; with correct, through the terms
// within its allowed typos too, when w is no term of the catalogue.
func (s *searchIndex) word(w string, prefix, others, correct bool, x *searchSets) matches {
	t := stem(w)
	m := matches{exact: known(orEmpty(s.name[t])), own: s.ownName(t), aliased: s.aliasOnly[t] != nil}
	names, fields := []*roaring.Bitmap{orEmpty(s.name[t])}, []*roaring.Bitmap{orEmpty(s.field[t])}
	confirms := []*roaring.Bitmap{orEmpty(s.fieldWritten[singular(w)])}
	owns := []*lazy{m.own}
	// A word of the catalogue is confirmed only as it is: its completions
	// are guesses ("row" is typed, "rowing machine" is not).
	term := s.name[t] != nil || s.field[t] != nil
	var loose []string
	if correct && !term && !s.prose[w] {
		loose = s.similar(w, others)
	}
	if prefix && (len(w) >= 2 || others) {
		loose = append(loose, s.prefixed(w)...)
	}
	for _, c := range loose {
		l := s.surface[c]
		if l == t {
			continue // a prefix of itself
		}
		m.loose = true
		m.aliased = m.aliased || s.aliasOnly[l] != nil
		// A pair whose first word this word or another of loose matches
		// adds no records ("press" and "pressrow"); only the flags count
		// it.
		if first, ok := s.pairOf[c]; ok && (s.surface[first] == t && term || s.surface[first] != t && slices.Contains(loose, first)) {
			continue
		}
		names = append(names, orEmpty(s.name[l]))
		fields = append(fields, orEmpty(s.field[l]))
		if !term {
			confirms = append(confirms, orEmpty(s.fieldWritten[singular(c)]))
		}
		owns = append(owns, s.ownName(l))
	}
	m.inName = deferred(func() *roaring.Bitmap { return x.or(names...) })
	m.field = deferred(func() *roaring.Bitmap { return x.or(confirms...) })
	inName := m.inName
	m.anywhere = deferred(func() *roaring.Bitmap { return x.or(inName.get(), x.or(fields...)) })
	m.ownLoose = m.inName
	if m.aliased { // else no term is in an alias only: ownLoose is inName
		m.ownLoose = x.lazyOr(owns...)
	}
	return m
}

var empty = roaring.New()

func orEmpty(b *roaring.Bitmap) *roaring.Bitmap {
	if b == nil {
		return empty
	}
	return b
}

// ownName returns the records whose name proper has the term t.
func (s *searchIndex) ownName(t string) *lazy {
	if only := s.aliasOnly[t]; only != nil {
		return deferred(func() *roaring.Bitmap { return roaring.AndNot(orEmpty(s.name[t]), only) })
	}
	return known(orEmpty(s.name[t]))
}

// maxPrefixTerms bounds the written words a prefix expands to.
const maxPrefixTerms = 512

// prefixed returns the written words that start with w.
func (s *searchIndex) prefixed(w string) []string {
	i := sort.SearchStrings(s.sorted, w)
	j := i
	for j < len(s.sorted) && strings.HasPrefix(s.sorted[j], w) && j-i < maxPrefixTerms {
		j++
	}
	return s.sorted[i:j]
}

// allowedTypos is how many edits a word of n letters may be off by: none
// below three letters, one up to five, two from six. A word of three
// letters is corrected only when other words narrow the results.
func allowedTypos(n int, others bool) int {
	switch {
	case n < 3 || n == 3 && !others:
		return 0
	case n < 6:
		return 1
	default:
		return 2
	}
}

// similar returns the written words within allowedTypos of
// w (insertions, deletions, substitutions and swaps of neighbours), and
// those that sound like it.
func (s *searchIndex) similar(w string, others bool) (out []string) {
	k := allowedTypos(len(w), others)
	if k == 0 || isNumber(w) {
		return nil
	}
	if len(w) >= minSoundLength || others {
		out = slices.Clone(s.sounds[sound(singular(w))])
	}
	mask := letterMask(w)
	type near struct {
		word  string
		edits int
	}
	var close []near
	for n := max(1, len(w)-k); n <= len(w)+k && n < len(s.byLength); n++ {
		for _, cand := range s.byLength[n] {
			// Each edit changes at most two letters of the set.
			if bits.OnesCount32(mask^letterMask(cand)) > 2*k {
				continue
			}
			if d := editDistance(w, cand, k); d <= k {
				close = append(close, near{cand, d})
			}
		}
	}
	// A word's cost grows with its corrections: the closest
	// maxCorrections are kept.
	if len(close) > maxCorrections {
		slices.SortStableFunc(close, func(a, b near) int { return cmp.Compare(a.edits, b.edits) })
		close = close[:maxCorrections]
	}
	for _, c := range close {
		out = append(out, c.word)
	}
	return out
}

// maxCorrections is the most words within its typos a word is corrected
// to (its sound-alikes aside).
const maxCorrections = 16

// minSoundLength is the shortest word matched by its sound.
const minSoundLength = 4

// sound returns a rough key of how a written word sounds: the spellings
// of one sound that people mix up when they spell by ear are one letter
// (an x after the first letter is "ks"), doubled letters are one and a
// final e is silent, so "skwat" sounds like "squat", "jaks" and "jax"
// like "jacks", "lunj" like "lunge" and "brij" like "bridge".
func sound(w string) string {
	b := make([]byte, 0, len(w)+1)
	for i := 0; i < len(w); i++ {
		c, next := w[i], byte(0)
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch {
		case c == 'c' && next == 'k':
			continue // "ck" is "k"
		case c == 'q' && next == 'u':
			b = append(b, 'k')
			c = 'w'
			i++
		case c == 'c' && (next == 'e' || next == 'i' || next == 'y'):
			c = 's'
		case c == 'c' || c == 'q':
			c = 'k'
		case c == 'd' && next == 'g' && i+2 < len(w) && (w[i+2] == 'e' || w[i+2] == 'i' || w[i+2] == 'y'):
			continue // "dge" is a soft g: "bridge" sounds like "brij"
		case c == 'g' && (next == 'e' || next == 'i' || next == 'y'):
			c = 'j'
		case c == 'p' && next == 'h':
			c = 'f'
			i++
		case c == 'z':
			c = 's'
		case c == 'x' && i > 0 && i == len(w)-1: // "jax" is "jacks", the plural as nothing
			c = 'k'
		case c == 'x' && i > 0: // "flexion"
			b = append(b, 'k')
			c = 's'
		}
		if len(b) > 0 && b[len(b)-1] == c {
			continue
		}
		b = append(b, c)
	}
	if len(b) > 1 && b[len(b)-1] == 'e' {
		b = b[:len(b)-1]
	}
	return string(b)
}

func letterMask(s string) uint32 {
	var m uint32
	for i := 0; i < len(s); i++ {
		m |= 1 << (s[i] % 32)
	}
	return m
}

// editDistance is the optimal string alignment distance of a and b, or
// any value above limit once it exceeds it.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// maxExpansions bounds the spelled-out forms of a query tried as a whole
// name.
const maxExpansions = 32

// exactKeys returns the records whose name or alias equals the query, or
// the query with each unit replaced by one of its alternatives; with
// corrected, also the query with its typos corrected.
func (s *searchIndex) exactKeys(units []unit, corrected bool) *roaring.Bitmap {
	var out []*roaring.Bitmap
	for _, k := range s.queryKeys(units, corrected) {
		if b := s.keys[k]; b != nil {
			out = append(out, b)
		}
	}
	return or(out...)
}

// maxCompletions is the number of names and aliases that may begin with
// a query for it to count as being typed: a query that begins more is
// too short to tell them apart, and ranking by it would cost an OR of
// that many bitmaps for nothing.
const maxCompletions = 32

// completedKeys returns the records with a name or alias that begins with
// the query (or a spelled-out form of it) and is longer: the query is
// being typed. None when more than maxCompletions do, or when the query
// ends in stop words.
func (s *searchIndex) completedKeys(units []unit) *roaring.Bitmap {
	if len(units) == 0 || !units[len(units)-1].last {
		return empty
	}
	var out []*roaring.Bitmap
	for _, k := range s.queryKeys(units, false) {
		i := sort.SearchStrings(s.sortedKeys, k)
		for ; i < len(s.sortedKeys) && strings.HasPrefix(s.sortedKeys[i], k); i++ {
			if s.sortedKeys[i] == k {
				continue
			}
			if len(out) == maxCompletions {
				return empty
			}
			out = append(out, s.keys[s.sortedKeys[i]])
		}
	}
	return or(out...)
}

// queryKeys returns the keys of the query and of the query with each unit
// replaced by one of its alternatives (at most maxExpansions); with
// corrected, also with its typos corrected.
func (s *searchIndex) queryKeys(units []unit, corrected bool) []string {
	keys := []string{""}
	for _, u := range units {
		var parts []string
		for _, alt := range u.alternatives {
			parts = append(parts, nameKey(alt))
		}
		if w := u.alternatives[0]; corrected && (len(u.alternatives) == 1 || u.misspelt || u.completed) && len(w) == 1 && s.name[stem(w[0])] == nil && s.field[stem(w[0])] == nil {
			for _, c := range s.similar(w[0], len(units) > 1) {
				parts = append(parts, s.surface[c])
			}
		}
		var next []string
		for _, k := range keys {
			for _, p := range parts {
				if len(next) < maxExpansions {
					next = append(next, k+p)
				}
			}
		}
		keys = next
	}
	return keys
}
