package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/exercisedb/exercisedb/gateway/plan"
)

// kind is a kind of request of the realistic mix.
type kind string

const (
	kindFirstPage   kind = "listing, first page"
	kindFiltered    kind = "listing with filters"
	kindByBodyParts kind = "listing by body parts"
	kindAfter       kind = "next page (after)"
	kindBefore      kind = "previous page (before)"
	kindReference   kind = "reference list"
	kindSingle      kind = "single exercise"
	// kindTail is a listing deep in the catalogue whose query never
	// repeats within the run (the cache-off listing's cycle): the share of
	// requests that no response cache can serve. Its cursors may lie past
	// any record cap, so only plans without one make it.
	kindTail kind = "long tail (query never repeats)"
	// kindSearch is a search (q): words of an exercise's name, some with
	// a typo or cut short as someone types.
	kindSearch kind = "search (q)"
	// kindRelated is a page of an exercise's variations or alternatives.
	kindRelated kind = "variations, alternatives"
)

// kinds in the order reports list them.
var kinds = []kind{kindFirstPage, kindFiltered, kindByBodyParts, kindAfter, kindBefore, kindReference, kindSingle, kindTail, kindSearch, kindRelated}

// entry is one request that the crawl saw answered 200.
type entry struct {
	Kind kind
	Op   plan.Operation // the plan operation it calls
	Path string         // path and query
	// Pos is the 0-based position, in its listing, of the record the
	// cursor names (0 when there is no cursor): a plan reaches the entry
	// only if Pos is below its record cap.
	Pos int
}

// tailEntry stands for the long tail in the entries: the load generator
// gives each of its requests the next query of the cache-off cycle.
var tailEntry = entry{Kind: kindTail, Op: plan.Exercises, Pos: math.MaxInt}

// harvest is what the crawl learnt.
type harvest struct {
	Entries []entry
	IDs     []string // every exercise id, in catalogue order
	Vocab   vocab
}

// vocab holds the names the reference lists return.
type vocab struct {
	BodyParts, Equipments, ExerciseTypes, Muscles []string
}

// listPage is the part of a listing response the crawl reads.
type listPage struct {
	Meta struct {
		Total           int     `json:"total"`
		HasNextPage     bool    `json:"hasNextPage"`
		NextCursor      *string `json:"nextCursor"`
		PreviousCursor  *string `json:"previousCursor"`
		HasPreviousPage bool    `json:"hasPreviousPage"`
	} `json:"meta"`
	Data []struct {
		ID   string `json:"exerciseId"`
		Name string `json:"name"`
	} `json:"data"`
}

// apiClient calls the gateway with one key.
type apiClient struct {
	base string
	key  string
	http *http.Client
}

func newAPIClient(base, key string) *apiClient {
	return &apiClient{base: base, key: key, http: &http.Client{Timeout: 10 * time.Second}}
}

// get returns the body of a 200 answer to path, an error otherwise.
func (c *apiClient) get(ctx context.Context, path, host string) ([]byte, error) {
	header := http.Header{}
	if host != "" {
		header.Set("X-Gateway-Host", host)
	}
	body, _, err := c.fetch(ctx, path, header)
	return body, err
}

// fetch returns the body, as sent, and the header of a 200 answer to path
// asked with header, an error otherwise.
func (c *apiClient) fetch(ctx context.Context, path string, header http.Header) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header = header.Clone()
	req.Header.Set("X-Gateway-Key", c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return body, resp.Header, nil
}

// getGzip returns the body of path as a client that accepts gzip gets it,
// compressed, and checks that it is plain once decompressed: the gzip
// scenario would otherwise measure something else than a gzip hit.
func (c *apiClient) getGzip(ctx context.Context, path string, plain []byte) ([]byte, error) {
	// Set by hand, Accept-Encoding makes net/http's transport hand the
	// body over as sent.
	body, header, err := c.fetch(ctx, path, http.Header{"Accept-Encoding": {"gzip"}})
	if err != nil {
		return nil, err
	}
	if ce := header.Get("Content-Encoding"); ce != "gzip" {
		return nil, fmt.Errorf("GET %s with Accept-Encoding: gzip: Content-Encoding %q, want gzip (is compression.enabled off?)", path, ce)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("GET %s with Accept-Encoding: gzip: %w", path, err)
	}
	decoded, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("GET %s with Accept-Encoding: gzip: %w", path, err)
	}
	if !bytes.Equal(decoded, plain) {
		return nil, fmt.Errorf("GET %s with Accept-Encoding: gzip: the body decompressed (%d bytes) is not the plain one (%d bytes)", path, len(decoded), len(plain))
	}
	return body, nil
}

