package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
)

// kindWeights are the shares of the realistic mix, in percent: mostly
// listings, paged both ways, then reference lists, single exercises,
// searches and relation pages.
var kindWeights = map[kind]int{
	kindFirstPage:   10,
	kindFiltered:    15,
	kindByBodyParts: 7,
	kindAfter:       15,
	kindBefore:      8,
	kindReference:   13,
	kindSingle:      10,
	kindTail:        8,
	kindSearch:      9,
	kindRelated:     5,
}

// mixItem is one request of the realistic mix.
type mixItem struct {
	Kind   kind
	Caller int // index into the callers
	Path   string
}

// buildMix draws n requests: a caller by weight, then a kind by weight
// among those the caller's plan may call, then an entry of that kind
// uniformly among those the plan reaches (operation allowed, cursor within
// its record cap). The same seed gives the same mix.
func buildMix(entries []entry, cs []caller, weights map[kind]int, n int, seed uint64) ([]mixItem, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// eligible[i][k]: the entries of kind k that caller i may request.
	eligible := make([]map[kind][]int, len(cs))
	planOf, err := gatewayPlans()
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		p, ok := planOf[c.Plan]
		if !ok {
			return nil, fmt.Errorf("caller %s: no plan %q", c.KeyName, c.Plan)
		}
		eligible[i] = map[kind][]int{}
		for j, e := range entries {
			if p.Allows(e.Op) && reachable(p, e.Pos) {
				eligible[i][e.Kind] = append(eligible[i][e.Kind], j)
			}
		}
		if len(eligible[i]) == 0 {
			return nil, fmt.Errorf("caller %s (%s): no request its plan may make", c.KeyName, c.Plan)
		}
	}
	callerWeights := make([]int, len(cs))
	for i, c := range cs {
		callerWeights[i] = c.Weight
	}
	items := make([]mixItem, n)
	for i := range items {
		ci := pick(rng, callerWeights)
		ks := make([]kind, 0, len(kinds))
		kw := make([]int, 0, len(kinds))
		for _, k := range kinds {
			if len(eligible[ci][k]) > 0 && weights[k] > 0 {
				ks = append(ks, k)
				kw = append(kw, weights[k])
			}
		}
		if len(ks) == 0 {
			return nil, fmt.Errorf("caller %s: no kind of request with a weight", cs[ci].KeyName)
		}
		k := ks[pick(rng, kw)]
		pool := eligible[ci][k]
		e := entries[pool[rng.IntN(len(pool))]]
		items[i] = mixItem{Kind: k, Caller: ci, Path: e.Path}
	}
	return items, nil
}

// pick returns an index drawn with the given weights (not all zero).
func pick(rng *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	r := rng.IntN(total)
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(weights) - 1
}

// mixShares counts a mix by kind and by plan, in percent.
func mixShares(items []mixItem, cs []caller) (byKind, byPlan map[string]float64) {
	byKind, byPlan = map[string]float64{}, map[string]float64{}
	for _, it := range items {
		byKind[string(it.Kind)]++
		byPlan[cs[it.Caller].Plan]++
	}
	for _, m := range []map[string]float64{byKind, byPlan} {
		for k, v := range m {
			m[k] = 100 * v / float64(len(items))
		}
	}
	return byKind, byPlan
}

// request is one request the load generator sends.
type request struct {
	URL    string // empty for Tail
	Header http.Header
	// Tail asks for the next query of the load's tail cycle as the URL.
	Tail bool
}

// callerHeaders are the headers of each caller's requests: its key and,
// for a product not served at the URL's host, X-Gateway-Host. The maps are
// shared by every request of the caller and never written once built.
func callerHeaders(cs []caller) []http.Header {
	hs := make([]http.Header, len(cs))
	for i, c := range cs {
		h := http.Header{}
		h.Set("X-Gateway-Key", c.Key)
		if c.Host != "" {
			h.Set("X-Gateway-Host", c.Host)
		}
		hs[i] = h
	}
	return hs
}

// mixRequests turns the items into requests to base.
func mixRequests(base string, items []mixItem, cs []caller) []request {
	hs := callerHeaders(cs)
	out := make([]request, len(items))
	for i, it := range items {
		if it.Kind == kindTail {
			out[i] = request{Header: hs[it.Caller], Tail: true}
			continue
		}
		out[i] = request{URL: base + it.Path, Header: hs[it.Caller]}
	}
	return out
}

// cacheOffVariants are the filters the cache-off listing crosses with its
// cursors: none, each body part, each difficulty, each exercise type.
func cacheOffVariants(v vocab) []string {
	variants := []string{""}
	for _, bp := range v.BodyParts {
		variants = append(variants, "bodyParts="+url.QueryEscape(bp))
	}
	for _, d := range []string{"beginner", "intermediate", "advanced"} {
		variants = append(variants, "difficulty="+d)
	}
	for _, t := range v.ExerciseTypes {
		variants = append(variants, "exerciseTypes="+url.QueryEscape(t))
	}
	return variants
}

// cacheOffPath is the listing of 10 after id with a filter variant.
func cacheOffPath(id, variant string) string {
	p := pathExercises + "?limit=10&after=" + url.QueryEscape(id)
	if variant != "" {
		p += "&" + variant
	}
	return p
}

// cacheOffPaths are listings whose query differs from one request to the
// next for a whole cycle: every exercise id as the after cursor, crossed
// with the filter variants (the cursor need not match the filter), in a
// shuffled order. A response cache holding fewer entries than the cycle,
// however it is keyed, can serve none of them.
func cacheOffPaths(ids, variants []string, seed uint64) []string {
	paths := make([]string, 0, len(ids)*len(variants))
	for _, id := range ids {
		for _, f := range variants {
			paths = append(paths, cacheOffPath(id, f))
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	return paths
}

// typoQueries are n distinct searches of four reference names each, every
// word with two neighbouring letters swapped, as a person typing fast
// would: the searches that cost the catalog most per request (fuzzy
// matching of every word), none repeated within n so that no cache helps.
func typoQueries(v vocab, n int) []string {
	var words []string
	for _, list := range [][]string{v.Muscles, v.Equipments, v.BodyParts, v.ExerciseTypes} {
		for _, name := range list {
			words = append(words, strings.Fields(name)...)
		}
	}
	var long []string
	for _, w := range words {
		if len(w) >= 5 {
			long = append(long, strings.ToLower(w))
		}
	}
	if len(long) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for i := 0; len(out) < n && i < 50*n; i++ {
		q := make([]string, 4)
		for j := range q {
			w := []byte(long[(i*(j+3)+j*7)%len(long)])
			k := 1 + (i+j)%(len(w)-2)
			w[k], w[k+1] = w[k+1], w[k]
			q[j] = string(w)
		}
		s := strings.Join(q, " ")
		if !seen[s] {
			seen[s] = true
			out = append(out, pathExercises+"?limit=10&q="+url.QueryEscape(s))
		}
	}
	return out
}
