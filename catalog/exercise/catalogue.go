package exercise

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/exercisedb/exercisedb/catalog/internal/postings"
	"github.com/exercisedb/exercisedb/catalog/search"
	"github.com/exercisedb/exercisedb/pkg/bytecache"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
)

// The vocabulary-valued fields that can be filtered on, in Filter order.
const (
	byBodyPart = iota
	byEquipment
	byDifficulty
	byExerciseType
	byTargetMuscle
	bySecondaryMuscle
	byMovementPattern
	byMechanics
	byForce
	byLaterality
	byMeasure
	numIndexedFields
)

// resolvedCacheSize bounds how many computed filter results (unions,
// intersections, name matches) a catalogue keeps, and how many ranked lists.
// A single vocabulary value needs no entry: its posting list is used as is.
const resolvedCacheSize = 1024

// DefaultCacheBytes is the default bound of the bytes a catalogue keeps
// of computed filter results and ranked lists (see CacheBytes).
const DefaultCacheBytes = 32 << 20

// Option sets up a catalogue.
type Option func(*options)

type options struct{ cacheBytes int64 }

// CacheBytes bounds the bytes of the computed filter results and ranked
// lists (searches, relations) a catalogue keeps, half each, by an
// estimate of their size: with a million records, one search may keep a
// few hundred kilobytes. n must be positive.
func CacheBytes(n int64) Option { return func(o *options) { o.cacheBytes = n } }

// Catalogue is a loaded, validated and indexed catalogue. Records are held
// in id order, and a record's position in that order is its number in every
// posting list, so a filter result is a bitmap of positions and a page is a
// walk through it from the cursor's position.
type Catalogue struct {
	version   string
	format    string
	exercises []Exercise // sorted by ID
	// positions maps each id to its record's position: a page looks up
	// every record's JSON by id, and a binary search over the records'
	// ids cost a sixth of the catalog's CPU per listing.
	positions map[string]uint32
	vocab     Vocabularies

	all      *roaring.Bitmap
	postings [numIndexedFields]map[string]*roaring.Bitmap
	// nameKeys holds SearchKey(name) by position; trigrams maps every
	// three-byte substring of a name key to the positions holding it.
	nameKeys []string
	trigrams map[string]*roaring.Bitmap

	// families and patterns map each family and movement pattern to the
	// positions of its records (version 2 files only).
	families map[string]*roaring.Bitmap
	patterns map[string]*roaring.Bitmap
	// standards holds the families' standard forms.
	standards *roaring.Bitmap
	// equipmentSets maps each distinct set of equipments (equipmentSetKey)
	// to the positions of the records that need exactly that set.
	equipmentSets map[string]*roaring.Bitmap

	searchIdx *search.Index
	// facetValues counts each facet's values.
	facetValues map[Facet]*valueSets

	// json holds each record's public JSON by position, encoded on first
	// use (see JSON).
	json []atomic.Pointer[exercisejson.Fragments]

	resolved *bytecache.Cache[string, *roaring.Bitmap]
	// rankings keeps ranked lists (relations, search results) by what
	// they rank and the filter's key.
	rankings *bytecache.Cache[string, *ranked]
}

