package search

import (
	"cmp"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/exercisedb/exercisedb/catalog/internal/postings"
)

// maxNameWords caps the name lengths that ranking tells apart: names of
// more words rank together.
const maxNameWords = 8

// Index finds records by the words of their names, aliases and
// vocabulary values (analyze.go says how text becomes terms), and ranks
// them (see Search). Build it with NewIndex, Add and Finish; once
// finished, it is only read, and safe for concurrent use.
type Index struct {
	// count is the number of records added.
	count uint64
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
	shortest map[onEquipment][]shortName
	// familyNames holds, until finish, the words of the names of each
	// family (at most maxFamilyNames), and familyEquipment the number of
	// records of each family and equipment.
	familyNames     map[string][][]string
	familyEquipment map[onEquipment]int
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

// Record is what the index reads of a record: its name and aliases, the
// prose that tells real words from typos, its vocabulary values, and its
// family.
type Record struct {
	Name    string
	Aliases []string
	// Description, Instructions and Tips are read for their words only.
	Description        string
	Instructions, Tips []string
	Equipments         []string
	// TargetMuscles lists the muscles trained, the first first;
	// SecondaryMuscles those that help.
	TargetMuscles, SecondaryMuscles []string
	BodyParts, ExerciseTypes        []string
	Difficulty                      string
	// Family names the movement of which the record is a variant, and
	// Standard marks the variant its plain name means.
	Family   string
	Standard bool
}

// NewIndex returns an empty index of records whose muscles are the keys
// of bodyPartOf, which maps each to its body part.
func NewIndex(bodyPartOf map[string]string) *Index {
	s := &Index{
		name: map[string]*roaring.Bitmap{}, field: map[string]*roaring.Bitmap{}, aliasOnly: map[string]*roaring.Bitmap{},
		keys: map[string]*roaring.Bitmap{}, memo: map[string][]string{}, surface: map[string]string{}, firstOf: map[string]string{},
		head: map[string]*roaring.Bitmap{}, familyWord: map[string]*roaring.Bitmap{}, familyRecords: map[string]*roaring.Bitmap{}, familySize: map[string]int{}, standardOf: map[string]uint32{},
		fieldWritten: map[string]*roaring.Bitmap{}, singulars: map[string][]string{}, whole: map[string]bool{},
		primary: map[string]*roaring.Bitmap{}, partOf: map[string]string{}, secondTargets: map[string]*roaring.Bitmap{},
		strength: roaring.New(), loaded: roaring.New(), types: map[string]bool{}, anatomy: map[string]bool{}, muscles: map[string]bool{},
		equipmentStaples: map[string][]*roaring.Bitmap{}, shortest: map[onEquipment][]shortName{},
		familyNames: map[string][][]string{}, familyEquipment: map[onEquipment]int{},
		equipmentOf: map[uint32][]string{}, phrases: map[string]bool{}, prose: map[string]bool{}, proseSeen: map[string]bool{},
	}
	for muscle, part := range bodyPartOf {
		s.partOf[muscle] = part
		s.anatomy[singularPhrase(words(muscle))] = true
		s.muscles[singularPhrase(words(muscle))] = true
		s.anatomy[singularPhrase(words(part))] = true
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

// onEquipment names a family's records on an equipment.
type onEquipment struct{ family, equipment string }

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
func (s *Index) terms(text string) []string {
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

// Add indexes the record x at pos. Positions are added once each, in
// any order; the catalogue's are in id order, which ranking breaks ties
// by.
func (s *Index) Add(pos uint32, x *Record) {
	s.count++
	own := s.terms(x.Name)
	for _, text := range append([]string{x.Name}, x.Aliases...) {
		for _, t := range s.terms(text) {
			postings.Add(s.name, t, pos)
			if text != x.Name && !slices.Contains(own, t) {
				postings.Add(s.aliasOnly, t, pos)
			}
		}
		ws := words(text)
		for _, w := range ws {
			if !isNumber(w) { // numbers are never joined (see written)
				s.whole[stem(w)] = true
			}
		}
		postings.Add(s.keys, nameKey(ws), pos)
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
		postings.Add(s.primary, singularPhrase(words(v)), pos)
	}
	for _, m := range x.TargetMuscles[min(1, len(x.TargetMuscles)):] {
		postings.Add(s.secondTargets, singularPhrase(words(m)), pos)
		postings.Add(s.secondTargets, singularPhrase(words(s.partOf[m])), pos)
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
		postings.Add(s.head, h, pos)
	}
	if x.Family != "" {
		postings.Add(s.familyRecords, x.Family, pos)
	}
	ws := words(x.Name)
	s.words[min(len(ws), maxNameWords)].Add(pos)
	if x.Family != "" {
		s.familySize[x.Family]++
		if names := s.familyNames[x.Family]; len(names) < maxFamilyNames {
			s.familyNames[x.Family] = append(names, ws)
		}
		for _, e := range x.Equipments {
			s.familyEquipment[onEquipment{x.Family, e}]++
		}
		if x.Standard {
			// A family's name is a name of its standard form, the version
			// its plain name means: "biceps curl" is the barbell curl.
			postings.Add(s.keys, nameKey(words(x.Family)), pos)
			s.standardOf[x.Family] = pos
			s.equipmentOf[pos] = x.Equipments
		}
		for _, e := range x.Equipments {
			// A landmine lateral raise is no barbell staple: a record
			// stands for its equipment alone, or for one its name says.
			if len(x.Equipments) > 1 && !names(ws, e) {
				continue
			}
			k := onEquipment{x.Family, e}
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
func (s *Index) addField(pos uint32, v string, confirms bool) {
	for _, t := range s.terms(v) {
		postings.Add(s.field, t, pos)
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
		postings.Add(s.fieldWritten, w, pos)
	}
}

// Finish optimises the bitmaps and lists the terms for lookups, after the
// last Add.
func (s *Index) Finish() {
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
		family, e := k.family, k.equipment
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
			if n, m := s.familyEquipment[k], s.familyEquipment[onEquipment{family, r}]; r == "" || n > m || n == m && e < r {
				rival[family] = e
			}
		}
	}
	var rivals [len(standardRanks)][maxNameWords + 1]*roaring.Bitmap
	rivalOf := map[uint32]bool{}
	for family, e := range rival {
		best := s.version(family, s.shortest[onEquipment{family, e}])
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

// Terms returns the number of distinct terms the index holds, of names
// and of fields, which its size grows with.
func (s *Index) Terms() int { return len(s.name) + len(s.field) }
