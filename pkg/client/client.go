// Package client is a Go client of the exercise catalogue's public HTTP
// API, the one the gateway serves (docs/api.md; the OpenAPI document
// at /openapi.json). It has a typed method per operation, a typed *Error
// for the error envelope, and iterators that follow a listing's cursors
// page after page. It depends on neither the gateway nor the catalog.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds the size of a response the client reads.
const maxBody = 8 << 20

// userAgent is sent with every request.
const userAgent = "exercisedb-go-client/1"

// Client calls the public API with one key. It is safe for concurrent
// use.
type Client struct {
	base   string // the base URL, without a trailing slash
	key    string
	host   string // X-Gateway-Host, if not empty
	hc     *http.Client
	retry  RetryPolicy
	pacing Pacing
	pace   pacer

	// The clock and the dice, replaced by tests.
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
	jitter func(time.Duration) time.Duration
}

// An Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes the client send its requests with hc instead of
// http.DefaultClient; use it to set timeouts or a transport.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.hc = hc }
}

// WithGatewayHost sends host in the X-Gateway-Host header, which selects
// the product; without it the gateway uses the host of the base URL.
func WithGatewayHost(host string) Option {
	return func(c *Client) { c.host = host }
}

// New returns a client of the API at baseURL (for example
// "https://exercisedb.example.com") that sends key in X-Gateway-Key.
// The base URL may have a path prefix but no query or fragment.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client: base URL %q: want http or https, a host, and neither query nor fragment", baseURL)
	}
	c := &Client{base: strings.TrimRight(baseURL, "/"), key: key, hc: http.DefaultClient, retry: DefaultRetryPolicy,
		now: time.Now, sleep: sleep, jitter: randomJitter}
	for _, opt := range opts {
		opt(c)
	}
	if c.hc == nil {
		c.hc = http.DefaultClient
	}
	c.retry.Attempts = max(c.retry.Attempts, 1)
	return c, nil
}

// Exercise is an exercise of the catalogue.
type Exercise struct {
	// ExerciseID identifies the exercise; listings are ordered by it and
	// use it as their cursor.
	ExerciseID       string   `json:"exerciseId"`
	Name             string   `json:"name"`
	Equipments       []string `json:"equipments"`
	BodyParts        []string `json:"bodyParts"`
	ExerciseTypes    []string `json:"exerciseTypes"`
	Difficulty       string   `json:"difficulty"`
	TargetMuscles    []string `json:"targetMuscles"`
	SecondaryMuscles []string `json:"secondaryMuscles"`
	// ImageURL is the exercise's demonstration, 360 pixels high, in the
	// product's media kind (GIF or video); empty when the exercise has
	// none. It needs no key.
	ImageURL string `json:"imageUrl,omitempty"`
	// Media are the exercise's pictures: Exercise fills them, listings
	// when their query's Include names MediaField.
	Media *Media `json:"media,omitempty"`

	// The content: Exercise fills all four; listings only those their
	// query's Include names.
	//
	// Description says what the movement is and what it trains.
	Description string `json:"description,omitempty"`
	// Instructions are the ordered steps.
	Instructions []string `json:"instructions,omitempty"`
	// Tips are coaching cues and common mistakes.
	Tips []string `json:"tips,omitempty"`
	// Aliases are other names people use for the exercise.
	Aliases []string `json:"aliases,omitempty"`
}

// Media are an exercise's pictures. Their URLs need no key and name their
// content, so they may be cached for ever.
type Media struct {
	// MuscleMap is an SVG of the body with the exercise's target muscles
	// in a strong colour and its secondary muscles in a lighter tint.
	MuscleMap string `json:"muscleMap"`
	// Poster is a PNG still of the demonstration, 360 pixels high.
	Poster string `json:"poster"`
	// Renditions are the demonstration at each height the plan allows,
	// smallest first.
	Renditions []Rendition `json:"renditions"`
}

