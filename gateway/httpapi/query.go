package httpapi

import (
	"encoding/binary"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/queryparam"
	"github.com/exercisedb/exercisedb/pkg/english"
)

// Public page sizes.
const (
	defaultLimit = 10
	maxLimit     = 25
	// maxValues bounds the values of one filter parameter.
	maxValues = 100
	// maxIDs bounds the ids of one request.
	maxIDs = 100
)

// filterParams are the filter parameters of the general listing, each with
// the field of catalogclient.Filter it fills.
var filterParams = map[string]func(*catalogclient.Filter) *[]string{
	"bodyParts":        func(f *catalogclient.Filter) *[]string { return &f.BodyParts },
	"equipments":       func(f *catalogclient.Filter) *[]string { return &f.Equipments },
	"difficulty":       func(f *catalogclient.Filter) *[]string { return &f.Difficulties },
	"exerciseTypes":    func(f *catalogclient.Filter) *[]string { return &f.ExerciseTypes },
	"targetMuscles":    func(f *catalogclient.Filter) *[]string { return &f.TargetMuscles },
	"secondaryMuscles": func(f *catalogclient.Filter) *[]string { return &f.SecondaryMuscles },
	"movementPatterns": func(f *catalogclient.Filter) *[]string { return &f.MovementPatterns },
	"mechanics":        func(f *catalogclient.Filter) *[]string { return &f.Mechanics },
	"force":            func(f *catalogclient.Filter) *[]string { return &f.Forces },
	"laterality":       func(f *catalogclient.Filter) *[]string { return &f.Lateralities },
	"measure":          func(f *catalogclient.Filter) *[]string { return &f.Measures },
}

// listParams says which parameters a listing takes, in the order error
// messages list them.
type listParams struct {
	filters []string
	name    bool // takes the name search
	query   bool // takes q, the ranked search
	include bool // takes include, the content fields to add
	ids     bool // takes ids, the exercises to answer in one page
	facets  bool // takes facets, the counts to add
}

var (
	bodyPartsParams = listParams{filters: []string{"bodyParts"}, include: true}
	exercisesParams = listParams{
		filters: []string{"bodyParts", "equipments", "difficulty", "exerciseTypes", "targetMuscles", "secondaryMuscles",
			"movementPatterns", "mechanics", "force", "laterality", "measure"},
		name:    true,
		query:   true,
		include: true,
		ids:     true,
		facets:  true,
	}
	// relationParams are the general listing's but q: a relation list has
	// its own order.
	relationParams = listParams{filters: exercisesParams.filters, name: true, include: true}
	noParams       = listParams{}
)

type contentField struct {
	name string
	bit  catalogclient.Content
}

// contentFields are the values of include, in the order error messages
// list them.
var contentFields = []contentField{
	{"description", catalogclient.Description},
	{"instructions", catalogclient.Instructions},
	{"tips", catalogclient.Tips},
	{"aliases", catalogclient.Aliases},
	{"training", catalogclient.Training},
}

// includeMedia is the value of include that adds each record's media:
// the gateway's own field, not a content field of the catalog.
const includeMedia = "media"

// parseInclude reads include: comma-separated content fields and media,
// matched like filter values (case and surrounding spaces ignored, blanks
// dropped).
func parseInclude(values []string) (set catalogclient.Content, media bool, err error) {
	for _, v := range values {
		for _, sent := range strings.Split(v, ",") {
			item := strings.ToLower(strings.TrimSpace(sent))
			if item == "" {
				continue
			}
			if item == includeMedia {
				media = true
				continue
			}
			i := slices.IndexFunc(contentFields, func(f contentField) bool { return f.name == item })
			if i < 0 {
				return 0, false, badRequest("include: %s is not a content field or media; include takes description, instructions, tips, aliases, training and media (comma-separated).", queryparam.Show(strings.TrimSpace(sent)))
			}
			set |= contentFields[i].bit
		}
	}
	return set, media, nil
}

// facetNames are the values of facets, in the order error messages list
// them, each with the catalog's facet.
var facetNames = []namedFacet{
	{"bodyParts", catalogclient.FacetBodyParts},
	{"equipments", catalogclient.FacetEquipments},
	{"difficulty", catalogclient.FacetDifficulty},
	{"exerciseTypes", catalogclient.FacetExerciseTypes},
	{"targetMuscles", catalogclient.FacetTargetMuscles},
	{"movementPatterns", catalogclient.FacetMovementPatterns},
}

type namedFacet struct {
	name  string
	facet catalogclient.Facet
}

