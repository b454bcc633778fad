package main

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/plan"
)

// testEntries are entries like a crawl's: listings of both endpoints
// paged deep enough to pass the Basic cap, reference lists, singles and
// the tail.
func testEntries() []entry {
	var es []entry
	for _, r := range referenceLists {
		es = append(es, entry{Kind: kindReference, Op: r.op, Path: r.path})
	}
	for i := range 50 {
		es = append(es, entry{Kind: kindSingle, Op: plan.Exercise, Path: fmt.Sprintf("%s/id%d", pathExercises, i)})
	}
	for _, l := range []listing{
		{path: pathExercises, limit: 10},
		{path: pathExercises, limit: 10, query: url.Values{"bodyParts": {"chest"}}},
		{path: pathByBodyParts, limit: 10, query: url.Values{"bodyParts": {"back"}}},
	} {
		es = append(es, entry{Kind: l.firstKind(), Op: l.op(), Path: l.url("", "")})
		for page := 1; page < maxCrawlPages; page++ {
			es = append(es,
				entry{Kind: kindAfter, Op: l.op(), Path: l.url("after", fmt.Sprint("a", page)), Pos: page*10 - 1},
				entry{Kind: kindBefore, Op: l.op(), Path: l.url("before", fmt.Sprint("b", page)), Pos: page * 10})
		}
	}
	var names, ids []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("dumbbell exercise %d", i))
		ids = append(ids, fmt.Sprint("id", i))
	}
	es = append(es, searches(names)...)
	es = append(es, related(ids)...)
	return append(es, tailEntry)
}

func TestBuildMix(t *testing.T) {
	entries := testEntries()
	const n = 20000
	items, err := buildMix(entries, callers, kindWeights, n, 7)
	if err != nil {
		t.Fatal(err)
	}
	planOf, err := gatewayPlans()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != n {
		t.Fatalf("%d items, want %d", len(items), n)
	}
	pos := map[string]entry{}
	for _, e := range entries {
		pos[e.Path] = e
	}
	for _, it := range items {
		c := callers[it.Caller]
		p := planOf[c.Plan]
		e, ok := pos[it.Path]
		if !ok {
			t.Fatalf("item %+v: not an entry", it)
		}
		if e.Kind != it.Kind {
			t.Errorf("item %+v: entry of kind %q", it, e.Kind)
		}
		if !p.Allows(e.Op) {
			t.Errorf("%s (%s) gets %s, which its plan does not allow", c.KeyName, c.Plan, it.Path)
		}
		if !reachable(p, e.Pos) {
			t.Errorf("%s (%s) gets %s, past its record cap", c.KeyName, c.Plan, it.Path)
		}
	}

	byKind, byPlan := mixShares(items, callers)
	// Plans follow the callers' weights: 80% Mega, 15% Pro, 5% Basic.
	for plan, want := range map[string]float64{"Mega": 80, "Pro": 15, "Basic": 5} {
		if got := byPlan[plan]; math.Abs(got-want) > 1.5 {
			t.Errorf("plan %s: %.1f%% of the mix, want about %.0f%%", plan, got, want)
		}
	}
	for _, k := range kinds {
		if byKind[string(k)] == 0 {
			t.Errorf("no request of kind %q", k)
		}
	}
	// Basic can make only listings by body parts and reference lists.
	for _, it := range items {
		if callers[it.Caller].Plan == "Basic" && it.Kind != kindByBodyParts && it.Kind != kindReference && it.Kind != kindAfter && it.Kind != kindBefore {
			t.Errorf("Basic item of kind %q", it.Kind)
		}
		if it.Kind == kindTail && callers[it.Caller].Plan != "Mega" {
			t.Errorf("tail item for %s: only plans without a record cap may have one", callers[it.Caller].Plan)
		}
	}

	again, err := buildMix(entries, callers, kindWeights, n, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(items, again) {
		t.Error("the same seed gave another mix")
	}
	other, _ := buildMix(entries, callers, kindWeights, n, 8)
	if slices.Equal(items, other) {
		t.Error("another seed gave the same mix")
	}
}

func TestBuildMixErrors(t *testing.T) {
	if _, err := buildMix(testEntries(), []caller{{KeyName: "k", Plan: "Gold", Weight: 1}}, kindWeights, 10, 1); err == nil {
		t.Error("an unknown plan: no error")
	}
	onlySingles := []entry{{Kind: kindSingle, Op: plan.Exercise, Path: "/api/v1/exercises/x"}}
	if _, err := buildMix(onlySingles, []caller{{KeyName: "k", Plan: "Basic", Weight: 1}}, kindWeights, 10, 1); err == nil {
		t.Error("a caller that can make no request: no error")
	}
}

func TestMixRequests(t *testing.T) {
	cs := []caller{
		{KeyName: "a", Key: "key-a", Plan: "Mega", Weight: 1},
		{KeyName: "b", Key: "key-b", Plan: "Mega", Host: "video.example", Weight: 1},
	}
	rs := mixRequests("http://h", []mixItem{
		{Kind: kindSingle, Caller: 0, Path: "/api/v1/exercises/x"},
		{Kind: kindTail, Caller: 1},
	}, cs)
	if rs[0].URL != "http://h/api/v1/exercises/x" || rs[0].Tail || rs[0].Header.Get("X-Gateway-Key") != "key-a" || rs[0].Header.Get("X-Gateway-Host") != "" {
		t.Errorf("request 0 = %+v", rs[0])
	}
	if rs[1].URL != "" || !rs[1].Tail || rs[1].Header.Get("X-Gateway-Key") != "key-b" || rs[1].Header.Get("X-Gateway-Host") != "video.example" {
		t.Errorf("request 1 = %+v", rs[1])
	}
	if got := distinct(append(rs, rs...)); len(got) != 1 {
		t.Errorf("distinct = %d requests, want 1 (tail requests are left out)", len(got))
	}
}

func TestCacheOffPaths(t *testing.T) {
	v := vocab{BodyParts: []string{"chest", "upper legs"}, ExerciseTypes: []string{"strength"}}
	variants := cacheOffVariants(v)
	// none, 2 body parts, 3 difficulties, 1 type.
	if len(variants) != 7 {
		t.Fatalf("variants = %q", variants)
	}
	ids := []string{"a1", "b2", "c3", "d4"}
	paths := cacheOffPaths(ids, variants, 1)
	if len(paths) != len(ids)*len(variants) {
		t.Fatalf("%d paths, want %d", len(paths), len(ids)*len(variants))
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Errorf("%s twice in a cycle", p)
		}
		seen[p] = true
		u, err := url.Parse(p)
		if err != nil || u.Path != pathExercises || u.Query().Get("limit") != "10" || !slices.Contains(ids, u.Query().Get("after")) {
			t.Errorf("path %s", p)
		}
	}
	if !seen[pathExercises+"?limit=10&after=a1&bodyParts=upper+legs"] {
		t.Error("a filter value with a space is not escaped as expected")
	}
	if slices.Equal(paths, cacheOffPaths(ids, variants, 2)) {
		t.Error("the order does not depend on the seed")
	}
	if !slices.Equal(paths, cacheOffPaths(ids, variants, 1)) {
		t.Error("the same seed gave another order")
	}
}