// Rendition is an exercise's demonstration at one height.
type Rendition struct {
	Height int    `json:"height"` // pixels; demonstrations are square
	Type   string `json:"type"`   // image/gif or video/mp4
	URL    string `json:"url"`
}

// Field names a content field that a listing adds to its exercises when a
// query's Include asks for it.
type Field string

// The content fields.
const (
	Description  Field = "description"
	Instructions Field = "instructions"
	Tips         Field = "tips"
	Aliases      Field = "aliases"
	// MediaField is not a content field but the exercise's pictures (see
	// Media).
	MediaField Field = "media"
)

func include(v url.Values, fields []Field) {
	if len(fields) == 0 {
		return
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = string(f)
	}
	v.Set("include", strings.Join(names, ","))
}

// Meta describes a page of a listing.
type Meta struct {
	// Total counts the exercises matching the filters, at most the plan's
	// record cap.
	Total int `json:"total"`
	// HasNextPage and HasPreviousPage report whether matching, reachable
	// exercises lie after and before the page.
	HasNextPage     bool `json:"hasNextPage"`
	HasPreviousPage bool `json:"hasPreviousPage"`
	// NextCursor is the value of after for the next page, PreviousCursor
	// the value of before for the previous one; empty when there is none
	// (null in the JSON).
	NextCursor     string `json:"nextCursor"`
	PreviousCursor string `json:"previousCursor"`
	// MissingIDs are, for a query by IDs, the ids that name no exercise,
	// in the order given.
	MissingIDs []string `json:"missingIds,omitempty"`
}

// Page is one page of a listing.
type Page struct {
	Meta      Meta       `json:"meta"`
	Exercises []Exercise `json:"data"`
}

// ExerciseType is an entry of the exercise types list.
type ExerciseType struct {
	Name string `json:"name"`
	// ImageURL is the type's image in the product's media kind.
	ImageURL string `json:"imageUrl"`
}

// BodyPart is an entry of the body parts list: a value of the BodyParts
// filters.
type BodyPart struct {
	Name string `json:"name"`
}

// Muscle is an entry of the muscles list: a value of the TargetMuscles
// and SecondaryMuscles filters.
type Muscle struct {
	Name string `json:"name"`
}

// Equipment is an entry of the equipments list: a value of the Equipments
// filter.
type Equipment struct {
	Name string `json:"name"`
}

// Query selects a page of the general listing (ListExercises, Exercises)
// or of a relation list (ListVariations, ListAlternatives, and their
// iterators).
// Values within one filter are alternatives (any of them matches);
// different filters must all match. Zero fields are not sent.
type Query struct {
	BodyParts        []string
	Equipments       []string
	Difficulty       []string
	ExerciseTypes    []string
	TargetMuscles    []string
	SecondaryMuscles []string
	// Name keeps exercises whose name contains it, ignoring case, spaces
	// and punctuation.
	Name string
	// Q searches (ListExercises, Exercises only): the words a person would
	// type, forgiving typos, plurals and abbreviations. The results are
	// ranked best first, and the cursors are exercise ids of the results.
	Q string
	// Limit is the page size, 1 to 25; zero means the API's default, 10.
	Limit int
	// After asks for the page after this exercise id (a NextCursor),
	// Before for the page before it (a PreviousCursor). At most one.
	After, Before string
	// Include adds these content fields to each exercise.
	Include []Field
	// IDs asks for these exercises (1 to 100; ListExercises, Exercises
	// only), in this order, on one page and as one request against the
	// plan's limits: a saved workout in one call. Ids that name no
	// exercise come back in Meta.MissingIDs. Only Include may be set with
	// it.
	IDs []string
}

// BodyPartsQuery selects a page of the listing by body parts
// (ListExercisesByBodyParts, ExercisesByBodyParts). Zero fields are not
// sent.
type BodyPartsQuery struct {
	// BodyParts are alternatives; none lists every exercise.
	BodyParts []string
	// Limit is the page size, 1 to 25; zero means the API's default, 10.
	Limit int
	// After and Before are cursors, as in Query.
	After, Before string
	// Include adds these content fields to each exercise.
	Include []Field
}

