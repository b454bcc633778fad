package exercise

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// The values of the "format" member. Version 2 adds each record's content
// (description, instructions, tips, aliases) and its family and movement
// pattern, all required but aliases; version 1 files still load, with
// records that have no content and no relations.
const (
	FormatV1 = "exercisedb-catalogue/v1"
	FormatV2 = "exercisedb-catalogue/v2"
)

// Bounds of a record's content.
const (
	MinInstructions = 3
	MaxInstructions = 10
	MinTips         = 1
	MaxTips         = 5
	// MaxTextLength bounds each description, step, tip and alias.
	MaxTextLength = 600
)

// File is the catalogue file: a JSON object with the format name, the
// vocabularies and the exercises. docs/catalogue-format.md describes it.
type File struct {
	Format       string       `json:"format"`
	Vocabularies Vocabularies `json:"vocabularies"`
	Exercises    []Exercise   `json:"exercises"`
}

// maxLoadErrors bounds how many problems one load reports.
const maxLoadErrors = 20

var mediaKeyPattern = regexp.MustCompile(`^[A-Za-z0-9._/-]{1,128}$`)

// Decode reads and validates a catalogue file. Every problem it finds (up to
// 20) is reported, each naming the record and the field: unknown members,
// missing required fields, duplicate ids, malformed ids and media keys, and
// values outside the file's declared vocabularies.
func Decode(r io.Reader) (*File, error) {
	var top struct {
		Format       string            `json:"format"`
		Vocabularies json.RawMessage   `json:"vocabularies"`
		Exercises    []json.RawMessage `json:"exercises"`
	}
	if err := decodeStrict(r, &top); err != nil {
		return nil, fmt.Errorf("catalogue file: %w", err)
	}
	if top.Format != FormatV1 && top.Format != FormatV2 {
		return nil, fmt.Errorf("catalogue file: format is %q, want %q or %q", top.Format, FormatV2, FormatV1)
	}
	f := &File{Format: top.Format}
	if top.Vocabularies == nil {
		return nil, errors.New("catalogue file: vocabularies: missing")
	}
	if err := decodeStrict(bytes.NewReader(top.Vocabularies), &f.Vocabularies); err != nil {
		return nil, fmt.Errorf("catalogue file: vocabularies: %w", err)
	}
	var problems problemList
	vocab := checkVocabularies(&f.Vocabularies, &problems)

	f.Exercises = make([]Exercise, 0, len(top.Exercises))
	seen := make(map[string]int, len(top.Exercises))
	for i, raw := range top.Exercises {
		rec := recordProblems{list: &problems, where: fmt.Sprintf("exercises[%d]", i)}
		x, ok := decodeExercise(raw, f.Format == FormatV2, &rec)
		if !ok {
			continue
		}
		if first, dup := seen[x.ID]; dup {
			rec.add("id", "duplicate id, also used by exercises[%d]", first)
		} else {
			seen[x.ID] = i
		}
		vocab.check(&x, &rec)
		f.Exercises = append(f.Exercises, x)
	}
	if len(top.Exercises) == 0 {
		problems.add("catalogue file: exercises: none")
	}
	checkAliases(f.Exercises, &problems)
	checkStandards(f.Exercises, &problems)
	if err := problems.err(); err != nil {
		return nil, err
	}
	return f, nil
}

// Encode writes f as indented JSON with the exercises in id order, so that
// a generated file is stable under re-ordering of its source. It writes a
// member and a record at a time, the bytes encoding/json would write for
// the whole File: encoding it whole held the entire document in memory
// (about 12 MB for 2,000 records with content), which set the catalog's
// peak RSS when it hashed its version.
func Encode(w io.Writer, f *File) error {
	exercises := slices.Clone(f.Exercises)
	slices.SortFunc(exercises, func(a, b Exercise) int { return strings.Compare(a.ID, b.ID) })
	out := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// value writes v as it stands at an indentation of prefix.
	value := func(prefix string, v any) error {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := out.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return err
	}
	out.WriteString("{\n  \"format\": ")
	if err := value("  ", f.Format); err != nil {
		return err
	}
	out.WriteString(",\n  \"vocabularies\": ")
	if err := value("  ", &f.Vocabularies); err != nil {
		return err
	}
	out.WriteString(",\n  \"exercises\": ")
	switch {
	case f.Exercises == nil:
		out.WriteString("null")
	case len(exercises) == 0:
		out.WriteString("[]")
	default:
		out.WriteString("[")
		for i := range exercises {
			x := &exercises[i]
			// A record without secondary muscles has an empty list, never
			// null: the member is required.
			if x.SecondaryMuscles == nil {
				x.SecondaryMuscles = []string{}
			}
			if i > 0 {
				out.WriteString(",")
			}
			out.WriteString("\n    ")
			if err := value("    ", x); err != nil {
				return err
			}
		}
		out.WriteString("\n  ]")
	}
	out.WriteString("\n}\n")
	return out.Flush()
}

