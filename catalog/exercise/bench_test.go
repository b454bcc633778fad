package exercise

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/catalog/search"
)

// synthFile returns n synthetic records. Their lists are drawn from a few
// hundred shared combinations so that a million records fit in memory.
func synthFile(n int) *File {
	pool := randomFile(512, 11).Exercises
	f := &File{Format: FormatV1, Vocabularies: testVocabularies(), Exercises: make([]Exercise, n)}
	rng := rand.New(rand.NewPCG(12, 12))
	for i := range f.Exercises {
		x := pool[rng.IntN(len(pool))]
		x.ID = fmt.Sprintf("s%07d", i)
		x.Name = fmt.Sprintf("%s %d", x.Name, i)
		f.Exercises[i] = x
	}
	return f
}

var synth = struct {
	sync.Mutex
	m map[int]*Catalogue
}{m: map[int]*Catalogue{}}

func synthCatalogue(b *testing.B, n int) *Catalogue {
	b.Helper()
	synth.Lock()
	defer synth.Unlock()
	if c, ok := synth.m[n]; ok {
		return c
	}
	c := mustNew(b, synthFile(n))
	synth.m[n] = c
	// Collect the garbage of the build now, not during the first
	// benchmark that uses the catalogue.
	runtime.GC()
	return c
}

// BenchmarkList measures one page of 10 after a cursor in the middle of the
// catalogue, at 2,000 and at 1,000,000 records. Compare sizes with
//
//	go test -run '^$' -bench BenchmarkList -count 6 ./catalog/exercise | benchstat -col /records -
func BenchmarkList(b *testing.B) {
	filters := []struct {
		name   string
		filter Filter
		cold   bool // drop computed results before every call
	}{
		{name: "none"},
		{name: "one", filter: Filter{BodyParts: []string{"chest"}}},
		{name: "three", filter: Filter{BodyParts: []string{"chest", "waist"}, Equipments: []string{"dumbbell"}, Difficulties: []string{"advanced"}}},
		{name: "three-cold", filter: Filter{BodyParts: []string{"chest", "waist"}, Equipments: []string{"dumbbell"}, Difficulties: []string{"advanced"}}, cold: true},
	}
	for _, n := range []int{2_000, 1_000_000} {
		for _, fl := range filters {
			b.Run(fmt.Sprintf("filter=%s/records=%d", fl.name, n), func(b *testing.B) {
				c := synthCatalogue(b, n)
				req := PageRequest{Limit: 10, After: fmt.Sprintf("s%07d", n/2)}
				b.ReportAllocs()
				for b.Loop() {
					if fl.cold {
						c.resolved.Purge()
					}
					p, err := c.List(fl.filter, req)
					if err != nil || len(p.Exercises) != 10 {
						b.Fatalf("List: %d records, %v", len(p.Exercises), err)
					}
				}
			})
		}
	}
}

