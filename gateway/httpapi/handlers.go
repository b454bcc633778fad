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
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/respcache"
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
	}
	exerciseJSON struct {
		ExerciseID       string   `json:"exerciseId"`
		Name             string   `json:"name"`
		Equipments       []string `json:"equipments"`
		BodyParts        []string `json:"bodyParts"`
		ExerciseTypes    []string `json:"exerciseTypes"`
		Difficulty       string   `json:"difficulty"`
		TargetMuscles    []string `json:"targetMuscles"`
		SecondaryMuscles []string `json:"secondaryMuscles"`
		ImageURL         string   `json:"imageUrl,omitempty"`
		// The content fields: nil when not asked for, so absent.
		Description  *string   `json:"description,omitempty"`
		Instructions *[]string `json:"instructions,omitempty"`
		Tips         *[]string `json:"tips,omitempty"`
		Aliases      *[]string `json:"aliases,omitempty"`
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
		page, err := a.Catalog.List(c, requestIDOf(c), req)
		if err != nil {
			a.fail(c, err)
			return
		}
		product := stateOf(c).product
		data := exerciseSlices.Get().(*[]exerciseJSON)
		body := listBody{Success: true, Data: (*data)[:0], Meta: meta{
			Total:           page.Total,
			HasNextPage:     page.HasNextPage,
			HasPreviousPage: page.HasPreviousPage,
			NextCursor:      cursor(page.NextCursor),
			PreviousCursor:  cursor(page.PreviousCursor),
		}}
		for i := range page.Len() {
			x := page.Exercise(i)
			body.Data = append(body.Data, render(product, &x, req.Include))
		}
		a.respond(c, page.Version, body)
		clear(body.Data)
		*data = body.Data[:0]
		exerciseSlices.Put(data)
	}
}

// exerciseSlices recycles the exercises of listing bodies, which respond
// only reads: one allocation less, of about 2 KiB, per listing. A slice
// from it is never nil, so an empty page still renders "data": [].
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
	a.respond(c, version, exerciseBody{Success: true, Data: render(stateOf(c).product, &x, catalogclient.AllContent)})
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
		body.Data[i] = typeJSON{Name: t.Name, ImageURL: product.ImageURL(t.MediaKey)}
	}
	a.respond(c, version, body)
}

// names serves a reference list of names.
func (a *api) names(list func(context.Context, string) ([]string, string, error)) gin.HandlerFunc {
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

func render(p *plan.Product, x *catalogclient.Exercise, include catalogclient.Content) exerciseJSON {
	out := exerciseJSON{
		ExerciseID:       x.ID,
		Name:             x.Name,
		Equipments:       nonNil(x.Equipments),
		BodyParts:        nonNil(x.BodyParts),
		ExerciseTypes:    nonNil(x.ExerciseTypes),
		Difficulty:       x.Difficulty,
		TargetMuscles:    nonNil(x.TargetMuscles),
		SecondaryMuscles: nonNil(x.SecondaryMuscles),
	}
	if x.MediaKey != "" {
		out.ImageURL = p.ImageURL(x.MediaKey)
	}
	if include&catalogclient.Description != 0 {
		out.Description = &x.Description
	}
	if include&catalogclient.Instructions != 0 {
		out.Instructions = ptr(nonNil(x.Instructions))
	}
	if include&catalogclient.Tips != 0 {
		out.Tips = ptr(nonNil(x.Tips))
	}
	if include&catalogclient.Aliases != 0 {
		out.Aliases = ptr(nonNil(x.Aliases))
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// nonNil makes an absent list render as [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func cursor(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// respond renders a success body with a strong ETag derived from the
// catalogue version and the body, keeps it in the response cache, and
// sends it.
func (a *api) respond(c *gin.Context, version string, v any) {
	body, err := encode(v)
	if err != nil {
		a.fail(c, apierror.Internal(err))
		return
	}
	e := respcache.Entry{Body: body, ETag: `"` + version + "-" + strconv.FormatUint(xxhash.Sum64(body), 36) + `"`}
	key := stateOf(c).cacheKey
	if key != "" {
		a.Cache.Put(key, version, e)
	}
	a.send(c, e, key)
}

// send writes a rendered response in the coding the client prefers,
// honouring If-Match (412) and If-None-Match (304) against that
// representation's ETag. A body compressed here is kept in the cache
// entry of key (when not ""), so the next client asking for that coding
// costs no compression.
func (a *api) send(c *gin.Context, e respcache.Entry, key string) {
	etag, body := e.ETag, e.Body
	var cd *coding
	if a.Compression && len(e.Body) >= minCompressed {
		c.Writer.Header().Add("Vary", "Accept-Encoding") // Add: other middleware may vary on Origin
		if cd = negotiate(c.GetHeader("Accept-Encoding")); cd != nil {
			enc, ok := e.Encoding(cd.name)
			if ok {
				etag, body = enc.ETag, enc.Body
			} else {
				etag, body = cd.etag(e.ETag), nil // compressed only if a body is sent
			}
		}
	}
	c.Header("ETag", etag)
	c.Header("Cache-Control", "private, no-cache")
	if im := c.GetHeader("If-Match"); im != "" && !matches(im, etag, false) {
		a.fail(c, apierror.New(http.StatusPreconditionFailed, "If-Match: no given entity tag matches the current one, %s.", etag))
		return
	}
	if inm := c.GetHeader("If-None-Match"); inm != "" && matches(inm, etag, true) {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		return
	}
	if cd != nil {
		if body == nil {
			body = cd.compress(e.Body)
			if key != "" {
				a.Cache.AddEncoding(key, e.ETag, respcache.Encoded{Coding: cd.name, ETag: etag, Body: body})
			}
		}
		c.Header("Content-Encoding", cd.name)
	}
	writeJSON(c, http.StatusOK, body)
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
	key := st.product.Name + "\x00" + c.Request.URL.Path + "\x00" + query + "\x00" + strconv.Itoa(st.plan.RecordCap)
	if e, ok := a.Cache.Get(key); ok {
		a.metrics.cache.WithLabelValues("hit").Inc()
		a.send(c, e, key)
		return true
	}
	a.metrics.cache.WithLabelValues("miss").Inc()
	st.cacheKey = key
	return false
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