// fileExercise is an exercise as written in the file, with pointers so that
// a missing member can be told from an empty one.
type fileExercise struct {
	ID               *string   `json:"id"`
	Name             *string   `json:"name"`
	BodyParts        *[]string `json:"bodyParts"`
	Equipments       *[]string `json:"equipments"`
	ExerciseTypes    *[]string `json:"exerciseTypes"`
	Difficulty       *string   `json:"difficulty"`
	TargetMuscles    *[]string `json:"targetMuscles"`
	SecondaryMuscles *[]string `json:"secondaryMuscles"`
	MediaKey         *string   `json:"mediaKey"`
	Description      *string   `json:"description"`
	Instructions     *[]string `json:"instructions"`
	Tips             *[]string `json:"tips"`
	Aliases          *[]string `json:"aliases"`
	Family           *string   `json:"family"`
	Pattern          *string   `json:"pattern"`
	Standard         *bool     `json:"standard"`
	Training         *Training `json:"training"`
}

func decodeExercise(raw json.RawMessage, v2 bool, rec *recordProblems) (Exercise, bool) {
	var fx fileExercise
	if err := decodeStrict(bytes.NewReader(raw), &fx); err != nil {
		// Name the record by its id if the lenient decoding finds one.
		var named struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &named) == nil && named.ID != "" {
			rec.where += fmt.Sprintf(" (id %q)", named.ID)
		}
		rec.list.add("%s: %v", rec.where, err)
		return Exercise{}, false
	}
	str := func(field string, p *string, required bool) string {
		switch {
		case p == nil && required:
			rec.add(field, "missing")
		case p != nil && strings.TrimSpace(*p) == "":
			rec.add(field, "empty")
		case p != nil:
			return *p
		}
		return ""
	}
	list := func(field string, p *[]string, nonEmpty bool) []string {
		switch {
		case p == nil:
			rec.add(field, "missing")
			return nil
		case nonEmpty && len(*p) == 0:
			rec.add(field, "empty, at least one value is required")
		}
		return *p
	}
	x := Exercise{ID: str("id", fx.ID, true)}
	if x.ID != "" {
		rec.where += fmt.Sprintf(" (id %q)", x.ID)
		if !ValidID(x.ID) {
			rec.add("id", "malformed: want 1 to %d characters of [A-Za-z0-9_-]", MaxIDLength)
		}
	}
	x.Name = str("name", fx.Name, true)
	x.BodyParts = list("bodyParts", fx.BodyParts, true)
	x.Equipments = list("equipments", fx.Equipments, true)
	x.ExerciseTypes = list("exerciseTypes", fx.ExerciseTypes, true)
	x.Difficulty = str("difficulty", fx.Difficulty, true)
	x.TargetMuscles = list("targetMuscles", fx.TargetMuscles, true)
	x.SecondaryMuscles = list("secondaryMuscles", fx.SecondaryMuscles, false)
	x.MediaKey = str("mediaKey", fx.MediaKey, false)
	if x.MediaKey != "" && !mediaKeyPattern.MatchString(x.MediaKey) {
		rec.add("mediaKey", "malformed: want 1 to 128 characters of [A-Za-z0-9._/-]")
	}
	if x.SecondaryMuscles == nil {
		x.SecondaryMuscles = []string{}
	}
	if !v2 {
		v2only := []struct {
			field   string
			present bool
		}{
			{"description", fx.Description != nil}, {"instructions", fx.Instructions != nil}, {"tips", fx.Tips != nil},
			{"aliases", fx.Aliases != nil}, {"family", fx.Family != nil}, {"pattern", fx.Pattern != nil},
			{"standard", fx.Standard != nil}, {"training", fx.Training != nil},
		}
		for _, m := range v2only {
			if m.present {
				rec.add(m.field, "only allowed in format %q", FormatV2)
			}
		}
		return x, true
	}
	x.Description = str("description", fx.Description, true)
	x.Family = str("family", fx.Family, true)
	x.Pattern = str("pattern", fx.Pattern, true)
	x.Standard = fx.Standard != nil && *fx.Standard
	x.Training = fx.Training
	if x.Training != nil {
		checkTraining(rec, &x)
	}
	x.Instructions = texts(rec, "instructions", fx.Instructions, MinInstructions, MaxInstructions)
	x.Tips = texts(rec, "tips", fx.Tips, MinTips, MaxTips)
	if fx.Aliases != nil {
		x.Aliases = texts(rec, "aliases", fx.Aliases, 0, -1)
	}
	if len(x.Description) > MaxTextLength {
		rec.add("description", "longer than %d bytes", MaxTextLength)
	}
	for i, a := range x.Aliases {
		if Canonical(a) != a {
			rec.add(fmt.Sprintf("aliases[%d]", i), "%q is not canonical, write %q", a, Canonical(a))
		}
	}
	return x, true
}