// BenchmarkListBackward measures a page before a cursor in the middle.
func BenchmarkListBackward(b *testing.B) {
	for _, n := range []int{2_000, 1_000_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			c := synthCatalogue(b, n)
			req := PageRequest{Limit: 10, Before: fmt.Sprintf("s%07d", n/2)}
			flt := Filter{BodyParts: []string{"chest"}}
			for b.Loop() {
				if _, err := c.List(flt, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// relatedSynth returns a catalogue of n synthetic version 2 records: the
// records of synthFile in 40 families over 6 movement patterns.
func relatedSynth(b *testing.B, n int) *Catalogue {
	b.Helper()
	synth.Lock()
	defer synth.Unlock()
	key := -n // synth.m holds the version 1 catalogues under n
	if c, ok := synth.m[key]; ok {
		return c
	}
	f := synthFile(n)
	f.Format = FormatV2
	for i := range f.Exercises {
		x := &f.Exercises[i]
		x.Family = fmt.Sprintf("family %d", i%40)
		x.Pattern = fmt.Sprintf("pattern %d", i%40%6)
		x.Description, x.Instructions, x.Tips = "A synthetic exercise.", []string{"Set up.", "Move.", "Return."}, []string{"Breathe."}
	}
	c := mustNew(b, f)
	synth.m[key] = c
	return c
}

// BenchmarkAlternatives measures a page of 25 alternatives after a cursor
// in the list, at 2,000 and at 1,000,000 records: warm (the ranking is
// cached, as for every request after the first for one exercise and
// filter) and cold (ranked afresh every call).
//
//	go test -run '^$' -bench BenchmarkAlternatives -count 6 ./catalog/exercise | benchstat -col /records -
func BenchmarkAlternatives(b *testing.B) {
	for _, n := range []int{2_000, 1_000_000} {
		for _, cold := range []bool{false, true} {
			for _, flt := range []struct {
				name   string
				filter Filter
			}{{"none", Filter{}}, {"equipment", Filter{Equipments: []string{"body weight"}}}} {
				name := fmt.Sprintf("filter=%s/cold=%t/records=%d", flt.name, cold, n)
				b.Run(name, func(b *testing.B) {
					c := relatedSynth(b, n)
					src := fmt.Sprintf("s%07d", n/3)
					first, err := c.Related(Alternatives, src, flt.filter, PageRequest{Limit: 25})
					if err != nil || len(first.Exercises) != 25 {
						b.Fatalf("first page: %d records, %v", len(first.Exercises), err)
					}
					req := PageRequest{Limit: 25, After: first.NextCursor}
					b.ReportAllocs()
					for b.Loop() {
						if cold {
							c.rankings.Purge()
						}
						p, err := c.Related(Alternatives, src, flt.filter, req)
						if err != nil || len(p.Exercises) != 25 {
							b.Fatalf("Related: %d records, %v", len(p.Exercises), err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkSearch measures a page of 25 of a two-word search at 2,000 and
// 1,000,000 synthetic records: cold (ranked afresh, the first request of a
// query) and warm (the ranking cached). The queries are a plain pair, a
// typo, an abbreviation, a prefix and vocabulary values alone.
//
// On a shared host wall time counts what others run too: on Linux each
// search is also timed by its thread's CPU clock (cpu-µs-median, the
// median search; the collector's work on other threads is left out) and
// the process's CPU time is divided among the searches (cpu-µs/op, the
// collector's work included). Pin it to one core:
//
//	taskset -c 1 go test -run '^$' -bench 'BenchmarkSearch$' -benchtime 200x -count 3 -cpu 1 -benchmem ./catalog/exercise
func BenchmarkSearch(b *testing.B) {
	queries := []string{"incline press", "squatt front", "db curl", "bench pre", "dumbbell chest"}
	for _, n := range []int{2_000, 1_000_000} {
		for _, cold := range []bool{true, false} {
			for _, q := range queries {
				for _, facets := range [][]Facet{nil, {FacetBodyParts, FacetEquipments, FacetTargetMuscles}} {
					if facets != nil && !cold {
						continue // facets are counted afresh, warm or cold
					}
					b.Run(fmt.Sprintf("q=%s/cold=%t/facets=%d/records=%d", q, cold, len(facets), n), func(b *testing.B) {
						c := synthCatalogue(b, n)
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
						var threads []time.Duration
						process, measured := processCPU()
						b.ReportAllocs()
						for b.Loop() {
							if cold {
								c.rankings.Purge()
							}
							t0, _ := threadCPU()
							if _, err := c.List(Filter{Query: q}, PageRequest{Limit: 25}); err != nil {
								b.Fatal(err)
							}
							if facets != nil {
								if _, err := c.Facets(Filter{Query: q}, facets, 0); err != nil {
									b.Fatal(err)
								}
							}
							if t1, ok := threadCPU(); ok {
								threads = append(threads, t1-t0)
							}
						}
						if end, ok := processCPU(); ok && measured {
							b.ReportMetric(float64((end-process).Microseconds())/float64(b.N), "cpu-µs/op")
						}
						if len(threads) > 0 {
							slices.Sort(threads)
							b.ReportMetric(float64(threads[len(threads)/2].Nanoseconds())/1e3, "cpu-µs-median")
						}
					})
				}
			}
		}
	}
}

// BenchmarkSearchIndex measures building the search index of a million
// synthetic records and reports the heap it holds.
func BenchmarkSearchIndex(b *testing.B) {
	f := synthFile(1_000_000)
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		idx := search.NewIndex(bodyPartOf(f.Vocabularies.Muscles))
		for i := range f.Exercises {
			idx.Add(uint32(i), searchRecord(&f.Exercises[i]))
		}
		idx.Finish()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(idx)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB")
		b.ReportMetric(float64(idx.Terms()), "terms")
	}
}
