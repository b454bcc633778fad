package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/respcache"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
)

// The JSON shapes of the public interface.
type (
	listBody struct {
		Success bool           `json:"success"`
		Meta    meta           `json:"meta"`
		Data    []exerciseJSON `json:"data"`
	}
	meta struct {
		Total           int     `json:"total"`
		HasNextPage     bool    `json:"hasNextPage"`
		HasPreviousPage bool    `json:"hasPreviousPage"`
		NextCursor      *string `json:"nextCursor"`
		PreviousCursor  *string `json:"previousCursor"`
		// MissingIDs are the ids of an ids= request that name no
		// exercise; absent from other listings.
		MissingIDs *[]string `json:"missingIds,omitempty"`
		// Search is present whenever q is.
		Search *searchMeta `json:"search,omitempty"`
		// Facets is present whenever facets is.
		Facets facetsJSON `json:"facets,omitempty"`
		// Alternatives is present on the alternatives of an exercise.
		Alternatives *alternativesMeta `json:"alternatives,omitempty"`
	}
	alternativesMeta struct {
		// Fallback is true when nothing of the exercise's own movement
		// pattern fits the filter and the list holds the neighbouring
		// patterns' substitutes instead.
		Fallback bool `json:"fallback"`
		// MovementPatterns is never null: [] for an empty list.
		MovementPatterns []string `json:"movementPatterns"`
	}
	searchMeta struct {
		// IgnoredWords is never null: [] when every word was used.
		IgnoredWords []string `json:"ignoredWords"`
	}
	// exerciseJSON is an exercise as the catalog encoded it, with the
	// product's image URL (see MarshalJSON).
	exerciseJSON struct {
		catalogclient.ExerciseJSON
		Image exercisejson.Image // zero when the exercise has no image
		// Media is the record's `,"media":{…}`, when asked for.
		Media []byte
	}
	exerciseBody struct {
		Success bool         `json:"success"`
		Data    exerciseJSON `json:"data"`
	}
	namesBody struct {
		Success bool       `json:"success"`
		Data    []nameJSON `json:"data"`
	}
	nameJSON struct {
		Name string `json:"name"`
	}
	typesBody struct {
		Success bool       `json:"success"`
		Data    []typeJSON `json:"data"`
	}
	typeJSON struct {
		Name     string `json:"name"`
		ImageURL string `json:"imageUrl"`
	}
)

// listExercises serves a listing; with a relation, the list of the
// exercises related to the one the path names.
func (a *api) listExercises(params listParams, rel catalogclient.Relation) gin.HandlerFunc {
	return func(c *gin.Context) {
		if a.fromCacheAsSent(c) {
			return
		}
		req, err := parseList(c.Request.URL.RawQuery, params)
		if err != nil {
			a.fail(c, err)
			return
		}
		if rel != 0 {
			req.RelatedTo, req.Relation = c.Param("id"), rel
		}
		req.RecordCap = stateOf(c).plan.RecordCap
		if a.fromCache(c, listKey(&req)) {
			return
		}
		page, err := a.Catalog.List(c, requestIDOf(c), req.ListRequest)
		if err != nil {
			a.fail(c, err)
			return
		}
		st := stateOf(c)
		data := exerciseSlices.Get().(*[]exerciseJSON)
		body := listBody{Success: true, Data: (*data)[:0], Meta: meta{
			Total:           page.Total,
			HasNextPage:     page.HasNextPage,
			HasPreviousPage: page.HasPreviousPage,
			NextCursor:      cursor(page.NextCursor),
			PreviousCursor:  cursor(page.PreviousCursor),
			Facets:          page.Facets,
		}}
		if req.IDs != nil {
			missing := append([]string{}, page.MissingIDs...) // [] rather than null when none
			body.Meta.MissingIDs = &missing
		}
		if alt := page.Alternatives; alt != nil {
			body.Meta.Alternatives = &alternativesMeta{Fallback: alt.Fallback, MovementPatterns: alt.MovementPatterns}
			if alt.MovementPatterns == nil {
				body.Meta.Alternatives.MovementPatterns = []string{}
			}
		}
		if req.Filter.Query != "" {
			body.Meta.Search = &searchMeta{IgnoredWords: page.IgnoredWords}
			if body.Meta.Search.IgnoredWords == nil {
				body.Meta.Search.IgnoredWords = []string{}
			}
		}
		for i := range page.Len() {
			body.Data = append(body.Data, a.present(st, page.JSON(i), req.Media))
		}
		a.respond(c, page.Version, body)
		clear(body.Data)
		*data = body.Data[:0]
		exerciseSlices.Put(data)
	}
}