// texts checks a list of content strings: its length within min..max (max
// -1: unbounded) and every entry non-blank and at most MaxTextLength bytes.
func texts(rec *recordProblems, field string, p *[]string, min, max int) []string {
	switch {
	case p == nil:
		rec.add(field, "missing")
		return nil
	case len(*p) < min || (max >= 0 && len(*p) > max):
		rec.add(field, "%d entries, want %d to %d", len(*p), min, max)
	}
	for i, t := range *p {
		switch {
		case strings.TrimSpace(t) == "":
			rec.add(fmt.Sprintf("%s[%d]", field, i), "empty")
		case len(t) > MaxTextLength:
			rec.add(fmt.Sprintf("%s[%d]", field, i), "longer than %d bytes", MaxTextLength)
		}
	}
	return *p
}

// checkTraining checks what the vocabularies cannot: a movement pattern
// equal to the record's pattern, and a prescription whose unit is the
// measure's, each range [low, high] with 1 <= low <= high.
func checkTraining(rec *recordProblems, x *Exercise) {
	t := x.Training
	if t.MovementPattern != x.Pattern {
		rec.add("training.movementPattern", "%q differs from pattern %q", t.MovementPattern, x.Pattern)
	}
	p := &t.Prescription
	checkRange(rec, "training.prescription.sets", p.Sets, true)
	units := []struct {
		measure, field string
		r              []int
	}{{"reps", "reps", p.Reps}, {"time", "seconds", p.Seconds}, {"distance", "meters", p.Meters}}
	for _, u := range units {
		checkRange(rec, "training.prescription."+u.field, u.r, u.measure == t.Measure)
		if u.measure != t.Measure && u.r != nil {
			rec.add("training.prescription."+u.field, "not allowed with measure %q", t.Measure)
		}
	}
}

// checkRange checks a range [low, high], required or absent.
func checkRange(rec *recordProblems, field string, r []int, required bool) {
	switch {
	case r == nil && required:
		rec.add(field, "missing")
	case r == nil:
	case len(r) != 2 || r[0] < 1 || r[0] > r[1]:
		rec.add(field, "%v is not a range [low, high] with 1 <= low <= high", r)
	}
}

// checkAliases refuses an alias that two records claim, or that is another
// record's name, compared by SearchKey as a search would compare them.
func checkAliases(xs []Exercise, problems *problemList) {
	owner := make(map[string]string, len(xs))
	for _, x := range xs {
		owner[SearchKey(x.Name)] = x.ID
	}
	for _, x := range xs {
		for _, a := range x.Aliases {
			k := SearchKey(a)
			switch prev, taken := owner[k]; {
			case !taken:
				owner[k] = x.ID
			case prev == x.ID:
				problems.add("exercise %q: alias %q: repeats its own name or another of its aliases", x.ID, a)
			default:
				problems.add("exercise %q: alias %q: also claimed by exercise %q (as its name or an alias)", x.ID, a, prev)
			}
		}
	}
}

// checkStandards refuses a second standard form in a family.
func checkStandards(xs []Exercise, problems *problemList) {
	standard := map[string]string{}
	for _, x := range xs {
		if !x.Standard {
			continue
		}
		if prev, taken := standard[x.Family]; taken {
			problems.add("exercise %q: standard: family %q already has exercise %q as its standard form", x.ID, x.Family, prev)
			continue
		}
		standard[x.Family] = x.ID
	}
}

// vocabularySets holds the declared values of each vocabulary.
type vocabularySets struct {
	bodyParts, muscles, equipments, exerciseTypes, difficulties map[string]bool
	// The training vocabularies, empty when the file declares none.
	movementPatterns, mechanics, forces, lateralities, measures map[string]bool
}

