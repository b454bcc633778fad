// Package queryparam reads a request's query string the way every endpoint
// of the gateway does, public or admin: bounded in length, strictly
// decoded, and refusing a parameter the endpoint does not take (so that a
// typo never returns unfiltered data) or one sent twice, each with a 400
// envelope that names it.
package queryparam

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/pkg/english"
)

const (
	// MaxRaw bounds the query string, in bytes as sent. It holds every
	// value of every vocabulary once (about 2.3 KB escaped), a 100-character
	// name and a 200-character search; beyond it a query is padding, which
	// would only cost parsing.
	MaxRaw = 4096
	// maxShown bounds how much of a value an error message repeats.
	maxShown = 64
)

// Parse decodes raw and refuses it if it is longer than MaxRaw, malformed,
// or holds a parameter not in allowed (names match exactly).
func Parse(raw string, allowed []string) (url.Values, error) {
	if len(raw) > MaxRaw {
		return nil, badRequest("The query string is %d bytes long; at most %d are allowed.", len(raw), MaxRaw)
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return nil, badRequest("The query string is malformed: a %%-escape is invalid or a ';' is used as a separator.")
	}
	var unknown []string
	for k := range values {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, Show(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		takes := "no query parameters"
		if len(allowed) > 0 {
			takes = "only " + english.List(allowed, "and")
		}
		return nil, badRequest("Unknown query parameter %s: this endpoint takes %s.", strings.Join(unknown, ", "), takes)
	}
	return values, nil
}

// Single returns the one value of a parameter that must not repeat, and
// whether it was sent.
func Single(values url.Values, name string) (string, bool, error) {
	vs, ok := values[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) > 1 {
		return "", false, badRequest("%s is given %d times; send it once.", name, len(vs))
	}
	return vs[0], true, nil
}

// Show quotes a value a client sent for an error message, shortened if
// long.
func Show(v string) string {
	if len(v) > maxShown {
		v = v[:maxShown] + "..."
	}
	return strconv.Quote(v)
}

func badRequest(format string, args ...any) error {
	return apierror.New(http.StatusBadRequest, format, args...)
}
