package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testKey = "exdb_test_key"

// fakeAPI serves the listings of the public API over a fixed set of
// exercises, paging as docs/api.md says, and records the requests it gets.
type fakeAPI struct {
	exercises []Exercise // ordered by id
	mu        sync.Mutex
	override  http.HandlerFunc // if set, answers instead of the fake
	requests  []*http.Request
}

// answer makes h answer the requests from now on; nil restores the fake.
func (f *fakeAPI) answer(h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.override = h
}

func newFakeAPI(t *testing.T, n int) (*fakeAPI, *httptest.Server) {
	t.Helper()
	f := &fakeAPI{}
	for i := range n {
		part := []string{"chest", "back", "waist"}[i%3]
		f.exercises = append(f.exercises, Exercise{
			ExerciseID: fmt.Sprintf("ex%02d", i), Name: fmt.Sprintf("exercise %d", i), Equipments: []string{"barbell"},
			BodyParts: []string{part}, ExerciseTypes: []string{"strength"}, Difficulty: "beginner",
			TargetMuscles: []string{"pectoralis major"}, SecondaryMuscles: []string{},
		})
		if i%2 == 0 {
			f.exercises[i].ImageURL = "https://media.example.test/" + f.exercises[i].ExerciseID + ".gif"
		}
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	override := f.override
	f.mu.Unlock()
	if override != nil {
		override(w, r)
		return
	}
	if r.Header.Get("X-Gateway-Key") != testKey {
		writeEnvelope(w, http.StatusUnauthorized, "UNAUTHORIZED", "Invalid API key.")
		return
	}
	switch {
	case r.URL.Path == "/api/v1/exercises" || r.URL.Path == "/api/v1/exercises/bodyparts":
		f.list(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/v1/exercises/"):
		id := strings.TrimPrefix(r.URL.Path, "/api/v1/exercises/")
		for _, x := range f.exercises {
			if x.ExerciseID == id {
				writeJSON(w, map[string]any{"success": true, "data": x})
				return
			}
		}
		writeEnvelope(w, http.StatusNotFound, "NOT_FOUND", "No exercise has the id "+strconv.Quote(id)+".")
	case r.URL.Path == "/api/v1/exercisetypes":
		writeJSON(w, map[string]any{"success": true, "data": []map[string]string{{"name": "strength", "imageUrl": "https://media.example.test/strength.gif"}}})
	case r.URL.Path == "/api/v1/bodyparts", r.URL.Path == "/api/v1/muscles", r.URL.Path == "/api/v1/equipments":
		name := strings.TrimPrefix(r.URL.Path, "/api/v1/")
		writeJSON(w, map[string]any{"success": true, "data": []map[string]string{{"name": name + " 1"}, {"name": name + " 2"}}})
	case r.URL.Path == "/api/v1/liveness":
		writeJSON(w, map[string]string{"status": "ok"})
	default:
		writeEnvelope(w, http.StatusNotFound, "NOT_FOUND", "There is no endpoint.")
	}
}

func (f *fakeAPI) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 10
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	var match []Exercise
	for _, x := range f.exercises {
		if parts := q.Get("bodyParts"); parts == "" || slices.ContainsFunc(strings.Split(parts, ","), func(p string) bool { return slices.Contains(x.BodyParts, p) }) {
			match = append(match, x)
		}
	}
	var start, end int
	if after := q.Get("after"); after != "" {
		start = len(match)
		for i, x := range match {
			if x.ExerciseID > after {
				start = i
				break
			}
		}
		end = min(start+limit, len(match))
	} else if before := q.Get("before"); before != "" {
		end = 0
		for i, x := range match {
			if x.ExerciseID < before {
				end = i + 1
			}
		}
		start = max(0, end-limit)
	} else {
		end = min(limit, len(match))
	}
	page := match[start:end]
	meta := map[string]any{"total": len(match), "hasNextPage": end < len(match), "hasPreviousPage": start > 0,
		"nextCursor": nil, "previousCursor": nil}
	if end < len(match) && len(page) > 0 {
		meta["nextCursor"] = page[len(page)-1].ExerciseID
	}
	if start > 0 && len(page) > 0 {
		meta["previousCursor"] = page[0].ExerciseID
	}
	writeJSON(w, map[string]any{"success": true, "meta": meta, "data": page})
}

func (f *fakeAPI) queries() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		out = append(out, r.URL.RawQuery)
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

func writeEnvelope(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Request-Id", "req_abcdefghijklmnop")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{
		"code": code, "docs": "https://docs.example.test/errors/code/" + code, "message": message, "requestId": "req_abcdefghijklmnop",
	}})
}