// New indexes a catalogue file. Decode validates a file fully; New only
// refuses what would break the index (duplicate ids, undeclared values).
func New(f *File, opts ...Option) (*Catalogue, error) {
	o := options{cacheBytes: DefaultCacheBytes}
	for _, opt := range opts {
		opt(&o)
	}
	c := &Catalogue{
		format:    cmp.Or(f.Format, FormatV1),
		exercises: slices.Clone(f.Exercises),
		vocab:     sortedVocabularies(f.Vocabularies),
		all:       roaring.New(),
		trigrams:  make(map[string]*roaring.Bitmap),
		families:  make(map[string]*roaring.Bitmap),
		patterns:  make(map[string]*roaring.Bitmap),
		standards: roaring.New(),

		equipmentSets: make(map[string]*roaring.Bitmap),
		searchIdx:     search.NewIndex(bodyPartOf(f.Vocabularies.Muscles)),
	}
	slices.SortFunc(c.exercises, func(a, b Exercise) int { return strings.Compare(a.ID, b.ID) })
	if len(c.exercises) > 1<<31 {
		return nil, fmt.Errorf("%d exercises: too many to index", len(c.exercises))
	}
	c.positions = make(map[string]uint32, len(c.exercises))
	for i := range c.exercises {
		id := c.exercises[i].ID
		if _, dup := c.positions[id]; dup {
			return nil, fmt.Errorf("duplicate exercise id %q", id)
		}
		c.positions[id] = uint32(i)
	}
	// Every declared value has a posting list, empty if no record uses it,
	// so a filter value is known exactly when it has one.
	declared := [numIndexedFields][]string{
		byBodyPart:        Names(c.vocab.BodyParts),
		byEquipment:       Names(c.vocab.Equipments),
		byDifficulty:      Names(c.vocab.Difficulties),
		byExerciseType:    Names(c.vocab.ExerciseTypes),
		byTargetMuscle:    Names(c.vocab.Muscles),
		bySecondaryMuscle: Names(c.vocab.Muscles),
		byMovementPattern: Names(c.vocab.MovementPatterns),
		byMechanics:       Names(c.vocab.Mechanics),
		byForce:           Names(c.vocab.Forces),
		byLaterality:      Names(c.vocab.Lateralities),
		byMeasure:         Names(c.vocab.Measures),
	}
	for i, names := range declared {
		c.postings[i] = make(map[string]*roaring.Bitmap, len(names))
		for _, n := range names {
			c.postings[i][n] = roaring.New()
		}
	}
	c.nameKeys = make([]string, len(c.exercises))
	c.json = make([]atomic.Pointer[exercisejson.Fragments], len(c.exercises))
	for i := range c.exercises {
		if err := c.index(uint32(i), &c.exercises[i]); err != nil {
			return nil, err
		}
	}
	c.all.RunOptimize()
	for _, m := range c.postings {
		for _, b := range m {
			b.RunOptimize()
		}
	}
	c.searchIdx.Finish()
	c.facetValues = make(map[Facet]*valueSets, len(facetFields))
	for facet, field := range facetFields {
		c.facetValues[facet] = newValueSets(c.postings[field], len(c.exercises))
	}
	c.standards.RunOptimize()
	for _, m := range []map[string]*roaring.Bitmap{c.trigrams, c.families, c.patterns, c.equipmentSets} {
		for _, b := range m {
			b.RunOptimize()
		}
	}
	c.resolved = bytecache.New[string, *roaring.Bitmap](resolvedCacheSize, max(1, o.cacheBytes/2))
	c.rankings = bytecache.New[string, *ranked](resolvedCacheSize, max(1, o.cacheBytes/2))
	var err error
	if c.version, err = versionOf(c); err != nil {
		return nil, err
	}
	return c, nil
}

// Load decodes, validates and indexes a catalogue file.
func Load(data []byte, opts ...Option) (*Catalogue, error) {
	f, err := Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return New(f, opts...)
}

// CacheStats reports the values the catalogue keeps of computed filter
// results and ranked lists, their estimated bytes, and the bound.
func (c *Catalogue) CacheStats() (entries int, bytes, maxBytes int64) {
	return c.resolved.Len() + c.rankings.Len(), c.resolved.Bytes() + c.rankings.Bytes(), c.resolved.MaxBytes() + c.rankings.MaxBytes()
}

func (c *Catalogue) index(pos uint32, x *Exercise) error {
	c.all.Add(pos)
	var err error
	post := func(field int, values ...string) {
		for _, v := range values {
			b, ok := c.postings[field][v]
			if !ok {
				err = fmt.Errorf("exercise %q: %s %q is not declared", x.ID, filterFields[field].field, v)
				continue
			}
			b.Add(pos)
		}
	}
	post(byBodyPart, x.BodyParts...)
	post(byEquipment, x.Equipments...)
	post(byDifficulty, x.Difficulty)
	post(byExerciseType, x.ExerciseTypes...)
	post(byTargetMuscle, x.TargetMuscles...)
	post(bySecondaryMuscle, x.SecondaryMuscles...)
	if t := x.Training; t != nil {
		post(byMovementPattern, t.MovementPattern)
		post(byMechanics, t.Mechanics)
		post(byForce, t.Force)
		post(byLaterality, t.Laterality)
		post(byMeasure, t.Measure)
	}

	postings.Add(c.families, x.Family, pos)
	postings.Add(c.patterns, x.Pattern, pos)
	if x.Standard {
		c.standards.Add(pos)
	}
	postings.Add(c.equipmentSets, equipmentSetKey(x.Equipments), pos)
	c.searchIdx.Add(pos, searchRecord(x))

	key := SearchKey(x.Name)
	c.nameKeys[pos] = key
	for i := 0; i+3 <= len(key); i++ {
		postings.Add(c.trigrams, key[i:i+3], pos)
	}
	return err
}

// Version identifies the catalogue's content: a hash of its canonical
// encoding, the same whatever the order of the file it was loaded from.
func (c *Catalogue) Version() string { return c.version }

