package systemtest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/exercisedb/exercisedb/pkg/client"
)

// newAPIClient returns a pkg/client client of the system's gateway with
// a test key (a testKeys id) or a literal one.
func newAPIClient(t *testing.T, s *system, keyID string) *client.Client {
	t.Helper()
	key := keyID
	if k, ok := testKeys[keyID]; ok {
		key = k.key
	}
	c, err := client.New(s.gateway.URL, key, client.WithHTTPClient(s.gateway.Client()), client.WithGatewayHost("api.example.test"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// walk collects what an iterator yields; it fails the test on an error.
func walk(t *testing.T, seq func(func(client.Exercise, error) bool)) []client.Exercise {
	t.Helper()
	var out []client.Exercise
	for x, err := range seq {
		if err != nil {
			t.Fatalf("after %d exercises: %v", len(out), err)
		}
		out = append(out, x)
	}
	return out
}

// TestClientPaging walks every page of filtered listings with the
// client's iterators and compares the walk with one page of 25.
func TestClientPaging(t *testing.T) {
	s := start(t, options{})
	ctx := context.Background()
	pro := newAPIClient(t, s, "key_pro")

	q := client.Query{BodyParts: []string{"hips", "upper legs", "waist"}, Difficulty: []string{"beginner", "intermediate"}, Limit: 25}
	big, err := pro.ListExercises(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if big.Meta.HasNextPage || big.Meta.Total != len(big.Exercises) || len(big.Exercises) < 5 {
		t.Fatalf("the page of 25 should hold the whole listing: %+v, %d exercises", big.Meta, len(big.Exercises))
	}
	for _, limit := range []int{1, 2, 4} {
		q.Limit = limit
		if diff := cmp.Diff(big.Exercises, walk(t, pro.Exercises(ctx, q))); diff != "" {
			t.Errorf("pages of %d (-one page +walk):\n%s", limit, diff)
		}
	}
	// Starting from a cursor, the walk goes on to the end.
	q.Limit, q.After = 2, big.Exercises[2].ExerciseID
	if diff := cmp.Diff(big.Exercises[3:], walk(t, pro.Exercises(ctx, q))); diff != "" {
		t.Errorf("after %s (-want +got):\n%s", q.After, diff)
	}

	bq := client.BodyPartsQuery{BodyParts: []string{"chest", "back"}, Limit: 25}
	bigParts, err := pro.ListExercisesByBodyParts(ctx, bq)
	if err != nil {
		t.Fatal(err)
	}
	if bigParts.Meta.HasNextPage || len(bigParts.Exercises) != 10 {
		t.Fatalf("chest and back: %+v, %d exercises, want 10 on one page", bigParts.Meta, len(bigParts.Exercises))
	}
	bq.Limit = 3
	if diff := cmp.Diff(bigParts.Exercises, walk(t, pro.ExercisesByBodyParts(ctx, bq))); diff != "" {
		t.Errorf("body parts in pages of 3 (-one page +walk):\n%s", diff)
	}

	// The Basic plan's record cap (3) ends the walk.
	basic := newAPIClient(t, s, "key_basic")
	capped := walk(t, basic.ExercisesByBodyParts(ctx, client.BodyPartsQuery{BodyParts: []string{"chest", "back"}, Limit: 2}))
	if diff := cmp.Diff(bigParts.Exercises[:3], capped); diff != "" {
		t.Errorf("capped walk (-want +got):\n%s", diff)
	}
}

// sortStrings compares lists of names in any order.
var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// TestClientEndpoints calls every operation through the client.
func TestClientEndpoints(t *testing.T) {
	s := start(t, options{})
	ctx := context.Background()
	c := newAPIClient(t, s, "key_mega")

	x, err := c.Exercise(ctx, "humnn3ws")
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.ListExercises(ctx, client.Query{After: "humnn3ws", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	prev, err := c.ListExercises(ctx, client.Query{Before: page.Exercises[0].ExerciseID, Limit: 1,
		Include: []client.Field{client.Description, client.Instructions, client.Tips, client.Aliases, client.MediaField}})
	if err != nil || len(prev.Exercises) != 1 || !cmp.Equal(*x, prev.Exercises[0]) {
		t.Errorf("Exercise(humnn3ws) = %+v, the listing has %+v (%v)", x, prev, err)
	}
	if m := x.Media; m == nil || m.MuscleMap == "" || m.Poster == "" || len(m.Renditions) != 2 || m.Renditions[1].Height != 360 {
		t.Errorf("humnn3ws: media %+v, want a muscle map, a poster and two renditions (the default largest height, 360)", m)
	}
	if x.ImageURL == "" {
		t.Error("humnn3ws has no imageUrl")
	}
	if plank, err := c.Exercise(ctx, idOf(t, "plank")); err != nil || plank.ImageURL != "" {
		t.Errorf("plank: %+v, %v; want no image", plank, err)
	}

	var vocab struct {
		Vocabularies struct {
			BodyParts, Muscles, Equipments []struct{ Name string }
			ExerciseTypes                  []struct{ Name, MediaKey string }
		}
	}
	data, err := os.ReadFile("testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &vocab); err != nil {
		t.Fatal(err)
	}
	names := func(list []struct{ Name string }) []string {
		var out []string
		for _, e := range list {
			out = append(out, e.Name)
		}
		return out
	}
	bodyParts, err := c.BodyParts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bodyParts {
		got = append(got, b.Name)
	}
	if diff := cmp.Diff(names(vocab.Vocabularies.BodyParts), got, sortStrings); diff != "" {
		t.Errorf("BodyParts (-catalogue +client):\n%s", diff)
	}
	muscles, err := c.Muscles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, m := range muscles {
		got = append(got, m.Name)
	}
	if diff := cmp.Diff(names(vocab.Vocabularies.Muscles), got, sortStrings); diff != "" {
		t.Errorf("Muscles (-catalogue +client):\n%s", diff)
	}
	equipments, err := c.Equipments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, e := range equipments {
		got = append(got, e.Name)
	}
	if diff := cmp.Diff(names(vocab.Vocabularies.Equipments), got, sortStrings); diff != "" {
		t.Errorf("Equipments (-catalogue +client):\n%s", diff)
	}
	types, err := c.ExerciseTypes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != len(vocab.Vocabularies.ExerciseTypes) {
		t.Errorf("%d exercise types, the catalogue has %d", len(types), len(vocab.Vocabularies.ExerciseTypes))
	}
	for _, typ := range types {
		if !strings.HasPrefix(typ.ImageURL, "https://media.example.test/gif/360p/") {
			t.Errorf("exercise type %+v: imageUrl not from the product's template", typ)
		}
	}
	if status, err := c.Liveness(ctx); err != nil || status != "ok" {
		t.Errorf("Liveness = %q, %v", status, err)
	}
}

// TestClientErrors checks that the gateway's error responses become
// *client.Error with the envelope's fields.
func TestClientErrors(t *testing.T) {
	s := start(t, options{})
	ctx := context.Background()
	asError := func(t *testing.T, err error, status int, code string) *client.Error {
		t.Helper()
		var e *client.Error
		if !errors.As(err, &e) {
			t.Fatalf("err = %v, want a *client.Error", err)
		}
		if e.Status != status || e.Code != code || e.Message == "" || !requestIDPattern.MatchString(e.RequestID) ||
			e.Docs != "https://docs.example.test/docs/errors/code/"+code {
			t.Errorf("err = %+v, want %d %s with a message, a request id and a docs link", e, status, code)
		}
		return e
	}

	_, err := newAPIClient(t, s, "exdb_wrong").BodyParts(ctx)
	asError(t, err, 401, client.CodeUnauthorized)
	n := 0
	for _, err := range newAPIClient(t, s, "exdb_wrong_too").Exercises(ctx, client.Query{Limit: 2}) {
		n++
		asError(t, err, 401, client.CodeUnauthorized)
	}
	if n != 1 {
		t.Errorf("a failing walk yielded %d times, want once", n)
	}

	pro := newAPIClient(t, s, "key_pro")
	_, err = pro.ListExercises(ctx, client.Query{Limit: 26})
	if e := asError(t, err, 400, client.CodeBadRequest); !strings.Contains(e.Message, "limit") {
		t.Errorf("the message does not name limit: %q", e.Message)
	}
	_, err = pro.ListExercises(ctx, client.Query{BodyParts: []string{"chst"}})
	asError(t, err, 400, client.CodeBadRequest)
	_, err = pro.Exercise(ctx, "zzzzzzzz")
	asError(t, err, 404, client.CodeNotFound)
	_, err = newAPIClient(t, s, "key_basic").ListExercises(ctx, client.Query{})
	asError(t, err, 403, client.CodeForbidden)

	basic := newAPIClient(t, s, "key_basic")
	for range 5 {
		if _, err := basic.Muscles(ctx); err != nil {
			t.Fatal(err)
		}
	}
	_, err = basic.Muscles(ctx)
	if e := asError(t, err, 429, client.CodeTooManyRequests); e.RetryAfter < time.Second {
		t.Errorf("RetryAfter = %v, want at least a second", e.RetryAfter)
	}
}

// TestClientRelations walks the relation lists one record a page, forward
// with the iterators and backward with the cursors, against the real
// gateway and catalog, and checks the content the client decodes.
func TestClientRelations(t *testing.T) {
	s := start(t, options{})
	ctx := context.Background()
	pro := newAPIClient(t, s, "key_pro")

	full, err := pro.Exercise(ctx, "humnn3ws")
	if err != nil {
		t.Fatal(err)
	}
	if full.Description == "" || len(full.Instructions) < 3 || len(full.Tips) < 1 || len(full.Aliases) == 0 {
		t.Fatalf("Exercise lacks content: %+v", full)
	}
	for _, tc := range []struct {
		name string
		seq  func(func(client.Exercise, error) bool)
		page func(client.Query) (*client.Page, error)
		want []string
	}{
		{"alternatives", pro.Alternatives(ctx, "humnn3ws", client.Query{Limit: 1, Include: []client.Field{client.Tips}}),
			func(q client.Query) (*client.Page, error) { return pro.ListAlternatives(ctx, "humnn3ws", q) },
			[]string{"uy34skpt", "bykvsiz3", "2u3xkyps"}},
		{"variations", pro.Variations(ctx, "6zulzjby", client.Query{Limit: 1, Include: []client.Field{client.Tips}}),
			func(q client.Query) (*client.Page, error) { return pro.ListVariations(ctx, "6zulzjby", q) },
			[]string{"5eathpps", "ce6mkd7m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := walk(t, tc.seq)
			var ids []string
			for _, x := range got {
				ids = append(ids, x.ExerciseID)
				if len(x.Tips) == 0 || x.Description != "" || x.Instructions != nil {
					t.Errorf("%s: include=tips gave tips %q, description %q, instructions %q", x.ExerciseID, x.Tips, x.Description, x.Instructions)
				}
			}
			if diff := cmp.Diff(tc.want, ids); diff != "" {
				t.Fatalf("forward (-want +got):\n%s", diff)
			}
			// Backward from the last record, one page at a time.
			var back []string
			q := client.Query{Limit: 1, Before: tc.want[len(tc.want)-1]}
			for {
				p, err := tc.page(q)
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range p.Exercises {
					back = append([]string{x.ExerciseID}, back...)
				}
				if !p.Meta.HasPreviousPage {
					break
				}
				q.Before = p.Meta.PreviousCursor
			}
			if diff := cmp.Diff(tc.want[:len(tc.want)-1], back); diff != "" {
				t.Fatalf("backward (-want +got):\n%s", diff)
			}
		})
	}
	var apiErr *client.Error
	if _, err := pro.ListAlternatives(ctx, "zzzzzzzz", client.Query{}); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("alternatives of an unknown id: %v, want a 404 *client.Error", err)
	}
}

// TestClientCodesMatchDocs holds the client's error codes to the list
// /docs/errors serves: one constant for every code, with its status.
func TestClientCodesMatchDocs(t *testing.T) {
	s := start(t, options{})
	_, body := s.do(t, request{path: "/docs/errors", host: "-"})
	docs := map[int]string{}
	for _, m := range regexp.MustCompile(`>(\d{3}) ([A-Z_]+)</a>`).FindAllStringSubmatch(string(body), -1) {
		status, _ := strconv.Atoi(m[1])
		docs[status] = m[2]
	}
	if len(docs) == 0 {
		t.Fatalf("no codes found in /docs/errors:\n%s", body)
	}
	if diff := cmp.Diff(docs, client.Codes()); diff != "" {
		t.Errorf("(-/docs/errors +client.Codes):\n%s", diff)
	}
}