// exerciseSlices recycles the exercises of listing bodies, which respond
// only reads: one allocation less per listing. A slice from it is never
// nil, so an empty page still renders "data": [].
var exerciseSlices = sync.Pool{New: func() any {
	s := make([]exerciseJSON, 0, 25)
	return &s
}}

func (a *api) exercise(c *gin.Context) {
	if err := noQuery(c.Request.URL.RawQuery); err != nil {
		a.fail(c, err)
		return
	}
	if a.fromCache(c, "") {
		return
	}
	x, version, err := a.Catalog.Exercise(c, requestIDOf(c), c.Param("id"))
	if err != nil {
		a.fail(c, err)
		return
	}
	a.respond(c, version, exerciseBody{Success: true, Data: a.present(stateOf(c), x, true)})
}

func (a *api) exerciseTypes(c *gin.Context) {
	if err := noQuery(c.Request.URL.RawQuery); err != nil {
		a.fail(c, err)
		return
	}
	if a.fromCache(c, "") {
		return
	}
	types, version, err := a.Catalog.ExerciseTypes(c, requestIDOf(c))
	if err != nil {
		a.fail(c, err)
		return
	}
	product := stateOf(c).product
	body := typesBody{Success: true, Data: make([]typeJSON, len(types))}
	for i, t := range types {
		img := a.image(product, t.MediaKey, t.MediaDigest)
		body.Data[i] = typeJSON{Name: t.Name, ImageURL: img.Prefix + img.Key + img.Suffix}
	}
	a.respond(c, version, body)
}

// names serves a reference list of names.
func (a *api) names(list func(context.Context, string) ([]string, catalogclient.Version, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := noQuery(c.Request.URL.RawQuery); err != nil {
			a.fail(c, err)
			return
		}
		if a.fromCache(c, "") {
			return
		}
		names, version, err := list(c, requestIDOf(c))
		if err != nil {
			a.fail(c, err)
			return
		}
		body := namesBody{Success: true, Data: make([]nameJSON, len(names))}
		for i, n := range names {
			body.Data[i] = nameJSON{Name: n}
		}
		a.respond(c, version, body)
	}
}

