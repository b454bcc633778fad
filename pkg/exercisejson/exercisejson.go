// Package exercisejson writes exercises in the public API's JSON, byte for
// byte what encoding/json writes for that shape with HTML escaping off (a
// fuzz test holds them equal). An exercise is written in fragments, so that
// the catalog encodes each record once and the gateway splices in what
// depends on the product (the image URL) and on the request (the content
// fields asked for) without decoding anything:
//
//	{"exerciseId":…,"secondaryMuscles":[…]  head
//	,"imageUrl":"…"                          the product's, when the record has media
//	,"description":"…",…,"training":{…}      the content fields asked for
//	}
package exercisejson

import (
	"strconv"
	"unicode/utf8"
)

// Record is an exercise as the public API shows it, but for its image URL.
// Absent lists are written as [].
type Record struct {
	ID, Name                             string
	Equipments, BodyParts, ExerciseTypes []string
	Difficulty                           string
	TargetMuscles, SecondaryMuscles      []string
	Description                          string
	Instructions, Tips, Aliases          []string
	// Training is written only when present (a catalogue file of an
	// older format has none).
	Training *Training
}

// Training is what an app programs a record with. It is also the
// catalogue file's shape of it, hence the tags.
type Training struct {
	MovementPattern string       `json:"movementPattern"`
	Mechanics       string       `json:"mechanics"`
	Force           string       `json:"force"`
	Laterality      string       `json:"laterality"`
	Measure         string       `json:"measure"`
	Prescription    Prescription `json:"prescription"`
}

// Prescription is a sensible dose: sets, and one of reps, seconds or
// meters, each a range [low, high].
type Prescription struct {
	Sets    []int `json:"sets"`
	Reps    []int `json:"reps,omitempty"`
	Seconds []int `json:"seconds,omitempty"`
	Meters  []int `json:"meters,omitempty"`
}

// Set is a set of content fields: bit 0 description, then instructions,
// tips, aliases and training, the order in which they are written.
type Set uint8

// fields is the number of content fields.
const fields = 5

// Fragments are a record's JSON, head and content fields, in one buffer.
// They are never modified, so that any number of replies may share them.
type Fragments struct {
	buf []byte
	// ends[0] ends the head, ends[1+i] content field i.
	ends [1 + fields]int
}

// Encode writes r's fragments.
func Encode(r *Record) *Fragments {
	size := 200 + len(r.ID) + len(r.Name) + len(r.Difficulty) + len(r.Description)
	for _, list := range [...][]string{r.Equipments, r.BodyParts, r.ExerciseTypes, r.TargetMuscles, r.SecondaryMuscles, r.Instructions, r.Tips, r.Aliases} {
		for _, s := range list {
			size += len(s) + 3
		}
	}
	b := make([]byte, 0, size) // escapes only make it grow once
	f := &Fragments{}
	b = append(b, `{"exerciseId":`...)
	b = AppendString(b, r.ID)
	b = append(b, `,"name":`...)
	b = AppendString(b, r.Name)
	b = appendList(b, `,"equipments":`, r.Equipments)
	b = appendList(b, `,"bodyParts":`, r.BodyParts)
	b = appendList(b, `,"exerciseTypes":`, r.ExerciseTypes)
	b = append(b, `,"difficulty":`...)
	b = AppendString(b, r.Difficulty)
	b = appendList(b, `,"targetMuscles":`, r.TargetMuscles)
	b = appendList(b, `,"secondaryMuscles":`, r.SecondaryMuscles)
	f.ends[0] = len(b)
	b = append(b, `,"description":`...)
	b = AppendString(b, r.Description)
	f.ends[1] = len(b)
	b = appendList(b, `,"instructions":`, r.Instructions)
	f.ends[2] = len(b)
	b = appendList(b, `,"tips":`, r.Tips)
	f.ends[3] = len(b)
	b = appendList(b, `,"aliases":`, r.Aliases)
	f.ends[4] = len(b)
	if r.Training != nil {
		b = appendTraining(b, r.Training)
	}
	f.ends[5] = len(b)
	f.buf = b
	return f
}