// parseFacets reads facets: comma-separated facet names, matched as
// include's values are (case and surrounding spaces ignored, blanks and
// repeats dropped), in the order first sent.
func parseFacets(values []string) ([]catalogclient.Facet, error) {
	var out []catalogclient.Facet
	for _, v := range values {
		for _, sent := range strings.Split(v, ",") {
			item := strings.TrimSpace(sent)
			if item == "" {
				continue
			}
			i := slices.IndexFunc(facetNames, func(f namedFacet) bool { return strings.EqualFold(f.name, item) })
			if i < 0 {
				return nil, badRequest("facets: %s is not a facet; facets takes bodyParts, equipments, difficulty, exerciseTypes, targetMuscles and movementPatterns (comma-separated).", queryparam.Show(item))
			}
			if f := facetNames[i].facet; !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// facetName is the public name of a facet.
func facetName(f catalogclient.Facet) string {
	for _, n := range facetNames {
		if n.facet == f {
			return n.name
		}
	}
	return ""
}

func (p listParams) names(paging bool) []string {
	out := slices.Clone(p.filters)
	if p.name {
		out = append(out, "name")
	}
	if p.query {
		out = append(out, "q")
	}
	if p.ids {
		out = append(out, "ids")
	}
	if p.include {
		out = append(out, "include")
	}
	if p.facets {
		out = append(out, "facets")
	}
	if paging {
		out = append(out, "limit", "after", "before")
	}
	return out
}

// badRequest is a 400 with a message.
func badRequest(format string, args ...any) error {
	return apierror.New(http.StatusBadRequest, format, args...)
}

// parseList reads a listing's query: filters, limit and cursor.
func parseList(raw string, p listParams) (listQuery, error) {
	values, err := queryparam.Parse(raw, p.names(true))
	if err != nil {
		return listQuery{}, err
	}
	req := listQuery{ListRequest: catalogclient.ListRequest{Limit: defaultLimit}}
	for _, name := range p.filters {
		items := listItems(values[name])
		if len(items) > maxValues {
			return req, badRequest("%s has %d values; at most %d are allowed.", name, len(items), maxValues)
		}
		*filterParams[name](&req.Filter) = items
	}
	if p.name {
		if req.Filter.Name, _, err = queryparam.Single(values, "name"); err != nil {
			return req, err
		}
	}
	if p.query {
		if req.Filter.Query, err = parseSearch(values); err != nil {
			return req, err
		}
	}
	if p.include {
		if req.Include, req.Media, err = parseInclude(values["include"]); err != nil {
			return req, err
		}
	}
	if p.facets {
		if req.Facets, err = parseFacets(values["facets"]); err != nil {
			return req, err
		}
	}
	if v, ok, err := queryparam.Single(values, "limit"); err != nil {
		return req, err
	} else if ok {
		if req.Limit, err = parseLimit(v); err != nil {
			return req, err
		}
	}
	for _, cur := range []struct {
		name string
		dst  *string
	}{{"after", &req.After}, {"before", &req.Before}} {
		v, ok, err := queryparam.Single(values, cur.name)
		if err != nil {
			return req, err
		}
		if ok && v == "" {
			return req, badRequest("%s is empty: send an exerciseId from meta.nextCursor or meta.previousCursor, or omit it for the first page.", cur.name)
		}
		*cur.dst = v
	}
	if req.After != "" && req.Before != "" {
		return req, badRequest("Send either after or before, not both: after pages forward, before pages backward.")
	}
	if p.ids {
		return req, parseIDs(values, &req)
	}
	return req, nil
}

// listItems returns the comma-separated items of a parameter's values
// (a repeat adds items, like a comma), blank ones dropped, so a
// trailing comma never counts against a bound.
func listItems(values []string) []string {
	var items []string
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			if strings.TrimSpace(item) != "" {
				items = append(items, item)
			}
		}
	}
	return items
}

// parseIDs reads ids into req: 1 to maxIDs exercise ids, answered in the
// order given on one page, so that a query that also filters, searches
// or pages is refused, naming what it combined ids with.
func parseIDs(values url.Values, req *listQuery) error {
	ids := listItems(values["ids"])
	if len(ids) == 0 {
		return nil // no items: as if absent, like a filter
	}
	if len(ids) > maxIDs {
		return badRequest("ids has %d values; at most %d are allowed.", len(ids), maxIDs)
	}
	var conflicts []string
	for name, field := range filterParams {
		if len(*field(&req.Filter)) > 0 {
			conflicts = append(conflicts, name)
		}
	}
	slices.Sort(conflicts)
	for _, p := range []struct {
		name string
		set  bool
	}{
		{"name", req.Filter.Name != ""}, {"q", req.Filter.Query != ""}, {"limit", values.Has("limit")},
		{"after", req.After != ""}, {"before", req.Before != ""}, {"facets", len(req.Facets) > 0},
	} {
		if p.set {
			conflicts = append(conflicts, p.name)
		}
	}
	if len(conflicts) > 0 {
		return badRequest("ids cannot be combined with %s: ids answers the exercises it names, in the order given, all on one page; send ids alone (include may be added).",
			english.List(conflicts, "or"))
	}
	for i, id := range ids {
		ids[i] = strings.TrimSpace(id)
	}
	req.IDs, req.Limit = ids, 0
	return nil
}

// listQuery is a listing's request: what the catalog is asked, and
// whether each record's media are added.
type listQuery struct {
	catalogclient.ListRequest
	Media bool
}

// listKey is the canonical form of a listing's request, by which the
// response cache knows it: spellings the catalog treats alike key alike
// (filter values in any case, order, repetition or padding, blank values,
// include in any spelling, limit with leading zeros, parameters in any
// order). name, q and the cursors are kept as sent: the catalog's rules
// for them (a name over 100 characters is refused, a search is normalised
// its own way) are not repeated here, and a key must never join a refused
// request to an accepted one. Every part is length-prefixed, so two
// requests share a key only if they are the same request.
func listKey(req *listQuery) string {
	f := &req.Filter
	b := make([]byte, 0, 64)
	for _, values := range [...][]string{f.BodyParts, f.Equipments, f.Difficulties, f.ExerciseTypes, f.TargetMuscles, f.SecondaryMuscles,
		f.MovementPatterns, f.Mechanics, f.Forces, f.Lateralities, f.Measures} {
		set := make([]string, 0, len(values))
		for _, v := range values {
			// Finer than the catalog's matching (which also folds inner
			// runs of spaces), never coarser: values keyed alike match alike.
			if v = strings.ToLower(strings.TrimSpace(v)); v != "" {
				set = append(set, v)
			}
		}
		slices.Sort(set)
		set = slices.Compact(set)
		b = binary.AppendUvarint(b, uint64(len(set)))
		for _, v := range set {
			b = appendPart(b, v)
		}
	}
	for _, v := range []string{f.Name, f.Query, req.After, req.Before} {
		b = appendPart(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(req.IDs)))
	for _, id := range req.IDs {
		b = appendPart(b, id)
	}
	b = binary.AppendUvarint(b, uint64(req.Include))
	b = binary.AppendUvarint(b, uint64(len(req.Facets)))
	for _, f := range req.Facets { // in order: the counts come in it
		b = binary.AppendUvarint(b, uint64(f))
	}
	b = strconv.AppendBool(b, req.Media)
	b = binary.AppendUvarint(b, uint64(req.Limit))
	return string(b)
}

func appendPart(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// maxQuery bounds q, in characters.
const maxQuery = 200

// parseSearch reads q: 1 to 200 characters, at least one letter or digit,
// no control characters.
func parseSearch(values url.Values) (string, error) {
	q, ok, err := queryparam.Single(values, "q")
	switch {
	case err != nil || !ok:
		return "", err
	case q == "":
		return "", badRequest("q is empty: send the words to search for, or omit q.")
	case utf8.RuneCountInString(q) > maxQuery:
		return "", badRequest("q is %d characters long; at most %d are allowed.", utf8.RuneCountInString(q), maxQuery)
	case !utf8.ValidString(q):
		return "", badRequest("q is not valid UTF-8.")
	case strings.ContainsFunc(q, unicode.IsControl):
		return "", badRequest("q %s contains control characters.", queryparam.Show(q))
	case !strings.ContainsFunc(q, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }):
		return "", badRequest("q %s has no letters or digits to search for.", queryparam.Show(q))
	}
	return q, nil
}

// parseLimit accepts decimal digits from 1 to 25.
func parseLimit(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || strings.TrimLeft(v, "0123456789") != "" || n < 1 || n > maxLimit {
		return 0, badRequest("limit must be a whole number from 1 to %d; got %s.", maxLimit, queryparam.Show(v))
	}
	return n, nil
}

// noQuery refuses every query parameter.
func noQuery(raw string) error {
	_, err := queryparam.Parse(raw, noParams.names(false))
	return err
}