// liveness answers while the process is up; it does not call the catalog.
func (a *api) liveness(c *gin.Context) {
	if err := noQuery(c.Request.URL.RawQuery); err != nil {
		a.fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	writeJSON(c, http.StatusOK, []byte(`{"status":"ok"}`+"\n"))
}

// present adds to an exercise of the catalog the product's image URL and,
// if media, its media under the plan.
func (a *api) present(st *state, x catalogclient.ExerciseJSON, media bool) exerciseJSON {
	out := exerciseJSON{ExerciseJSON: x, Image: a.image(st.product, x.MediaKey, x.MediaDigest)}
	if media {
		out.Media = a.appendMedia(nil, st.product, st.plan, x.MediaKey, x.MediaDigest)
	}
	return out
}

func cursor(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// respond renders a success body with a strong ETag derived from the
// catalogue version and the body, offers it to the response cache, and
// sends it. A body the cache does not keep goes back to the pool it was
// rendered in.
func (a *api) respond(c *gin.Context, version catalogclient.Version, v any) {
	body, err := encode(v)
	if err != nil {
		a.fail(c, apierror.Internal(err))
		return
	}
	e := respcache.NewEntry(`"`+string(version)+"-"+strconv.FormatUint(xxhash.Sum64(body), 36)+`"`, body)
	key := stateOf(c).cacheKey
	kept := key != "" && a.Cache.Put(key, string(version), e)
	a.send(c, e, key)
	if !kept {
		recycle(body) // written (or compressed) by now; nothing else holds it
	}
}

// send writes a rendered response in the coding the client prefers,
// honouring If-Match (412) and If-None-Match (304) against that
// representation's ETag. A body compressed here is kept in the cache
// entry of key (when not ""), so the next client asking for that coding
// costs no compression. Header values come made with the entry, or are
// shared: a response from the cache formats none.
func (a *api) send(c *gin.Context, e respcache.Entry, key string) {
	h := c.Writer.Header()
	etag, body, values := e.ETag, e.Body, e.Header
	var cd *coding
	if a.Compression && len(e.Body) >= minCompressed {
		addShared(h, "Vary", varyAcceptEncoding) // added: other middleware may vary on Origin
		if cd = negotiate(c.GetHeader("Accept-Encoding")); cd != nil {
			if enc, ok := e.Encoding(cd.name); ok {
				etag, body, values = enc.ETag, enc.Body, enc.Header
			} else {
				etag, body = cd.etag(e.ETag), nil // compressed only if a body is sent
				values = respcache.Header{ETag: []string{etag}}
			}
		}
	}
	h["Etag"] = values.ETag // keys in canonical form, as Header.Set writes them
	h["Cache-Control"] = privateNoCache
	if a.preconditions(c, etag) {
		return
	}
	if cd != nil {
		if body == nil {
			enc := respcache.NewEncoded(cd.name, etag, cd.compress(e.Body))
			if key != "" {
				a.Cache.AddEncoding(key, e.ETag, enc)
			}
			body, values = enc.Body, enc.Header
		}
		h["Content-Encoding"] = cd.header
	}
	writeBody(c, http.StatusOK, body, values.ContentLength)
}

// Header values every response shares (capacity 1: an append copies).
var (
	jsonContentType    = []string{"application/json; charset=utf-8"}
	privateNoCache     = []string{"private, no-cache"}
	varyAcceptEncoding = []string{"Accept-Encoding"}
)

// addShared adds the shared values vs to the header key (canonical): as
// they are when it has none, else after its values.
func addShared(h http.Header, key string, vs []string) {
	if old := h[key]; len(old) > 0 {
		h[key] = append(old, vs...)
	} else {
		h[key] = vs
	}
}

// writeBody writes a JSON body whose Content-Length header value is
// length; HEAD gets the headers only.
func writeBody(c *gin.Context, status int, body []byte, length []string) {
	h := c.Writer.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = length
	c.Status(status)
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.Write(body)
	} else {
		c.Writer.WriteHeaderNow()
	}
}

// fromCache answers from the response cache when it holds the response,
// and otherwise marks it for respond to keep. A response is identified by
// product, path, the canonical form of its query (see listKey; "" for
// endpoints that take none) and record cap: everything its body depends
// on besides the catalogue version. Only successes are kept.
func (a *api) fromCache(c *gin.Context, query string) bool {
	if a.Cache == nil {
		return false
	}
	st := stateOf(c)
	key := cacheKey(c, st, query)
	if e, ok := a.Cache.Get(key); ok {
		a.metrics.cacheHit.Inc()
		if st.cacheAlias != "" {
			a.Cache.Alias(st.cacheAlias, key)
		}
		a.send(c, e, key)
		return true
	}
	a.metrics.cacheMiss.Inc()
	st.cacheKey = key
	return false
}

// fromCacheAsSent answers a listing from the response cache when one with
// the same query string, as sent, was kept (see respcache.Cache.Alias):
// such a hit skips parsing the query and computing its canonical form.
// Otherwise it notes the alias for fromCache to record on a hit, so that a
// query that never repeats costs no alias.
func (a *api) fromCacheAsSent(c *gin.Context) bool {
	if a.Cache == nil {
		return false
	}
	st := stateOf(c)
	alias := cacheKey(c, st, c.Request.URL.RawQuery)
	if key, e, ok := a.Cache.GetAlias(alias); ok {
		a.metrics.cacheHit.Inc()
		a.send(c, e, key)
		return true
	}
	st.cacheAlias = alias
	return false
}

// cacheKey is the key of a response: product, path, query, and the
// plan's record cap and media height.
func cacheKey(c *gin.Context, st *state, query string) string {
	return st.product.Name + "\x00" + c.Request.URL.Path + "\x00" + query + "\x00" + strconv.Itoa(st.plan.RecordCap) +
		"\x00" + strconv.Itoa(st.plan.MaxMediaHeight)
}

// matches reports whether the list of entity tags in header matches etag:
// "*" matches any; weak comparison ignores W/ prefixes, strong comparison
// never matches a weak tag (RFC 9110, section 8.8.3.2).
func matches(header, etag string, weak bool) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			return true
		}
		if strings.HasPrefix(tag, "W/") {
			if !weak {
				continue
			}
			tag = tag[2:]
		}
		if tag == etag {
			return true
		}
	}
	return false
}

// preconditions answers If-Match (412, strong comparison) and
// If-None-Match (304, weak) against etag, the response's, and reports
// whether it did.
func (a *api) preconditions(c *gin.Context, etag string) bool {
	if im := c.GetHeader("If-Match"); im != "" && !matches(im, etag, false) {
		a.fail(c, apierror.New(http.StatusPreconditionFailed, "If-Match: no given entity tag matches the current one, %s.", etag))
		return true
	}
	if inm := c.GetHeader("If-None-Match"); inm != "" && matches(inm, etag, true) {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		return true
	}
	return false
}