// All returns the records in id order. They are shared with the catalogue
// and must be treated as read-only.
func (c *Catalogue) All() iter.Seq[*Exercise] {
	return func(yield func(*Exercise) bool) {
		for i := range c.exercises {
			if !yield(&c.exercises[i]) {
				return
			}
		}
	}
}

// Len returns the number of exercises.
func (c *Catalogue) Len() int { return len(c.exercises) }

// Vocabularies returns the reference lists, each sorted by name. The result
// is shared and must not be modified.
func (c *Catalogue) Vocabularies() *Vocabularies { return &c.vocab }

// Exercise returns the exercise with the given id.
func (c *Catalogue) Exercise(id string) (Exercise, error) {
	if !ValidID(id) {
		return Exercise{}, &ArgumentError{Violations: []FieldError{{
			Field: FieldID, Value: id, Description: malformedID,
		}}}
	}
	pos, ok := c.position(id)
	if !ok {
		return Exercise{}, ErrNotFound
	}
	return c.exercises[pos], nil
}

// JSON returns the public JSON of the exercise with the given id, nil if
// there is none. A record is encoded the first time it is asked for and
// kept with the catalogue, so that a reply copies bytes instead of
// encoding them: a 1,000,000-record catalogue holds the JSON of the
// records asked for, not of all.
func (c *Catalogue) JSON(id string) *exercisejson.Fragments {
	pos, ok := c.position(id)
	if !ok {
		return nil
	}
	return c.jsonAt(pos)
}

// PageJSON returns the public JSON of the page's i-th record, as JSON
// does for its id but, for a page c made, without looking the id up. A
// page of another catalogue (one replaced by a reload) or made by hand is
// looked up by id.
func (c *Catalogue) PageJSON(p *Page, i int) *exercisejson.Fragments {
	x := p.Exercises[i]
	if i < len(p.positions) {
		if pos := p.positions[i]; int(pos) < len(c.exercises) && &c.exercises[pos] == x {
			return c.jsonAt(pos)
		}
	}
	return c.JSON(x.ID)
}

// jsonAt returns the public JSON of the record at position pos, encoding
// it the first time.
func (c *Catalogue) jsonAt(pos uint32) *exercisejson.Fragments {
	if f := c.json[pos].Load(); f != nil {
		return f
	}
	x := &c.exercises[pos]
	f := exercisejson.Encode(&exercisejson.Record{
		ID: x.ID, Name: x.Name, Equipments: x.Equipments, BodyParts: x.BodyParts, ExerciseTypes: x.ExerciseTypes,
		Difficulty: x.Difficulty, TargetMuscles: x.TargetMuscles, SecondaryMuscles: x.SecondaryMuscles,
		Description: x.Description, Instructions: x.Instructions, Tips: x.Tips, Aliases: x.Aliases,
		Training: x.Training,
	})
	c.json[pos].Store(f) // a racing call stores equal bytes
	return f
}

// position returns the index of the exercise with the given id.
func (c *Catalogue) position(id string) (uint32, bool) {
	pos, ok := c.positions[id]
	return pos, ok
}

func sortedVocabularies(v Vocabularies) Vocabularies {
	out := Vocabularies{
		BodyParts:     sortedTerms(v.BodyParts),
		Equipments:    sortedTerms(v.Equipments),
		Difficulties:  slices.Clone(v.Difficulties), // kept in file order: easiest first
		Muscles:       slices.SortedFunc(slices.Values(v.Muscles), func(a, b Muscle) int { return cmp.Compare(a.Name, b.Name) }),
		ExerciseTypes: slices.SortedFunc(slices.Values(v.ExerciseTypes), func(a, b ExerciseType) int { return cmp.Compare(a.Name, b.Name) }),

		MovementPatterns: sortedTerms(v.MovementPatterns),
		// The closed training lists keep the file's order, which reads as
		// a scale (reps, time, distance) rather than an alphabet.
		Mechanics:    slices.Clone(v.Mechanics),
		Forces:       slices.Clone(v.Forces),
		Lateralities: slices.Clone(v.Lateralities),
		Measures:     slices.Clone(v.Measures),
	}
	return out
}

// sortedTerms returns a copy of ts sorted by name; nil stays nil, so that
// a file without a vocabulary encodes as it was.
func sortedTerms(ts []Term) []Term {
	if ts == nil {
		return nil
	}
	return slices.SortedFunc(slices.Values(ts), func(a, b Term) int { return cmp.Compare(a.Name, b.Name) })
}

// versionOf hashes the catalogue's content as its file would hold it.
func versionOf(c *Catalogue) (string, error) {
	h := sha256.New()
	if err := Encode(h, &File{Format: c.format, Vocabularies: c.vocab, Exercises: c.exercises}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
