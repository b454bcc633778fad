package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// TestSearchCacheBytes: 2,000 distinct searches of 200 characters of
// typos keep the catalog's estimate of its search cache under
// -search-cache-bytes, and its resident memory within that bound plus
// 16 MiB (the collector's slack) of what it was at start: a ranked list
// costs what the estimate says. GOMEMLIMIT is set as the
// deployment examples set it, to the memory the catalog may use: without
// it, garbage may reach the live heap's size before it is collected.
func TestSearchCacheBytes(t *testing.T) {
	const bound = 16 << 20
	t.Setenv("GOMEMLIMIT", strconv.Itoa(bound+64<<20))
	p := startBinary(t, "-search-cache-bytes", strconv.Itoa(bound))
	p.MustAwaitLog(t, "catalogue loaded", nil)
	before := residentBytes(t, p)
	client := catalogv1.NewCatalogServiceClient(p.dial(t))
	words := []string{"sqaut", "benhc", "dumbel", "curll", "presss", "deadlfit", "lungee", "pulup", "rwo", "shoulderr", "tricepps", "kettlebel", "plnak", "crunchh", "bridgee", "stretchh"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var q strings.Builder
		fmt.Fprintf(&q, "%d ", i) // distinct
		for q.Len() < 200 {
			w := words[rng.IntN(len(words))]
			fmt.Fprintf(&q, "%s%c ", w, 'a'+rune(rng.IntN(26)))
		}
		_, err := client.ListExercises(context.Background(), &catalogv1.ListExercisesRequest{
			Filter: &catalogv1.ExerciseFilter{Query: q.String()[:200]}, Limit: 25,
		})
		if err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
	}
	_, metrics := p.get(t, "/metrics")
	kept := metric(t, metrics, "exercisedb_catalog_search_cache_bytes")
	if kept > bound || kept == 0 {
		t.Errorf("the search cache holds %d bytes by estimate, bound %d", kept, bound)
	}
	rss := residentBytes(t, p)
	if rss < 0 || before < 0 {
		return // not Linux: the estimate alone is checked
	}
	t.Logf("resident %d MiB at start, %d MiB after 2,000 searches; search cache %d KiB by estimate (bound %d MiB)", before>>20, rss>>20, kept>>10, bound>>20)
	if rss-before > bound+16<<20 {
		t.Errorf("resident memory grew %d MiB, over the search cache's %d MiB bound + 16 MiB", (rss-before)>>20, bound>>20)
	}
}

// residentBytes returns the resident memory of the process, or -1
// without /proc.
func residentBytes(t *testing.T, p *process) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmRSS in %s", status)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// metric returns the value of an unlabelled gauge in a /metrics body.
func metric(t *testing.T, body, name string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics has no %s", name)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return int64(v)
}