func (c *apiClient) getJSON(ctx context.Context, path string, v any) error {
	body, err := c.get(ctx, path, "")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// Paths of the API.
const (
	pathExercises   = "/api/v1/exercises"
	pathByBodyParts = "/api/v1/exercises/bodyparts"
)

// referenceLists are the reference lists and their operations.
var referenceLists = []struct {
	path string
	op   plan.Operation
}{
	{"/api/v1/bodyparts", plan.BodyParts},
	{"/api/v1/equipments", plan.Equipments},
	{"/api/v1/exercisetypes", plan.ExerciseTypes},
	{"/api/v1/muscles", plan.Muscles},
}

// listing is a listing the crawl walks.
type listing struct {
	path  string
	query url.Values // without limit and cursors
	limit int        // 0: the default
}

func (l listing) op() plan.Operation {
	if l.path == pathByBodyParts {
		return plan.ExercisesByBodyParts
	}
	return plan.Exercises
}

// firstKind is the kind of the listing's first page.
func (l listing) firstKind() kind {
	switch {
	case l.path == pathByBodyParts:
		return kindByBodyParts
	case len(l.query) == 0:
		return kindFirstPage
	}
	return kindFiltered
}

// url is the listing's path with its query and one cursor ("after" or
// "before", or "" for the first page).
func (l listing) url(cursorParam, cursor string) string {
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	if l.limit > 0 {
		q.Set("limit", fmt.Sprint(l.limit))
	}
	if cursorParam != "" {
		q.Set(cursorParam, cursor)
	}
	if len(q) == 0 {
		return l.path
	}
	return l.path + "?" + q.Encode()
}

// listings are the listings of the mix, built from the names the
// reference lists returned and words of exercise names.
func listings(v vocab, words []string) []listing {
	at := func(s []string, i int) string { return s[i%len(s)] }
	var ls []listing
	add := func(path string, limit int, kv ...string) {
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		ls = append(ls, listing{path: path, query: q, limit: limit})
	}
	add(pathExercises, 10)
	add(pathExercises, 25)
	add(pathExercises, 0)
	for i := range 4 {
		add(pathExercises, 10, "bodyParts", at(v.BodyParts, i))
	}
	add(pathExercises, 10, "bodyParts", at(v.BodyParts, 4)+","+at(v.BodyParts, 5), "difficulty", "intermediate")
	add(pathExercises, 10, "equipments", at(v.Equipments, 0))
	add(pathExercises, 25, "equipments", at(v.Equipments, 1)+","+at(v.Equipments, 2))
	add(pathExercises, 10, "difficulty", "beginner")
	add(pathExercises, 10, "exerciseTypes", at(v.ExerciseTypes, 0), "equipments", at(v.Equipments, 3)+","+at(v.Equipments, 4))
	add(pathExercises, 10, "targetMuscles", at(v.Muscles, 0))
	add(pathExercises, 10, "secondaryMuscles", at(v.Muscles, 1), "bodyParts", at(v.BodyParts, 0))
	for i, w := range words {
		if i == 3 {
			break
		}
		add(pathExercises, 10, "name", w)
	}
	for i := range 3 {
		add(pathByBodyParts, 10, "bodyParts", at(v.BodyParts, i))
	}
	add(pathByBodyParts, 25, "bodyParts", at(v.BodyParts, 6)+","+at(v.BodyParts, 7))
	return ls
}

// maxCrawlPages bounds the pages walked per listing; 12 pages of 10 reach
// past the Basic plan's cap of 100 records, so caps are exercised.
const maxCrawlPages = 12

// crawl learns the vocabulary, every exercise id, and the pages of the
// listings, with a key that may call every operation.
func crawl(ctx context.Context, c *apiClient) (*harvest, error) {
	h := &harvest{}
	type nameList struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	for _, r := range referenceLists {
		var l nameList
		if err := c.getJSON(ctx, r.path, &l); err != nil {
			return nil, err
		}
		names := make([]string, len(l.Data))
		for i, d := range l.Data {
			names[i] = d.Name
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("GET %s: empty list", r.path)
		}
		switch r.op {
		case plan.BodyParts:
			h.Vocab.BodyParts = names
		case plan.Equipments:
			h.Vocab.Equipments = names
		case plan.ExerciseTypes:
			h.Vocab.ExerciseTypes = names
		case plan.Muscles:
			h.Vocab.Muscles = names
		}
		h.Entries = append(h.Entries, entry{Kind: kindReference, Op: r.op, Path: r.path})
	}

	// Every id, in pages of 25.
	var names []string
	all := listing{path: pathExercises, limit: 25}
	for cursor := ""; ; {
		param := ""
		if cursor != "" {
			param = "after"
		}
		var p listPage
		if err := c.getJSON(ctx, all.url(param, cursor), &p); err != nil {
			return nil, err
		}
		for _, d := range p.Data {
			h.IDs = append(h.IDs, d.ID)
			names = append(names, d.Name)
		}
		if !p.Meta.HasNextPage || p.Meta.NextCursor == nil {
			break
		}
		cursor = *p.Meta.NextCursor
	}
	if len(h.IDs) == 0 {
		return nil, fmt.Errorf("GET %s: the catalogue is empty", pathExercises)
	}
	for _, id := range h.IDs {
		h.Entries = append(h.Entries, entry{Kind: kindSingle, Op: plan.Exercise, Path: pathExercises + "/" + url.PathEscape(id)})
	}
	// The long tail's one entry stands for the whole cycle (see tailEntry).
	h.Entries = append(h.Entries, tailEntry)
	h.Entries = append(h.Entries, searches(names)...)
	h.Entries = append(h.Entries, related(h.IDs)...)

	for _, l := range listings(h.Vocab, nameWords(names, 3)) {
		limit := l.limit
		if limit == 0 {
			limit = 10
		}
		h.Entries = append(h.Entries, entry{Kind: l.firstKind(), Op: l.op(), Path: l.url("", "")})
		var p listPage
		if err := c.getJSON(ctx, l.url("", ""), &p); err != nil {
			return nil, err
		}
		for page := 1; page < maxCrawlPages && p.Meta.HasNextPage && p.Meta.NextCursor != nil; page++ {
			// The next page's cursor is the last record of this one.
			after := entry{Kind: kindAfter, Op: l.op(), Path: l.url("after", *p.Meta.NextCursor), Pos: page*limit - 1}
			h.Entries = append(h.Entries, after)
			if err := c.getJSON(ctx, after.Path, &p); err != nil {
				return nil, err
			}
			if p.Meta.PreviousCursor != nil {
				// Back from this page: its first record is the cursor.
				h.Entries = append(h.Entries, entry{Kind: kindBefore, Op: l.op(), Path: l.url("before", *p.Meta.PreviousCursor), Pos: page * limit})
			}
		}
	}
	c.http.CloseIdleConnections()
	return h, nil
}

// nameWords returns up to n distinct words of at least four letters, the
// last words of names spread over the catalogue: name searches that match.
// searchCount and relatedCount are how many searches and relation pages
// the mix draws from.
const (
	searchCount  = 60
	relatedCount = 40
)

// searches returns search entries made of the first two words of names
// spread over the catalogue: a third as typed, a third with two letters
// of the first word swapped, a third with the last word cut to three
// letters (search as you type).
func searches(names []string) []entry {
	var out []entry
	for i := range searchCount {
		f := strings.Fields(names[i*len(names)/searchCount])
		q := strings.Join(f[:min(2, len(f))], " ")
		switch w := f[0]; {
		case i%3 == 1 && len(w) >= 5:
			q = w[:1] + w[2:3] + w[1:2] + w[3:] + strings.TrimPrefix(q, w)
		case i%3 == 2 && len(f) >= 2 && len(f[1]) > 3:
			q = f[0] + " " + f[1][:3]
		}
		out = append(out, entry{Kind: kindSearch, Op: plan.Exercises, Path: pathExercises + "?" + url.Values{"q": {q}, "limit": {"10"}}.Encode()})
	}
	return out
}

// related returns variations and alternatives pages of ids spread over
// the catalogue.
func related(ids []string) []entry {
	var out []entry
	for i := range relatedCount {
		id := url.PathEscape(ids[i*len(ids)/relatedCount])
		rel, op := "alternatives", plan.ExerciseAlternatives
		if i%2 == 1 {
			rel, op = "variations", plan.ExerciseVariations
		}
		out = append(out, entry{Kind: kindRelated, Op: op, Path: pathExercises + "/" + id + "/" + rel + "?limit=10"})
	}
	return out
}

func nameWords(names []string, n int) []string {
	var words []string
	for i := 1; i <= 4*n && len(words) < n; i++ {
		f := strings.Fields(names[i*len(names)/(4*n+1)])
		if len(f) == 0 {
			continue
		}
		if w := f[len(f)-1]; len(w) >= 4 && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return words
}