func (q Query) values() url.Values {
	v := url.Values{}
	for name, list := range map[string][]string{
		"bodyParts": q.BodyParts, "equipments": q.Equipments, "difficulty": q.Difficulty,
		"exerciseTypes": q.ExerciseTypes, "targetMuscles": q.TargetMuscles, "secondaryMuscles": q.SecondaryMuscles,
	} {
		if len(list) > 0 {
			v.Set(name, strings.Join(list, ","))
		}
	}
	if q.Name != "" {
		v.Set("name", q.Name)
	}
	if q.Q != "" {
		v.Set("q", q.Q)
	}
	if len(q.IDs) > 0 {
		v.Set("ids", strings.Join(q.IDs, ","))
	}
	include(v, q.Include)
	paging(v, q.Limit, q.After, q.Before)
	return v
}

func (q BodyPartsQuery) values() url.Values {
	v := url.Values{}
	if len(q.BodyParts) > 0 {
		v.Set("bodyParts", strings.Join(q.BodyParts, ","))
	}
	include(v, q.Include)
	paging(v, q.Limit, q.After, q.Before)
	return v
}

func paging(v url.Values, limit int, after, before string) {
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if after != "" {
		v.Set("after", after)
	}
	if before != "" {
		v.Set("before", before)
	}
}