// Head is the object up to its image URL, without the closing brace.
func (f *Fragments) Head() []byte { return f.buf[:f.ends[0]:f.ends[0]] }

// Content is the fields of set, each as ,"name":value, in their order:
// a slice of the fragments when they are adjacent (none, all, or any run),
// else a copy.
func (f *Fragments) Content(set Set) []byte {
	set &= 1<<fields - 1
	if set == 0 {
		return nil
	}
	lo, hi := 0, fields-1
	for set&(1<<lo) == 0 {
		lo++
	}
	for set&(1<<hi) == 0 {
		hi--
	}
	if run := Set(1<<(hi+1) - 1<<lo); set == run {
		return f.buf[f.ends[lo]:f.ends[hi+1]:f.ends[hi+1]]
	}
	var out []byte
	for i := lo; i <= hi; i++ {
		if set&(1<<i) != 0 {
			out = append(out, f.buf[f.ends[i]:f.ends[i+1]]...)
		}
	}
	return out
}

// Image is an image URL in three parts, a product's template around a
// record's media key, written without building the string first. The
// zero Image (no key) writes no image URL.
type Image struct{ Prefix, Key, Suffix string }

// Append writes a whole exercise: head, the image URL when there is one,
// the content fields, extra (more fields, each as ,"name":value, or
// nothing) and the closing brace.
func Append(b, head []byte, img Image, content, extra []byte) []byte {
	b = append(b, head...)
	if img.Key != "" {
		b = append(b, `,"imageUrl":"`...)
		// Each part is valid UTF-8 (configuration and media keys), so
		// escaping them one by one escapes their concatenation.
		b = appendEscaped(b, img.Prefix)
		b = appendEscaped(b, img.Key)
		b = appendEscaped(b, img.Suffix)
		b = append(b, '"')
	}
	b = append(b, content...)
	b = append(b, extra...)
	return append(b, '}')
}

// Size bounds what Append writes when the image URL needs no escaping (an
// escape only makes the buffer grow once).
func Size(head []byte, img Image, content, extra []byte) int {
	return len(head) + len(`,"imageUrl":""`) + len(img.Prefix) + len(img.Key) + len(img.Suffix) + len(content) + len(extra) + 1
}

// appendTraining writes ,"training":{…}; the prescription's ranges that
// are absent are left out.
func appendTraining(b []byte, t *Training) []byte {
	b = append(b, `,"training":{"movementPattern":`...)
	b = AppendString(b, t.MovementPattern)
	b = append(b, `,"mechanics":`...)
	b = AppendString(b, t.Mechanics)
	b = append(b, `,"force":`...)
	b = AppendString(b, t.Force)
	b = append(b, `,"laterality":`...)
	b = AppendString(b, t.Laterality)
	b = append(b, `,"measure":`...)
	b = AppendString(b, t.Measure)
	p := &t.Prescription
	b = append(b, `,"prescription":{"sets":`...)
	b = appendInts(b, p.Sets)
	for _, r := range [...]struct {
		key string
		v   []int
	}{{`,"reps":`, p.Reps}, {`,"seconds":`, p.Seconds}, {`,"meters":`, p.Meters}} {
		if len(r.v) > 0 {
			b = append(b, r.key...)
			b = appendInts(b, r.v)
		}
	}
	return append(b, "}}"...)
}

// appendInts writes ns as a JSON array of numbers; nil as null, as
// encoding/json does.
func appendInts(b []byte, ns []int) []byte {
	if ns == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

func appendList(b []byte, key string, ss []string) []byte {
	b = append(b, key...)
	if ss == nil {
		return append(b, "[]"...)
	}
	return appendStrings(b, ss)
}

// appendStrings writes ss as a JSON array of strings.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes written as they are: one table load per
// byte instead of three comparisons, the loop that JSON rendering spends
// most of its time in.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString writes s as a JSON string the way encoding/json does with
// HTML escaping off: quotes, backslashes and control characters escaped,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped writes s escaped as in a JSON string, without the quotes.
func appendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}