func TestListings(t *testing.T) {
	v := vocab{
		BodyParts:     []string{"back", "chest", "upper legs"},
		Equipments:    []string{"barbell", "dumbbell"},
		ExerciseTypes: []string{"strength"},
		Muscles:       []string{"biceps brachii", "triceps"},
	}
	ls := listings(v, []string{"press", "curl"})
	seen := map[kind]int{}
	for _, l := range ls {
		seen[l.firstKind()]++
		for _, u := range []string{l.url("", ""), l.url("after", "x y"), l.url("before", "z")} {
			parsed, err := url.Parse(u)
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			q := parsed.Query()
			if q.Has("after") && q.Has("before") {
				t.Errorf("%s: both cursors", u)
			}
			for k := range q {
				if !slices.Contains([]string{"bodyParts", "equipments", "difficulty", "exerciseTypes", "targetMuscles", "secondaryMuscles", "name", "limit", "after", "before"}, k) {
					t.Errorf("%s: parameter %q", u, k)
				}
				if l.path == pathByBodyParts && !slices.Contains([]string{"bodyParts", "limit", "after", "before"}, k) {
					t.Errorf("%s: parameter %q on the body parts listing", u, k)
				}
			}
		}
	}
	for _, k := range []kind{kindFirstPage, kindFiltered, kindByBodyParts} {
		if seen[k] == 0 {
			t.Errorf("no listing whose first page is of kind %q", k)
		}
	}
	if got := (listing{path: pathExercises}).url("", ""); got != pathExercises {
		t.Errorf("a listing without a query: %s", got)
	}
}

func TestNameWords(t *testing.T) {
	names := []string{"barbell bench press", "dumbbell curl", "push-up", "squat", "cable fly", "lat pulldown", "leg press", "plank", "hammer curl", "deadlift"}
	words := nameWords(names, 3)
	if len(words) == 0 || len(words) > 3 {
		t.Fatalf("nameWords = %q", words)
	}
	for _, w := range words {
		if len(w) < 4 {
			t.Errorf("word %q is shorter than 4 letters", w)
		}
		found := false
		for _, n := range names {
			found = found || strings.HasSuffix(n, w)
		}
		if !found {
			t.Errorf("word %q ends no name", w)
		}
	}
}

func TestGatewayConfig(t *testing.T) {
	text := gatewayConfig("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "")
	if _, err := parseGatewayConfig(text); err != nil {
		t.Fatalf("the gateway refuses the generated configuration: %v\n%s", err, text)
	}
	for _, want := range []string{"level: info", "listen: 127.0.0.1:1", "admin_listen: 127.0.0.1:2", "target: 127.0.0.1:3", "record_cap: 100"} {
		if !strings.Contains(text, want) {
			t.Errorf("configuration lacks %q:\n%s", want, text)
		}
	}
	pg := gatewayConfig("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "postgres://127.0.0.1:5432/test?sslmode=disable&search_path=load")
	if _, err := parseGatewayConfig(pg); err != nil || !strings.Contains(pg, `keys_postgres_url: "postgres://127.0.0.1:5432/test?sslmode=disable&search_path=load"`) {
		t.Errorf("with PostgreSQL keys: %v\n%s", err, pg)
	}
	// Every key's plan exists on every product it names.
	for _, k := range keySpecs {
		if _, ok := plans[k.Plan]; !ok {
			t.Errorf("key %s: plan %s is not generated", k.Name, k.Plan)
		}
		for _, p := range k.Products {
			if !slices.ContainsFunc(products, func(ps productSpec) bool { return ps.Name == p }) {
				t.Errorf("key %s: product %s is not generated", k.Name, p)
			}
		}
	}
	for _, c := range callers {
		if !slices.ContainsFunc(keySpecs, func(k keySpec) bool {
			return k.Name == c.KeyName && k.Plan == c.Plan && slices.Contains(k.Products, c.Product)
		}) {
			t.Errorf("caller %+v: no such key subscription", c)
		}
	}
}