// ListExercises returns one page of the general listing
// (GET /api/v1/exercises).
func (c *Client) ListExercises(ctx context.Context, q Query) (*Page, error) {
	var p Page
	if err := c.get(ctx, "/api/v1/exercises", q.values(), &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// ListExercisesByBodyParts returns one page of the listing by body parts
// (GET /api/v1/exercises/bodyparts).
func (c *Client) ListExercisesByBodyParts(ctx context.Context, q BodyPartsQuery) (*Page, error) {
	var p Page
	if err := c.get(ctx, "/api/v1/exercises/bodyparts", q.values(), &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Exercises iterates over the general listing from the page q selects,
// following NextCursor until HasNextPage is false. Unless WithPacing says
// otherwise, it waits between pages as the plan's rate limit requires;
// each request is retried as the client's RetryPolicy says. A request
// that still fails ends the iteration with its error (an *Error for an
// error response). Each range over the sequence starts again from q.
func (c *Client) Exercises(ctx context.Context, q Query) iter.Seq2[Exercise, error] {
	ctx = paced(ctx)
	return walkQuery(q, func(q Query) (*Page, error) { return c.ListExercises(ctx, q) })
}

// pacedKey marks the context of an iterator's requests.
type pacedKey struct{}

func paced(ctx context.Context) context.Context { return context.WithValue(ctx, pacedKey{}, true) }

// walkQuery walks the pages that list returns from q on.
func walkQuery(q Query, list func(Query) (*Page, error)) iter.Seq2[Exercise, error] {
	return walk(func(after string) (*Page, error) {
		pq := q
		if after != "" {
			pq.After, pq.Before = after, ""
		}
		return list(pq)
	})
}

// ListVariations returns one page of the variations of the exercise id
// (GET /api/v1/exercises/{id}/variations): the other exercises of its
// movement family, easiest first. q's filters narrow the list; its cursors
// must be exercise ids of this list.
func (c *Client) ListVariations(ctx context.Context, id string, q Query) (*Page, error) {
	return c.related(ctx, id, "variations", q)
}

// ListAlternatives returns one page of the alternatives to the exercise
// id (GET /api/v1/exercises/{id}/alternatives): substitutes that share a
// target muscle and the movement pattern, best first. With
// q.Equipments, the substitutes for what one has at hand.
func (c *Client) ListAlternatives(ctx context.Context, id string, q Query) (*Page, error) {
	return c.related(ctx, id, "alternatives", q)
}

func (c *Client) related(ctx context.Context, id, relation string, q Query) (*Page, error) {
	if id == "" {
		return nil, errors.New("client: empty exercise id")
	}
	var p Page
	if err := c.get(ctx, "/api/v1/exercises/"+url.PathEscape(id)+"/"+relation, q.values(), &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Variations iterates over the variations of the exercise id as
// Exercises does over the general listing.
func (c *Client) Variations(ctx context.Context, id string, q Query) iter.Seq2[Exercise, error] {
	ctx = paced(ctx)
	return walkQuery(q, func(q Query) (*Page, error) { return c.ListVariations(ctx, id, q) })
}

// Alternatives iterates over the alternatives to the exercise id, best
// first, as Exercises does over the general listing.
func (c *Client) Alternatives(ctx context.Context, id string, q Query) iter.Seq2[Exercise, error] {
	ctx = paced(ctx)
	return walkQuery(q, func(q Query) (*Page, error) { return c.ListAlternatives(ctx, id, q) })
}

// ExercisesByBodyParts iterates over the listing by body parts as
// Exercises does over the general one.
func (c *Client) ExercisesByBodyParts(ctx context.Context, q BodyPartsQuery) iter.Seq2[Exercise, error] {
	ctx = paced(ctx)
	return walk(func(after string) (*Page, error) {
		pq := q
		if after != "" {
			pq.After, pq.Before = after, ""
		}
		return c.ListExercisesByBodyParts(ctx, pq)
	})
}

// walk yields the exercises of the pages fetch returns: the first page
// with after empty, then the page after each NextCursor.
func walk(fetch func(after string) (*Page, error)) iter.Seq2[Exercise, error] {
	return func(yield func(Exercise, error) bool) {
		after := ""
		for {
			page, err := fetch(after)
			if err != nil {
				yield(Exercise{}, err)
				return
			}
			for _, x := range page.Exercises {
				if !yield(x, nil) {
					return
				}
			}
			if !page.Meta.HasNextPage {
				return
			}
			if page.Meta.NextCursor == "" || page.Meta.NextCursor == after {
				yield(Exercise{}, fmt.Errorf("client: the page after %q has a next page but no new nextCursor (%q)", after, page.Meta.NextCursor))
				return
			}
			after = page.Meta.NextCursor
		}
	}
}

// Exercise returns the exercise with this id, with all its content
// (GET /api/v1/exercises/{id}).
func (c *Client) Exercise(ctx context.Context, id string) (*Exercise, error) {
	if id == "" {
		return nil, errors.New("client: empty exercise id")
	}
	var body struct {
		Data Exercise `json:"data"`
	}
	if err := c.get(ctx, "/api/v1/exercises/"+url.PathEscape(id), nil, &body); err != nil {
		return nil, err
	}
	return &body.Data, nil
}

// ExerciseTypes returns every exercise type (GET /api/v1/exercisetypes).
func (c *Client) ExerciseTypes(ctx context.Context) ([]ExerciseType, error) {
	return list[ExerciseType](ctx, c, "/api/v1/exercisetypes")
}

// BodyParts returns every body part (GET /api/v1/bodyparts).
func (c *Client) BodyParts(ctx context.Context) ([]BodyPart, error) {
	return list[BodyPart](ctx, c, "/api/v1/bodyparts")
}

// Muscles returns every muscle (GET /api/v1/muscles).
func (c *Client) Muscles(ctx context.Context) ([]Muscle, error) {
	return list[Muscle](ctx, c, "/api/v1/muscles")
}

// Equipments returns every piece of equipment (GET /api/v1/equipments).
func (c *Client) Equipments(ctx context.Context) ([]Equipment, error) {
	return list[Equipment](ctx, c, "/api/v1/equipments")
}

// Liveness returns the gateway's status, "ok" while it is up
// (GET /api/v1/liveness).
func (c *Client) Liveness(ctx context.Context) (string, error) {
	var body struct {
		Status string `json:"status"`
	}
	if err := c.get(ctx, "/api/v1/liveness", nil, &body); err != nil {
		return "", err
	}
	return body.Status, nil
}

// Usage is the caller's own figures for the product it addressed.
type Usage struct {
	Product string `json:"product"`
	// Plan is the key's plan for the product.
	Plan string `json:"plan"`
	// Rate is the rate limit as it stands; nil when the plan has none.
	Rate *RateUsage `json:"rate"`
	// Quota is the current quota window (a UTC day or month); nil when the
	// plan has none.
	Quota *QuotaUsage `json:"quota"`
	// Today and Month count the key's requests to the product in the
	// current UTC day and month, refusals included, calls of Usage not.
	Today RequestCount `json:"today"`
	Month RequestCount `json:"month"`
}

// RateUsage is a rate limit's state: Remaining requests admissible now,
// back to the full burst in ResetSeconds.
type RateUsage struct {
	Limit        int `json:"limit"`
	Remaining    int `json:"remaining"`
	ResetSeconds int `json:"resetSeconds"`
}

// QuotaUsage is a quota window's state; it renews in ResetSeconds.
type QuotaUsage struct {
	Limit        int `json:"limit"`
	Used         int `json:"used"`
	Remaining    int `json:"remaining"`
	ResetSeconds int `json:"resetSeconds"`
}

// RequestCount is a number of requests.
type RequestCount struct {
	Requests int64 `json:"requests"`
}

// Usage returns the key's plan, limits and requests for the product
// (GET /api/v1/usage). It is allowed on every plan and counted against
// no limit, so it may be polled.
func (c *Client) Usage(ctx context.Context) (*Usage, error) {
	var body struct {
		Data Usage `json:"data"`
	}
	if err := c.get(ctx, "/api/v1/usage", nil, &body); err != nil {
		return nil, err
	}
	return &body.Data, nil
}

// list fetches a reference list.
func list[T any](ctx context.Context, c *Client, path string) ([]T, error) {
	var body struct {
		Data []T `json:"data"`
	}
	if err := c.get(ctx, path, nil, &body); err != nil {
		return nil, err
	}
	return body.Data, nil
}

// get sends a GET request and decodes a 200 response's body into out;
// any other status is an *Error. It waits first if the call is paced and
// the rate limit requires, and sends the request again after a 429 or a
// 503 as the RetryPolicy says.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	pace := c.pacing == PaceAlways || c.pacing == PaceIterators && ctx.Value(pacedKey{}) != nil
	for attempt := 0; ; attempt++ {
		if pace {
			if err := c.sleep(ctx, c.pace.delay(c.now())); err != nil {
				return err
			}
		}
		resp, body, err := c.send(ctx, target)
		if err != nil {
			return fmt.Errorf("client: GET %s: %w", path, err)
		}
		c.pace.observe(resp.Header, c.now())
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(body, out); err != nil {
				return fmt.Errorf("client: GET %s: decoding the response: %w", path, err)
			}
			return nil
		}
		apiErr := responseError(resp, body)
		if !retryable(resp.StatusCode) || attempt+1 >= c.retry.Attempts {
			return apiErr
		}
		wait := c.retry.retryDelay(attempt, apiErr.RetryAfter, c.jitter)
		if wait > c.retry.MaxWait || c.sleep(ctx, wait) != nil {
			return apiErr // the refusal says more than the wait not taken
		}
	}
}

// retryable reports whether a response of this status is worth sending
// again: the rate limit refused it, or the catalogue was unavailable.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// send sends one GET request and reads the response; a status other than
// 200 is no error here, but a body too large to read is.
func (c *Client) send(ctx context.Context, target string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("X-Gateway-Key", c.key)
	if c.host != "" {
		req.Header.Set("X-Gateway-Host", c.host)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("the response is larger than %d bytes", maxBody)
	}
	if err != nil && resp.StatusCode == http.StatusOK {
		return nil, nil, err
	}
	return resp, body, nil
}
