package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/pkg/bufpool"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
)

// encode renders a response body. The bodies of the public API are
// written by hand, without reflection: a profile of listings put a sixth
// of the gateway's CPU in encoding/json. The exercises come encoded from
// the catalog (pkg/exercisejson), so a listing only writes its envelope
// around them. The output is byte for byte what encoding/json writes with
// HTML escaping off (fuzz tests hold them equal), so any other value goes
// through encoding/json itself.
func encode(v any) ([]byte, error) {
	var b []byte
	switch v := v.(type) {
	case listBody:
		size := 256
		for i := range v.Data {
			size += v.Data[i].size()
		}
		b = newBody(size) // no growth
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
		if v.Meta.MissingIDs != nil {
			b = append(b, `,"missingIds":`...)
			b = appendStrings(b, *v.Meta.MissingIDs)
		}
		if v.Meta.Search != nil {
			b = append(b, `,"search":{"ignoredWords":`...)
			b = appendStrings(b, v.Meta.Search.IgnoredWords)
			b = append(b, '}')
		}
		if len(v.Meta.Facets) > 0 {
			b = append(b, `,"facets":`...)
			b = v.Meta.Facets.append(b)
		}
		if a := v.Meta.Alternatives; a != nil {
			b = append(b, `,"alternatives":{"fallback":`...)
			b = strconv.AppendBool(b, a.Fallback)
			b = append(b, `,"movementPatterns":`...)
			b = appendStrings(b, a.MovementPatterns)
			b = append(b, '}')
		}
		b = append(b, `},"data":`...)
		if v.Data == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i := range v.Data {
				if i > 0 {
					b = append(b, ',')
				}
				b = v.Data[i].append(b)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	case exerciseBody:
		b = newBody(64 + v.Data.size())
		b = append(b, `{"success":`...)
		b = strconv.AppendBool(b, v.Success)
		b = append(b, `,"data":`...)
		b = v.Data.append(b)
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

// bodies holds the buffers of rendered bodies that the response cache
// did not keep, for the next body to be rendered into once written.
var bodies bufpool.Pool

// newBody returns an empty buffer of capacity size or more.
func newBody(size int) []byte { return (*bodies.Get(size))[:0] }

// recycle hands body to the next newBody: the caller must not use it
// afterwards, nor have given it to anything that does.
func recycle(body []byte) { bodies.Put(&body) }

func (x *exerciseJSON) append(b []byte) []byte {
	return exercisejson.Append(b, x.Head, x.Image, x.Content, x.Media)
}

func (x *exerciseJSON) size() int { return exercisejson.Size(x.Head, x.Image, x.Content, x.Media) }

// MarshalJSON writes the exercise as encode does, for encoding/json.
func (x exerciseJSON) MarshalJSON() ([]byte, error) { return x.append(nil), nil }

// facetsJSON is meta.facets: an object of the facets in the order asked,
// each an object of its values, most records first.
type facetsJSON []catalogclient.FacetCounts

func (f facetsJSON) append(b []byte) []byte {
	b = append(b, '{')
	for i, fc := range f {
		if i > 0 {
			b = append(b, ',')
		}
		b = exercisejson.AppendString(b, facetName(fc.Facet))
		b = append(b, ":{"...)
		for j, v := range fc.Values {
			if j > 0 {
				b = append(b, ',')
			}
			b = exercisejson.AppendString(b, v.Value)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(v.Count), 10)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// MarshalJSON keeps the order, which a map would not.
func (f facetsJSON) MarshalJSON() ([]byte, error) { return f.append(nil), nil }

func appendNullable(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return exercisejson.AppendString(b, *s)
}

// appendStrings writes a list of strings as encoding/json does: null for
// a nil slice.
func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = exercisejson.AppendString(b, s)
	}
	return append(b, ']')
}
