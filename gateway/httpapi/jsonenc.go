package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// encode renders a response body. The bodies of the public API are
// written by hand, without reflection: a profile of listings put a sixth
// of the gateway's CPU in encoding/json. The output is byte for byte what
// encoding/json writes with HTML escaping off (a fuzz test holds them
// equal), so any other value goes through encoding/json itself.
func encode(v any) ([]byte, error) {
	var b []byte
	switch v := v.(type) {
	case listBody:
		size := 256
		for i := range v.Data {
			size += exerciseSize(&v.Data[i])
		}
		b = make([]byte, 0, size) // one allocation, no growth
		b = append(b, `{"success":`...)
		b = strconv.AppendBool(b, v.Success)
		b = append(b, `,"meta":{"total":`...)
		b = strconv.AppendInt(b, int64(v.Meta.Total), 10)
		b = append(b, `,"hasNextPage":`...)
		b = strconv.AppendBool(b, v.Meta.HasNextPage)
		b = append(b, `,"hasPreviousPage":`...)
		b = strconv.AppendBool(b, v.Meta.HasPreviousPage)
		b = append(b, `,"nextCursor":`...)
		b = appendNullable(b, v.Meta.NextCursor)
		b = append(b, `,"previousCursor":`...)
		b = appendNullable(b, v.Meta.PreviousCursor)
		b = append(b, `},"data":`...)
		if v.Data == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i := range v.Data {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendExercise(b, &v.Data[i])
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	case exerciseBody:
		b = make([]byte, 0, 64+exerciseSize(&v.Data))
		b = append(b, `{"success":`...)
		b = strconv.AppendBool(b, v.Success)
		b = append(b, `,"data":`...)
		b = appendExercise(b, &v.Data)
		b = append(b, '}')
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		err := enc.Encode(v)
		return buf.Bytes(), err
	}
	return append(b, '\n'), nil
}

// exerciseSize bounds the length of an exercise's JSON when its strings
// need no escaping (escapes only make the buffer grow once).
func exerciseSize(x *exerciseJSON) int {
	n := 200 + len(x.ExerciseID) + len(x.Name) + len(x.Difficulty) + len(x.ImageURL)
	for _, list := range [][]string{x.Equipments, x.BodyParts, x.ExerciseTypes, x.TargetMuscles, x.SecondaryMuscles} {
		for _, s := range list {
			n += len(s) + 3
		}
	}
	if x.Description != nil {
		n += len(*x.Description) + 20
	}
	for _, list := range []*[]string{x.Instructions, x.Tips, x.Aliases} {
		if list == nil {
			continue
		}
		n += 20
		for _, s := range *list {
			n += len(s) + 3
		}
	}
	return n
}

func appendExercise(b []byte, x *exerciseJSON) []byte {
	b = append(b, `{"exerciseId":`...)
	b = appendString(b, x.ExerciseID)
	b = append(b, `,"name":`...)
	b = appendString(b, x.Name)
	b = append(b, `,"equipments":`...)
	b = appendStrings(b, x.Equipments)
	b = append(b, `,"bodyParts":`...)
	b = appendStrings(b, x.BodyParts)
	b = append(b, `,"exerciseTypes":`...)
	b = appendStrings(b, x.ExerciseTypes)
	b = append(b, `,"difficulty":`...)
	b = appendString(b, x.Difficulty)
	b = append(b, `,"targetMuscles":`...)
	b = appendStrings(b, x.TargetMuscles)
	b = append(b, `,"secondaryMuscles":`...)
	b = appendStrings(b, x.SecondaryMuscles)
	if x.ImageURL != "" {
		b = append(b, `,"imageUrl":`...)
		b = appendString(b, x.ImageURL)
	}
	if x.Description != nil {
		b = append(b, `,"description":`...)
		b = appendString(b, *x.Description)
	}
	for _, f := range []struct {
		key  string
		list *[]string
	}{{`,"instructions":`, x.Instructions}, {`,"tips":`, x.Tips}, {`,"aliases":`, x.Aliases}} {
		if f.list != nil {
			b = append(b, f.key...)
			b = appendStrings(b, *f.list)
		}
	}
	return append(b, '}')
}

func appendNullable(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
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

// appendString writes s as a JSON string the way encoding/json does with
// HTML escaping off: quotes, backslashes and control characters escaped,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
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
	b = append(b, s[start:]...)
	return append(b, '"')
}