func checkVocabularies(v *Vocabularies, problems *problemList) vocabularySets {
	set := func(field string, names []string) map[string]bool {
		m := make(map[string]bool, len(names))
		if len(names) == 0 && !optionalVocabularies[field] {
			problems.add("vocabularies.%s: empty", field)
		}
		for i, n := range names {
			switch {
			case n == "":
				problems.add("vocabularies.%s[%d]: name: missing", field, i)
			case Canonical(n) != n:
				problems.add("vocabularies.%s[%d]: name %q: not canonical, write %q", field, i, n, Canonical(n))
			case m[n]:
				problems.add("vocabularies.%s[%d]: name %q: duplicate", field, i, n)
			}
			m[n] = true
		}
		return m
	}
	s := vocabularySets{
		bodyParts:     set("bodyParts", Names(v.BodyParts)),
		muscles:       set("muscles", Names(v.Muscles)),
		equipments:    set("equipments", Names(v.Equipments)),
		exerciseTypes: set("exerciseTypes", Names(v.ExerciseTypes)),
		difficulties:  set("difficulties", Names(v.Difficulties)),

		movementPatterns: set("movementPatterns", Names(v.MovementPatterns)),
		mechanics:        set("mechanics", Names(v.Mechanics)),
		forces:           set("forces", Names(v.Forces)),
		lateralities:     set("lateralities", Names(v.Lateralities)),
		measures:         set("measures", Names(v.Measures)),
	}
	for i, m := range v.Muscles {
		if !s.bodyParts[m.BodyPart] {
			problems.add("vocabularies.muscles[%d] (%q): bodyPart %q: not in vocabularies.bodyParts", i, m.Name, m.BodyPart)
		}
	}
	for i, t := range v.ExerciseTypes {
		if !mediaKeyPattern.MatchString(t.MediaKey) {
			problems.add("vocabularies.exerciseTypes[%d] (%q): mediaKey %q: want 1 to 128 characters of [A-Za-z0-9._/-]", i, t.Name, t.MediaKey)
		}
	}
	return s
}

// optionalVocabularies may be absent: a file whose records have no
// training needs none of them.
var optionalVocabularies = map[string]bool{
	"movementPatterns": true, "mechanics": true, "forces": true, "lateralities": true, "measures": true,
}

func (s vocabularySets) check(x *Exercise, rec *recordProblems) {
	values := func(field, vocabulary string, declared map[string]bool, vs []string) {
		seen := make(map[string]bool, len(vs))
		for _, v := range vs {
			switch {
			case !declared[v]:
				rec.add(field, "value %q is not in vocabularies.%s", v, vocabulary)
			case seen[v]:
				rec.add(field, "value %q is listed twice", v)
			}
			seen[v] = true
		}
	}
	values("bodyParts", "bodyParts", s.bodyParts, x.BodyParts)
	values("equipments", "equipments", s.equipments, x.Equipments)
	values("exerciseTypes", "exerciseTypes", s.exerciseTypes, x.ExerciseTypes)
	values("targetMuscles", "muscles", s.muscles, x.TargetMuscles)
	values("secondaryMuscles", "muscles", s.muscles, x.SecondaryMuscles)
	if x.Difficulty != "" {
		values("difficulty", "difficulties", s.difficulties, []string{x.Difficulty})
	}
	if t := x.Training; t != nil {
		for _, f := range []struct {
			field, vocabulary string
			declared          map[string]bool
			value             string
		}{
			{"training.movementPattern", "movementPatterns", s.movementPatterns, t.MovementPattern},
			{"training.mechanics", "mechanics", s.mechanics, t.Mechanics},
			{"training.force", "forces", s.forces, t.Force},
			{"training.laterality", "lateralities", s.lateralities, t.Laterality},
			{"training.measure", "measures", s.measures, t.Measure},
		} {
			if f.value == "" {
				rec.add(f.field, "missing")
				continue
			}
			values(f.field, f.vocabulary, f.declared, []string{f.value})
		}
	} else if len(s.movementPatterns) > 0 && x.Pattern != "" {
		values("pattern", "movementPatterns", s.movementPatterns, []string{x.Pattern})
	}
}

// decodeStrict decodes one JSON value, refusing unknown members and
// trailing data, with error messages free of the "json: " prefix.
func decodeStrict(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			where := typeErr.Field
			if where == "" {
				where = "the file"
			}
			return fmt.Errorf("%s: a JSON %s where %s belongs", where, typeErr.Value, jsonKind(typeErr.Type))
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// problemList collects load problems up to maxLoadErrors.
type problemList struct {
	msgs    []string
	dropped int
}

func (p *problemList) add(format string, args ...any) {
	if len(p.msgs) >= maxLoadErrors {
		p.dropped++
		return
	}
	p.msgs = append(p.msgs, fmt.Sprintf(format, args...))
}

func (p *problemList) err() error {
	if len(p.msgs) == 0 {
		return nil
	}
	msg := "invalid catalogue file:\n  " + strings.Join(p.msgs, "\n  ")
	if p.dropped > 0 {
		msg += fmt.Sprintf("\n  ... and %d more", p.dropped)
	}
	return errors.New(msg)
}

// recordProblems adds problems about one record's fields.
type recordProblems struct {
	list  *problemList
	where string
}

func (r *recordProblems) add(field, format string, args ...any) {
	r.list.add("%s: field %q: %s", r.where, field, fmt.Sprintf(format, args...))
}

// jsonKind words the JSON value that decodes into t, for messages that
// must not name Go types.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	default:
		return "another value"
	}
}
