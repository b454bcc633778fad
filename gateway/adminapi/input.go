package adminapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/queryparam"
)

// query reads the request's query string as the public API does (package
// queryparam): a malformed one, a parameter the endpoint does not take or
// one given twice is a 400 naming it. Each value is the parameter's one
// value, possibly empty: the caller judges that.
func query(r *http.Request, allowed ...string) (map[string]string, error) {
	values, err := queryparam.Parse(r.URL.RawQuery, allowed)
	if err != nil {
		return nil, err
	}
	q := make(map[string]string, len(values))
	for _, name := range allowed {
		v, ok, err := queryparam.Single(values, name)
		if err != nil {
			return nil, err
		}
		if ok {
			q[name] = v
		}
	}
	return q, nil
}

// maxBody bounds a request body: 64 KiB, far above any valid one.
const maxBody = 64 << 10

// decode reads the body as one JSON object of the given fields (named
// in the messages about an unknown one).
func decode(r *http.Request, v any, fields ...string) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return apierror.New(http.StatusBadRequest, "The body is empty; send a JSON object with %s.", strings.Join(fields, ", "))
	}
	return decodeBody(body, v, fields)
}

// decodeOptional is decode for a body that may be empty.
func decodeOptional(r *http.Request, v any, fields ...string) error {
	body, err := readBody(r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	return decodeBody(body, v, fields)
}

// readBody reads the request body, at most maxBody bytes.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, apierror.New(http.StatusRequestEntityTooLarge, "The body is larger than %d bytes; no valid body comes near it.", maxBody)
	case err != nil:
		// The client went away or sent a malformed chunked body; the
		// reader's error is Go's wording, kept for the log.
		return nil, &apierror.Error{Status: http.StatusBadRequest, Code: apierror.CodeBadRequest,
			Message: "The body could not be read to its end: the connection ended early or its chunked encoding is malformed.", Err: err}
	}
	return body, nil
}

// decodeBody decodes body, not blank, into v as decode describes.
func decodeBody(body []byte, v any, fields []string) error {
	list := strings.Join(fields, ", ")
	if err := checkNames(body, fields); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data")
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ) && typ.Field != "":
		return apierror.New(http.StatusBadRequest, "%s: want %s, not a JSON %s.", typ.Field, typeName(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return apierror.New(http.StatusBadRequest, "Unknown field %s: the fields are %s.", strings.TrimPrefix(err.Error(), "json: unknown field "), list)
	case errors.As(err, &syntax):
		return apierror.New(http.StatusBadRequest, "Malformed JSON at byte %d: %v.", syntax.Offset, err)
	}
	return apierror.New(http.StatusBadRequest, "Malformed JSON: want one object with %s.", list)
}

// maxDepth bounds the nesting checkNames follows. No field nests more
// than two levels, so deeper JSON fails decoding anyway (a wrong type).
const maxDepth = 100

// errMalformed stops checkNames at JSON it cannot read; Decode then says
// what is wrong.
var errMalformed = errors.New("malformed JSON")

// checkNames refuses what encoding/json would settle silently: a name
// given twice in one object, at any depth (it keeps the last value), and
// a field of the top-level object named in another case than fields
// (it matches names without regard to case). Malformed JSON is left to
// the decoder, whose messages say where it breaks.
func checkNames(body []byte, fields []string) error {
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return nil // not an object: the decoder refuses it
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err := checkValue(dec, body, "", fields, 0)
	if errors.Is(err, errMalformed) {
		return nil
	}
	return err
}

// checkValue reads one JSON value from dec, which reads body; path names
// it in messages ("" for the top level), and fields, when not nil, are
// the only names an object there may have. A string that is not valid
// UTF-8 is refused, naming it: encoding/json would replace the bad bytes
// silently.
func checkValue(dec *json.Decoder, body []byte, path string, fields []string, depth int) error {
	if depth > maxDepth {
		return errMalformed
	}
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return errMalformed
	}
	if _, ok := tok.(string); ok {
		if err := checkString(cmp.Or(path, "The body"), body[start:dec.InputOffset()]); err != nil {
			return err
		}
	}
	switch tok {
	case json.Delim('{'):
		var names []string // in order, each once
		count := map[string]int{}
		for dec.More() {
			nameStart := dec.InputOffset()
			tok, err := dec.Token()
			if err != nil {
				return errMalformed
			}
			name, _ := tok.(string)
			if err := checkString(cmp.Or(path, "The body")+"'s names", body[nameStart:dec.InputOffset()]); err != nil {
				return err
			}
			if fields != nil && !slices.Contains(fields, name) {
				return apierror.New(http.StatusBadRequest, "Unknown field %q: the fields are %s.", name, strings.Join(fields, ", "))
			}
			if count[name]++; count[name] == 1 {
				names = append(names, name)
			}
			if err := checkValue(dec, body, member(path, name), nil, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return errMalformed
		}
		for _, name := range names {
			if n := count[name]; n > 1 {
				return apierror.New(http.StatusBadRequest, "%s is given %d times; send it once.", member(path, name), n)
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, body, fmt.Sprintf("%s[%d]", path, i), nil, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing bracket
			return errMalformed
		}
	}
	return nil
}

// checkString refuses a JSON string whose text, raw as sent, no store can
// keep as sent: bytes that are not UTF-8, or escapes of lone surrogates
// (encoding/json would replace either silently). What a field's text may
// hold beyond that is the store's to say (keys.InputError).
func checkString(what string, raw []byte) error {
	switch {
	case !utf8.Valid(raw):
		return apierror.New(http.StatusBadRequest, "%s: not valid UTF-8.", what)
	case loneSurrogate(raw):
		return apierror.New(http.StatusBadRequest, "%s: not valid UTF-8: an escape of a lone surrogate (\\ud800 to \\udfff without its pair).", what)
	}
	return nil
}

// checkText refuses text of the path or query (an id, a cursor) that is
// not valid UTF-8 or holds a control character: no key's id does, and
// PostgreSQL's text can neither hold NUL nor compare bytes that are not
// UTF-8, so every store answers alike only if none sees them.
func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return apierror.New(http.StatusBadRequest, "%s: not valid UTF-8.", what)
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return apierror.New(http.StatusBadRequest, "%s: holds a control character (%U); remove it.", what, []rune(s[i:])[0])
	}
	return nil
}

// loneSurrogate reports whether the raw JSON string raw, quotes included,
// holds a \u escape of a surrogate that is not a high one followed by a
// low one.
func loneSurrogate(raw []byte) bool {
	pendingHigh := false
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			if pendingHigh {
				return true
			}
			continue
		}
		if raw[i+1] != 'u' || i+6 > len(raw) {
			if pendingHigh {
				return true
			}
			i++ // an escaped character such as \\ or \"
			continue
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		i += 5
		switch {
		case err != nil:
			return false // malformed: the decoder refused it already
		case v >= 0xD800 && v < 0xDC00:
			if pendingHigh {
				return true
			}
			pendingHigh = true
		case v >= 0xDC00 && v < 0xE000:
			if !pendingHigh {
				return true
			}
			pendingHigh = false
		default:
			if pendingHigh {
				return true
			}
		}
	}
	return pendingHigh
}

// member names a member of the object at path: "products.exercisedb";
// a name that would not read as one is quoted.
func member(path, name string) string {
	if name == "" || strings.ContainsAny(name, ` ."[]`) || !utf8.ValidString(name) {
		name = strconv.Quote(name)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// typeName names a Go kind in JSON's words.
func typeName(kind string) string {
	switch kind {
	case "string", "ptr":
		return "a string"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	}
	return fmt.Sprintf("a %s", kind)
}