// newClient returns a client of srv whose waits (pacing, retries) do not
// sleep: see waits.
func newClient(t *testing.T, srv *httptest.Server, opts ...Option) *Client {
	t.Helper()
	c, err := New(srv.URL+"/", testKey, append([]Option{WithHTTPClient(srv.Client())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	waits(c)
	return c
}

// waits makes c's clock stand still and its waits return at once, and
// returns the record of the waits it was asked for (zero ones left out).
func waits(c *Client) *[]time.Duration {
	var mu sync.Mutex
	var out []time.Duration
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	c.jitter = func(time.Duration) time.Duration { return 0 }
	c.sleep = func(ctx context.Context, d time.Duration) error {
		if d > 0 {
			mu.Lock()
			out = append(out, d)
			mu.Unlock()
		}
		return ctx.Err()
	}
	return &out
}

func TestNew(t *testing.T) {
	for _, base := range []string{"https://api.example.test", "http://127.0.0.1:8080/", "https://example.test/prefix"} {
		if _, err := New(base, "k"); err != nil {
			t.Errorf("New(%q): %v", base, err)
		}
	}
	for _, base := range []string{"", "api.example.test", "ftp://api.example.test", "https://api.example.test/?a=b", "https://api.example.test/#x", "http://%zz"} {
		if _, err := New(base, "k"); err == nil {
			t.Errorf("New(%q) accepted a bad base URL", base)
		}
	}
}

// TestRequests checks what the client sends: method, path, query and
// headers.
func TestRequests(t *testing.T) {
	f, srv := newFakeAPI(t, 5)
	var got *http.Request
	var mu sync.Mutex
	f.answer(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/v1/exercises/") && r.URL.Path != "/api/v1/exercises/bodyparts" &&
			!strings.HasSuffix(r.URL.Path, "/variations") && !strings.HasSuffix(r.URL.Path, "/alternatives"):
			writeJSON(w, map[string]any{"success": true, "data": f.exercises[0]})
		case r.URL.Path == "/api/v1/liveness":
			writeJSON(w, map[string]string{"status": "ok"})
		default:
			writeJSON(w, map[string]any{"success": true, "meta": map[string]any{}, "data": []any{}})
		}
	})
	last := func() *http.Request {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	c := newClient(t, srv, WithGatewayHost("video.example.test"))
	ctx := context.Background()
	tests := []struct {
		name  string
		call  func() error
		path  string
		query url.Values
	}{
		{"every-filter", func() error {
			_, err := c.ListExercises(ctx, Query{
				BodyParts: []string{"chest", "upper arms"}, Equipments: []string{"barbell"}, Difficulty: []string{"beginner", "advanced"},
				ExerciseTypes: []string{"strength"}, TargetMuscles: []string{"biceps"}, SecondaryMuscles: []string{"triceps", "deltoid"},
				Name: "curl & press", Q: "db curls", Limit: 25, After: "ex01",
			})
			return err
		}, "/api/v1/exercises", url.Values{
			"bodyParts": {"chest,upper arms"}, "equipments": {"barbell"}, "difficulty": {"beginner,advanced"}, "exerciseTypes": {"strength"},
			"targetMuscles": {"biceps"}, "secondaryMuscles": {"triceps,deltoid"}, "name": {"curl & press"}, "q": {"db curls"}, "limit": {"25"}, "after": {"ex01"},
		}},
		{"zero-query", func() error { _, err := c.ListExercises(ctx, Query{}); return err }, "/api/v1/exercises", url.Values{}},
		{"bodyparts", func() error {
			_, err := c.ListExercisesByBodyParts(ctx, BodyPartsQuery{BodyParts: []string{"chest"}, Limit: 3, Before: "ex04"})
			return err
		}, "/api/v1/exercises/bodyparts", url.Values{"bodyParts": {"chest"}, "limit": {"3"}, "before": {"ex04"}}},
		{"include", func() error {
			_, err := c.ListExercisesByBodyParts(ctx, BodyPartsQuery{Include: []Field{Description, Aliases}})
			return err
		}, "/api/v1/exercises/bodyparts", url.Values{"include": {"description,aliases"}}},
		{"variations", func() error {
			_, err := c.ListVariations(ctx, "a/b", Query{Include: []Field{Instructions, Tips}, Limit: 2, After: "ex01"})
			return err
		}, "/api/v1/exercises/a%2Fb/variations", url.Values{"include": {"instructions,tips"}, "limit": {"2"}, "after": {"ex01"}}},
		{"alternatives", func() error {
			_, err := c.ListAlternatives(ctx, "ex01", Query{Equipments: []string{"body weight", "dumbbell"}})
			return err
		}, "/api/v1/exercises/ex01/alternatives", url.Values{"equipments": {"body weight,dumbbell"}}},
		{"exercise-escaped", func() error { _, err := c.Exercise(ctx, "a/b c"); return err }, "/api/v1/exercises/a%2Fb%20c", url.Values{}},
		{"exercisetypes", func() error { _, err := c.ExerciseTypes(ctx); return err }, "/api/v1/exercisetypes", url.Values{}},
		{"bodyparts-list", func() error { _, err := c.BodyParts(ctx); return err }, "/api/v1/bodyparts", url.Values{}},
		{"muscles", func() error { _, err := c.Muscles(ctx); return err }, "/api/v1/muscles", url.Values{}},
		{"equipments", func() error { _, err := c.Equipments(ctx); return err }, "/api/v1/equipments", url.Values{}},
		{"liveness", func() error { _, err := c.Liveness(ctx); return err }, "/api/v1/liveness", url.Values{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err != nil {
				t.Fatal(err)
			}
			got := last()
			if got.Method != http.MethodGet || got.URL.EscapedPath() != tt.path {
				t.Errorf("%s %s, want GET %s", got.Method, got.URL.EscapedPath(), tt.path)
			}
			if diff := cmp.Diff(tt.query, got.URL.Query()); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
			for k, want := range map[string]string{"X-Gateway-Key": testKey, "X-Gateway-Host": "video.example.test", "Accept": "application/json"} {
				if v := got.Header.Get(k); v != want {
					t.Errorf("%s = %q, want %q", k, v, want)
				}
			}
		})
	}
	if _, err := c.Exercise(ctx, ""); err == nil {
		t.Error("Exercise(\"\") sent a request")
	}
	if _, err := c.ListAlternatives(ctx, "", Query{}); err == nil {
		t.Error("ListAlternatives(\"\") sent a request")
	}
	// Without WithGatewayHost no X-Gateway-Host is sent.
	if _, err := newClient(t, srv).Liveness(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := last().Header["X-Gateway-Host"]; ok {
		t.Error("X-Gateway-Host sent without WithGatewayHost")
	}
}

// TestResponses checks the decoding of every operation's answer.
func TestResponses(t *testing.T) {
	f, srv := newFakeAPI(t, 5)
	c := newClient(t, srv)
	ctx := context.Background()

	page, err := c.ListExercises(ctx, Query{Limit: 2, After: "ex00"})
	if err != nil {
		t.Fatal(err)
	}
	want := &Page{Meta: Meta{Total: 5, HasNextPage: true, HasPreviousPage: true, NextCursor: "ex02", PreviousCursor: "ex01"}, Exercises: f.exercises[1:3]}
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	page, err = c.ListExercisesByBodyParts(ctx, BodyPartsQuery{BodyParts: []string{"chest"}})
	if err != nil {
		t.Fatal(err)
	}
	want = &Page{Meta: Meta{Total: 2}, Exercises: []Exercise{f.exercises[0], f.exercises[3]}}
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("first and last page: null cursors must be empty (-want +got):\n%s", diff)
	}
	x, err := c.Exercise(ctx, "ex01")
	if err != nil || x.ImageURL != "" || !cmp.Equal(*x, f.exercises[1]) {
		t.Errorf("Exercise = %+v, %v; want %+v", x, err, f.exercises[1])
	}
	types, err := c.ExerciseTypes(ctx)
	if diff := cmp.Diff([]ExerciseType{{Name: "strength", ImageURL: "https://media.example.test/strength.gif"}}, types); err != nil || diff != "" {
		t.Errorf("ExerciseTypes: %v (-want +got):\n%s", err, diff)
	}
	parts, err := c.BodyParts(ctx)
	if diff := cmp.Diff([]BodyPart{{"bodyparts 1"}, {"bodyparts 2"}}, parts); err != nil || diff != "" {
		t.Errorf("BodyParts: %v (-want +got):\n%s", err, diff)
	}
	muscles, err := c.Muscles(ctx)
	if diff := cmp.Diff([]Muscle{{"muscles 1"}, {"muscles 2"}}, muscles); err != nil || diff != "" {
		t.Errorf("Muscles: %v (-want +got):\n%s", err, diff)
	}
	equipments, err := c.Equipments(ctx)
	if diff := cmp.Diff([]Equipment{{"equipments 1"}, {"equipments 2"}}, equipments); err != nil || diff != "" {
		t.Errorf("Equipments: %v (-want +got):\n%s", err, diff)
	}
	if status, err := c.Liveness(ctx); err != nil || status != "ok" {
		t.Errorf("Liveness = %q, %v", status, err)
	}
}

// TestErrors checks that error responses become *Error, and that other
// failures do not pretend to be one.
func TestErrors(t *testing.T) {
	f, srv := newFakeAPI(t, 3)
	c := newClient(t, srv)
	ctx := context.Background()
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		want     *Error
		notAPIEr bool // the error is no *Error
	}{
		{name: "envelope", handler: func(w http.ResponseWriter, r *http.Request) {
			writeEnvelope(w, http.StatusBadRequest, CodeBadRequest, "limit must be a whole number from 1 to 25; got \"26\".")
		}, want: &Error{Status: 400, Code: CodeBadRequest, Message: "limit must be a whole number from 1 to 25; got \"26\".",
			Docs: "https://docs.example.test/errors/code/BAD_REQUEST", RequestID: "req_abcdefghijklmnop"}},
		{name: "retry-after", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			writeEnvelope(w, http.StatusTooManyRequests, CodeTooManyRequests, "slow down")
		}, want: &Error{Status: 429, Code: CodeTooManyRequests, Message: "slow down", Docs: "https://docs.example.test/errors/code/TOO_MANY_REQUESTS",
			RequestID: "req_abcdefghijklmnop", RetryAfter: 3 * time.Second}},
		{name: "not-an-envelope", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("X-Request-Id", "req_fromtheheader00")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html>bad gateway</html>"))
		}, want: &Error{Status: 502, Message: "Bad Gateway", RequestID: "req_fromtheheader00"}},
		{name: "not-json", handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("{"))
		}, notAPIEr: true},
		{name: "too-large", handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"data":"` + strings.Repeat("x", maxBody) + `"}`))
		}, notAPIEr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.answer(tt.handler)
			_, err := c.ListExercises(ctx, Query{})
			var apiErr *Error
			if tt.notAPIEr {
				if err == nil || errors.As(err, &apiErr) {
					t.Fatalf("err = %#v, want a failure that is no *Error", err)
				}
				return
			}
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if diff := cmp.Diff(tt.want, apiErr); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	f.answer(nil)
	_, err := newClientKey(t, srv, "wrong").BodyParts(ctx)
	if e := (*Error)(nil); !errors.As(err, &e) || e.Status != 401 || e.Code != CodeUnauthorized ||
		err.Error() != "exercisedb: 401 UNAUTHORIZED: Invalid API key. (request req_abcdefghijklmnop)" {
		t.Errorf("wrong key: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Liveness(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func newClientKey(t *testing.T, srv *httptest.Server, key string) *Client {
	t.Helper()
	c, err := New(srv.URL, key, WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	waits(c)
	return c
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"": 0, "7": 7 * time.Second, "-1": 0, "soon": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

// collect ranges over seq, stopping after n exercises if n > 0.
func collect(seq func(func(Exercise, error) bool), n int) ([]string, error) {
	var ids []string
	for x, err := range seq {
		if err != nil {
			return ids, err
		}
		ids = append(ids, x.ExerciseID)
		if len(ids) == n {
			break
		}
	}
	return ids, nil
}

func TestIterators(t *testing.T) {
	f, srv := newFakeAPI(t, 8)
	c := newClient(t, srv)
	ctx := context.Background()
	reset := func() {
		f.mu.Lock()
		f.requests = nil
		f.mu.Unlock()
	}
	ids := func(xs []Exercise) []string {
		var out []string
		for _, x := range xs {
			out = append(out, x.ExerciseID)
		}
		return out
	}

	t.Run("every-page", func(t *testing.T) {
		reset()
		seq := c.Exercises(ctx, Query{Limit: 3})
		got, err := collect(seq, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ids(f.exercises), got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"limit=3", "after=ex02&limit=3", "after=ex05&limit=3"}, f.queries()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		// A sequence starts again from its query each time.
		again, err := collect(seq, 0)
		if err != nil || !cmp.Equal(got, again) {
			t.Errorf("second range: %v, %v", again, err)
		}
	})
	t.Run("early-stop", func(t *testing.T) {
		reset()
		got, err := collect(c.Exercises(ctx, Query{Limit: 3}), 4)
		if err != nil || len(got) != 4 {
			t.Fatalf("%v, %v", got, err)
		}
		if n := len(f.queries()); n != 2 {
			t.Errorf("%d requests for 4 exercises of pages of 3, want 2", n)
		}
	})
	t.Run("from-a-cursor", func(t *testing.T) {
		reset()
		got, err := collect(c.Exercises(ctx, Query{Limit: 2, Before: "ex05"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ids(f.exercises[3:]), got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if q := f.queries(); q[0] != "before=ex05&limit=2" || q[1] != "after=ex04&limit=2" {
			t.Errorf("requests %q: want the before page, then after pages", q)
		}
	})
	t.Run("bodyparts", func(t *testing.T) {
		reset()
		got, err := collect(c.ExercisesByBodyParts(ctx, BodyPartsQuery{BodyParts: []string{"chest", "back"}, Limit: 2}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"ex00", "ex01", "ex03", "ex04", "ex06", "ex07"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if n := len(f.queries()); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
	t.Run("error-ends-the-walk", func(t *testing.T) {
		reset()
		c := newClient(t, srv, WithRetry(RetryPolicy{Attempts: 1}))
		var calls atomic.Int32
		f.answer(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 2 {
				w.Header().Set("Retry-After", "1")
				writeEnvelope(w, http.StatusTooManyRequests, CodeTooManyRequests, "slow down")
				return
			}
			f.list(w, r)
		})
		defer f.answer(nil)
		var got []string
		var errs []error
		for x, err := range c.Exercises(ctx, Query{Limit: 3}) {
			if err != nil {
				errs = append(errs, err)
				continue // the iterator must end by itself
			}
			got = append(got, x.ExerciseID)
		}
		var apiErr *Error
		if len(errs) != 1 || !errors.As(errs[0], &apiErr) || apiErr.RetryAfter != time.Second {
			t.Errorf("errors %v, want one 429", errs)
		}
		if diff := cmp.Diff(ids(f.exercises[:3]), got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("next-page-without-cursor", func(t *testing.T) {
		f.answer(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, map[string]any{"success": true, "meta": map[string]any{"total": 9, "hasNextPage": true, "nextCursor": nil}, "data": []any{}})
		})
		defer f.answer(nil)
		n := 0
		for _, err := range c.Exercises(ctx, Query{}) {
			if n++; n > 1 || err == nil {
				t.Fatalf("yield %d: %v, want one error", n, err)
			}
		}
	})
}
