package exercise

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/catalog/dataset"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/search_golden.txt from the current ranking")

// goldenFile records, for every query of the relevance set and a few
// more, with and without filters, on the embedded catalogue and on two
// synthetic ones (with every two words of their names too), the whole ranked list a search returns: its total, a
// digest of its ids in order, and its first ids. It holds the ranking
// still while the way it is computed changes: a change that means to
// rank differently regenerates it (go test -run TestSearchGolden
// -update-golden ./catalog/exercise) and shows the lists it moved.
const goldenFile = "testdata/search_golden.txt"

// TestSearchGolden compares every ranked list with goldenFile, byte for
// byte. Each list is read forward in pages of MaxLimit and backward in
// pages of 37, through the cursors, and both must agree.
func TestSearchGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("pages through some 5,000 ranked lists")
	}
	data, err := os.ReadFile("../dataset/testdata/relevance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Q string `yaml:"q"`
	}
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, tc := range cases {
		queries = append(queries, tc.Q)
	}
	// The queries of the benchmarks and of TestSearchPaging, and a few
	// words of the synthetic catalogues.
	queries = append(queries, "incline press", "squatt front", "db curl", "bench pre", "dumbbell chest", "dumbbell press", "db curls",
		"pullup", "incline ben", "squatt", "row back", "hammer", "reverse lunge", "split squat", "barbell row", "curl hammer",
		"press bench incline", "pull-up", "squat", "chest", "back cable", "quadriceps", "advanced dumbbell", "stretching")
	queries = slices.Compact(slices.Sorted(slices.Values(queries)))

	embedded, err := Load(dataset.Default())
	if err != nil {
		t.Fatal(err)
	}
	// The synthetic catalogues name their records with few words: every
	// two of them, the second whole and typed so far, find many records in
	// many tiers.
	pairs := slices.Clone(queries)
	names := []string{"dumbbell", "barbell", "incline", "bench", "press", "curl", "row", "squat", "lunge", "pull-up", "split", "reverse", "hammer", "plank", "front"}
	for _, a := range names {
		for _, b := range names {
			if a != b {
				pairs = append(pairs, a+" "+b, a+" "+b[:3])
			}
		}
	}
	pairs = slices.Compact(slices.Sorted(slices.Values(pairs)))
	catalogues := []struct {
		name    string
		c       *Catalogue
		filters []Filter
		queries []string
	}{
		{"embedded", embedded, []Filter{{}, {Equipments: []string{"dumbbell", "body weight"}}, {BodyParts: []string{"back"}, Difficulties: []string{"beginner"}}}, queries},
		{"search3000", mustNew(t, searchFile(3000, 5)), []Filter{{}, {BodyParts: []string{"chest"}}}, pairs},
		{"synth20000", mustNew(t, synthFile(20_000)), []Filter{{}}, pairs},
	}
	var out bytes.Buffer
	fmt.Fprintln(&out, "# catalogue, filter, query, total, sha256 of the ranked ids (first 12 hex), first 3 ids")
	for _, cat := range catalogues {
		for i, flt := range cat.filters {
			for _, q := range cat.queries {
				flt.Query = q
				fwd := goldenPages(t, cat.c, flt, MaxLimit, false)
				if bwd := goldenPages(t, cat.c, flt, 37, true); !slices.Equal(fwd, bwd) {
					t.Errorf("%s filter %d %q: forward and backward differ", cat.name, i, q)
				}
				sum := sha256.Sum256([]byte(strings.Join(fwd, ",")))
				fmt.Fprintf(&out, "%s\t%d\t%q\t%d\t%s\t%s\n", cat.name, i, q, len(fwd), hex.EncodeToString(sum[:6]), strings.Join(fwd[:min(3, len(fwd))], ","))
			}
		}
	}
	if *updateGolden {
		if err := os.WriteFile(goldenFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(out.Bytes(), want) {
		return
	}
	got, wantLines := strings.Split(out.String(), "\n"), strings.Split(string(want), "\n")
	shown := 0
	for i := range max(len(got), len(wantLines)) {
		g, w := line(got, i), line(wantLines, i)
		if g != w && shown < 20 {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
			shown++
		}
	}
	t.Fatalf("the ranking differs from %s (go test -run TestSearchGolden -update-golden regenerates it)", goldenFile)
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

// goldenPages returns the ids of a ranked list, paged forward from its
// start or backward from its end, and checks that the total of every page
// is the length of the list.
func goldenPages(t *testing.T, c *Catalogue, flt Filter, limit int, backward bool) []string {
	t.Helper()
	var all []string
	req := PageRequest{Limit: limit}
	if backward {
		all = goldenPages(t, c, flt, MaxLimit, false)
		if len(all) == 0 {
			return all
		}
		// The page before the last record, and the last record itself.
		req.Before = all[len(all)-1]
		all = []string{all[len(all)-1]}
	}
	for {
		p, err := c.List(flt, req)
		if err != nil {
			t.Fatalf("%q: %v", flt.Query, err)
		}
		got := ids(p.Exercises)
		if backward {
			all = append(got, all...)
			if !p.HasPreviousPage {
				break
			}
			req = PageRequest{Limit: limit, Before: p.PreviousCursor}
			continue
		}
		all = append(all, got...)
		if !p.HasNextPage {
			if p.Total != len(all) {
				t.Fatalf("%q: total %d, paged %d", flt.Query, p.Total, len(all))
			}
			break
		}
		req = PageRequest{Limit: limit, After: p.NextCursor}
	}
	return all
}
