package httpapi

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// minCompressed is the smallest body worth compressing. Below it the
// saving is a few hundred bytes, within the packet the headers already
// take, so error envelopes, liveness and the short reference lists go
// out as they are, without Vary.
const minCompressed = 1024

// coding is a content coding the gateway can send.
type coding struct {
	name     string   // in Accept-Encoding and Content-Encoding
	alias    string   // another name clients may accept it by, or ""
	tag      string   // what the representation's entity tag adds to the plain one's
	header   []string // name, as the Content-Encoding header holds it
	compress func([]byte) []byte
}

// codings are the codings offered, smallest output first: the order that
// breaks ties of q-value. Only gzip: measured on listings, zstd's output
// is no smaller and brotli's (level 5) is 7% smaller for four times the
// compression time and a new dependency (docs/api.md, Compression).
var codings = [...]coding{
	{name: "gzip", alias: "x-gzip", tag: "gz", header: []string{"gzip"}, compress: gzipBody},
}

// negotiate picks the coding of a response from Accept-Encoding (RFC
// 9110, 12.5.3); nil means identity. The acceptable coding of highest
// q-value wins, ties going to the smaller output; identity wins only if
// the header gives it a higher q-value than every offered coding. When
// nothing is acceptable, identity included, the body goes out as it is,
// as the RFC advises, rather than as a 406. No header, or an empty one,
// asks for identity.
func negotiate(header string) *coding {
	var q [len(codings)]float64 // 0: not acceptable
	listed := [len(codings)]bool{}
	star, identity := -1.0, -1.0 // -1: not listed
	for header != "" {
		var elem string
		elem, header, _ = strings.Cut(header, ",")
		name, params, _ := strings.Cut(elem, ";")
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		qv, ok := qValue(params)
		if !ok {
			continue // a malformed element is ignored
		}
		switch {
		case name == "*":
			star = qv
		case strings.EqualFold(name, "identity"):
			identity = qv
		default:
			for i := range codings {
				if strings.EqualFold(name, codings[i].name) || codings[i].alias != "" && strings.EqualFold(name, codings[i].alias) {
					q[i], listed[i] = max(q[i], qv), true
				}
			}
		}
	}
	if identity < 0 {
		identity = max(star, 0) // unlisted identity is acceptable, but never preferred
	}
	var best *coding
	bestQ := 0.0
	for i := range codings {
		if !listed[i] {
			q[i] = max(star, 0)
		}
		if q[i] > bestQ {
			best, bestQ = &codings[i], q[i]
		}
	}
	if best != nil && identity > bestQ {
		return nil
	}
	return best
}

// qValue reads the q parameter of an Accept-Encoding element: 1 when
// absent; ok is false when it is not a number from 0 to 1.
func qValue(params string) (q float64, ok bool) {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(q >= 0 && q <= 1) {
			return 0, false
		}
		return q, true
	}
	return 1, true
}

// etag is the entity tag of the body in this coding: the plain one with
// -<tag> before the closing quote, so that each representation has its
// own strong tag.
func (cd *coding) etag(plain string) string {
	return plain[:len(plain)-1] + "-" + cd.tag + `"`
}

// gzipWriters recycles gzip writers: a new one allocates about 1 MB.
var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, 6) // level 6: 1% larger than 9 at less than half the time
	return w
}}

// scratch recycles the buffers bodies are compressed into.
var scratch = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// gzipBody compresses body (klauspost/compress: the same output size as
// compress/gzip, in about half the time). The result is a copy of exactly
// its length, as it may be kept in the response cache.
func gzipBody(body []byte) []byte {
	buf := scratch.Get().(*bytes.Buffer)
	buf.Reset()
	w := gzipWriters.Get().(*gzip.Writer)
	w.Reset(buf)
	_, _ = w.Write(body) // writes to a bytes.Buffer do not fail
	_ = w.Close()
	gzipWriters.Put(w)
	out := bytes.Clone(buf.Bytes())
	scratch.Put(buf)
	return out
}
