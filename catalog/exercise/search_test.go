package exercise

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/search"
)

// searchFile is a catalogue whose names are drawn from gym words, so that
// searches find many records in several tiers.
func searchFile(n int, seed uint64) *File {
	f := relatedFile(n, seed)
	rng := rand.New(rand.NewPCG(seed, 99))
	words := []string{"dumbbell", "barbell", "incline", "bench", "press", "curl", "row", "squat", "lunge", "pull-up", "split", "reverse", "hammer"}
	seen := map[string]bool{}
	for i := range f.Exercises {
		for {
			k := 1 + rng.IntN(4)
			var name []string
			for range k {
				name = append(name, words[rng.IntN(len(words))])
			}
			s := strings.Join(name, " ")
			if !seen[SearchKey(s)] {
				seen[SearchKey(s)] = true
				f.Exercises[i].Name = s
				break
			}
		}
	}
	return f
}

// collect pages through a search forward, then backward from its end.
func collect(t *testing.T, c *Catalogue, flt Filter, limit int) (fwd, bwd []string, total int) {
	t.Helper()
	return collectCapped(t, c, flt, limit, 0)
}

// collectCapped is collect with a record cap.
func collectCapped(t *testing.T, c *Catalogue, flt Filter, limit, recordCap int) (fwd, bwd []string, total int) {
	t.Helper()
	req := PageRequest{Limit: limit, RecordCap: recordCap}
	var last Page
	for {
		p, err := c.List(flt, req)
		if err != nil {
			t.Fatal(err)
		}
		total = p.Total
		fwd = append(fwd, ids(p.Exercises)...)
		last = p
		if !p.HasNextPage {
			break
		}
		req = PageRequest{Limit: limit, After: p.NextCursor, RecordCap: recordCap}
	}
	p := last
	for {
		bwd = append(ids(p.Exercises), bwd...)
		if !p.HasPreviousPage {
			break
		}
		var err error
		if p, err = c.List(flt, PageRequest{Limit: limit, Before: p.PreviousCursor, RecordCap: recordCap}); err != nil {
			t.Fatal(err)
		}
	}
	return fwd, bwd, total
}

// TestSearchPaging: paging a ranked result forward and backward visits each
// record once, total is the number paged, and q with a filter returns only
// records that pass the filter.
func TestSearchPaging(t *testing.T) {
	f := searchFile(800, 4)
	c := mustNew(t, f)
	filters := []Filter{{}, {Equipments: []string{"dumbbell", "cable"}}, {BodyParts: []string{"back"}, Difficulties: []string{"beginner"}}}
	queries := []string{"dumbbell press", "db curls", "pullup", "incline ben", "squatt", "row back", "hammer"}
	for _, q := range queries {
		for i, flt := range filters {
			t.Run(fmt.Sprintf("%s/filter%d", q, i), func(t *testing.T) {
				plain, _, _ := collect(t, c, flt, MaxLimit)
				flt.Query = q
				for _, limit := range []int{1, 7} {
					fwd, bwd, total := collect(t, c, flt, limit)
					if total != len(fwd) {
						t.Errorf("limit %d: total %d, paged %d", limit, total, len(fwd))
					}
					if !slices.Equal(fwd, bwd) {
						t.Errorf("limit %d: forward %v, backward %v", limit, fwd, bwd)
					}
					seen := map[string]bool{}
					for _, id := range fwd {
						if seen[id] {
							t.Fatalf("limit %d: %s visited twice", limit, id)
						}
						seen[id] = true
						if !slices.Contains(plain, id) {
							t.Fatalf("%s does not pass the filter", id)
						}
					}
				}
			})
		}
	}
}

// TestSearchPagingRandom is TestSearchPaging over random cases, on the
// embedded catalogue and on a synthetic one: queries of one to three
// words drawn from the catalogue's names and vocabularies, some misspelt,
// the last word sometimes cut short as if being typed; random filters,
// limits and record caps. For each: forward paging equals backward, each
// record comes once, total is the number paged, the records are those of
// the query alone that pass the filter, and the cap keeps the first
// ranks of the uncapped list. A failure names the case; -search-cases
// runs more of them.
func TestSearchPagingRandom(t *testing.T) {
	embedded, err := Decode(bytes.NewReader(dataset.Default()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*File{embedded, searchFile(600, 8)} {
		c := mustNew(t, f)
		var words []string
		for _, x := range f.Exercises {
			words = append(words, strings.Fields(strings.ToLower(x.Name))...)
		}
		v := f.Vocabularies
		for _, vs := range [][]string{Names(v.BodyParts), Names(v.Equipments), Names(v.Muscles), Names(v.Difficulties)} {
			words = append(words, vs...)
		}
		fields := []struct {
			values []string
			set    func(*Filter, []string)
		}{
			{Names(v.BodyParts), func(f *Filter, vs []string) { f.BodyParts = vs }},
			{Names(v.Equipments), func(f *Filter, vs []string) { f.Equipments = vs }},
			{Names(v.Difficulties), func(f *Filter, vs []string) { f.Difficulties = vs }},
			{Names(v.ExerciseTypes), func(f *Filter, vs []string) { f.ExerciseTypes = vs }},
			{Names(v.Muscles), func(f *Filter, vs []string) { f.TargetMuscles = vs }},
		}
		rng := rand.New(rand.NewPCG(uint64(len(f.Exercises)), 12))
		var found, filtered, capped int // cases that test something
		for i := range *searchCases {
			var q []string
			for range 1 + rng.IntN(3) {
				w := words[rng.IntN(len(words))]
				if len(w) > 4 && rng.IntN(4) == 0 { // a typo: two letters swapped
					j := 1 + rng.IntN(len(w)-2)
					w = w[:j] + w[j+1:j+2] + w[j:j+1] + w[j+2:]
				}
				q = append(q, w)
			}
			if last := q[len(q)-1]; len(last) > 3 && rng.IntN(3) == 0 { // being typed
				q[len(q)-1] = last[:2+rng.IntN(len(last)-2)]
			}
			var flt Filter
			for range rng.IntN(3) {
				fl := fields[rng.IntN(len(fields))]
				var vs []string
				for range 1 + rng.IntN(2) {
					vs = append(vs, fl.values[rng.IntN(len(fl.values))])
				}
				fl.set(&flt, vs)
			}
			limit := []int{1, 2, 3, 7, 10, 25, 100}[rng.IntN(7)]
			recordCap := 0
			if rng.IntN(3) == 0 {
				recordCap = 1 + rng.IntN(60)
			}
			name := fmt.Sprintf("%s/%d: q %q, filter %+v, limit %d, cap %d", f.Exercises[0].ID, i, strings.Join(q, " "), flt, limit, recordCap)
			passing, _, _ := collect(t, c, flt, MaxLimit)
			flt.Query = strings.Join(q, " ")
			alone, _, _ := collect(t, c, Filter{Query: flt.Query}, MaxLimit)
			uncapped, _, _ := collect(t, c, flt, MaxLimit)
			fwd, bwd, total := collectCapped(t, c, flt, limit, recordCap)
			if !slices.Equal(fwd, bwd) {
				t.Fatalf("%s: forward %v, backward %v", name, fwd, bwd)
			}
			if total != len(fwd) {
				t.Fatalf("%s: total %d, paged %d", name, total, len(fwd))
			}
			seen := map[string]bool{}
			for _, id := range fwd {
				if seen[id] {
					t.Fatalf("%s: %s comes twice", name, id)
				}
				seen[id] = true
			}
			want := slices.DeleteFunc(slices.Clone(alone), func(id string) bool { return !slices.Contains(passing, id) })
			if got := slices.Sorted(slices.Values(uncapped)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
				t.Fatalf("%s: %d records, want the %d of the query alone that pass the filter", name, len(got), len(want))
			}
			if n := min(len(uncapped), recordCap); recordCap > 0 && !slices.Equal(fwd, uncapped[:n]) {
				t.Fatalf("%s: capped %v, want the first %d of %v", name, fwd, n, uncapped)
			}
			if len(fwd) > 0 {
				found++
			}
			if len(want) < len(alone) {
				filtered++
			}
			if recordCap > 0 && recordCap < len(uncapped) {
				capped++
			}
		}
		t.Logf("%d records: %d cases, %d with records, %d that a filter narrows, %d that a cap cuts", len(f.Exercises), *searchCases, found, filtered, capped)
	}
}

var searchCases = flag.Int("search-cases", 150, "random cases TestSearchPagingRandom runs on each catalogue")

func TestSearchRanking(t *testing.T) {
	f := &File{Format: FormatV1, Vocabularies: testVocabularies()}
	add := func(id, name string, equipment string, muscle string) {
		parts := map[string]string{"pectoralis major": "chest", "latissimus dorsi": "back", "quadriceps": "upper legs"}
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{parts[muscle]}, Equipments: []string{equipment},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{muscle}, SecondaryMuscles: []string{}})
	}
	add("a1", "dumbbell bench press", "dumbbell", "pectoralis major")
	add("a2", "dumbbell incline bench press", "dumbbell", "pectoralis major")
	add("a3", "bench press", "barbell", "pectoralis major")
	add("a4", "floor press", "dumbbell", "pectoralis major")
	add("a5", "dumbell row", "dumbbell", "latissimus dorsi")
	add("a6", "goblet squat", "dumbbell", "quadriceps")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"bench press", []string{"a3", "a1", "a2"}},    // exact name, then shorter names
		{"db bench press", []string{"a1", "a2"}},       // the abbreviation spelled out matches a1 exactly
		{"dumbbell press", []string{"a1", "a2", "a4"}}, // every word in the name, then through equipment
		{"chest", []string{"a3", "a4", "a1", "a2"}},    // only through the body part: shorter names first
		{"dumbell", []string{"a5"}},                    // a word of the catalogue is taken as typed
		{"benhc pres", []string{"a3", "a1", "a2"}},     // a typo, and the last word as a prefix
		{"goblet squ", []string{"a6"}},                 // the last word as a prefix
		{"barbell pres", []string{"a3"}},               // the equipment word matched through the field
	})
}

// TestSearchSynonymTypos: a word that is no term of the catalogue is
// also corrected to the words of the synonym table ("abbs" is "abs",
// "pecss" "pecs"), but not to those of fewer than three letters, nor
// when it is too short to tell from an abbreviation, nor when it is the
// last word and begins a written word.
func TestSearchSynonymTypos(t *testing.T) {
	f := &File{Format: FormatV1, Vocabularies: testVocabularies()}
	add := func(id, name string, equipment string, muscle string) {
		parts := map[string]string{"pectoralis major": "chest", "rectus abdominis": "waist"}
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{parts[muscle]}, Equipments: []string{equipment},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{muscle}, SecondaryMuscles: []string{}})
	}
	add("a1", "crunch", "body weight", "rectus abdominis")
	add("a2", "bench press", "barbell", "pectoralis major")
	add("a3", "floor press", "dumbbell", "pectoralis major")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"abbs", []string{"a1"}},
		{"abbs crnch", []string{"a1"}},
		{"pecss", []string{"a2", "a3"}},
		{"dbb press", []string{"a2", "a3"}}, // no "db": "dbb" matches nothing and is set aside
		{"abz", nil},                        // three letters: no "abs"
	})
	// A last word that begins a written word is being typed.
	add("a4", "pecssy row", "cable", "pectoralis major")
	c = mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"pecss", []string{"a4"}},
		{"pecss row", []string{"a4"}},
	})
}

// TestSearchRankingDescribedConfirmed: for a query of vocabulary values,
// a record whose fields confirm them ranks before one that only has the
// words in its name.
func TestSearchRankingDescribedConfirmed(t *testing.T) {
	f := &File{Format: FormatV1, Vocabularies: testVocabularies()}
	add := func(id, name, bodyPart, muscle string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{bodyPart}, Equipments: []string{"body weight"},
			ExerciseTypes: []string{"stretching"}, Difficulty: "beginner", TargetMuscles: []string{muscle}, SecondaryMuscles: []string{}})
	}
	add("a1", "chest-to-knee stretch", "upper legs", "hamstrings") // the words, but a stretch for the legs
	add("a2", "doorway opener", "chest", "pectoralis major")
	add("a3", "wall chest stretch", "chest", "pectoralis major")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"chest stretching", []string{"a3", "a2", "a1"}},
		{"chest stretch", []string{"a3", "a1", "a2"}}, // "stretch" is no vocabulary value: the words in the name first
	})
}

// TestSearchAndAnatomy: "and" between two muscles or body parts asks
// for the exercises of either; between other words it is a stop word,
// and every word must match.
func TestSearchAndAnatomy(t *testing.T) {
	f := &File{Format: FormatV1, Vocabularies: testVocabularies()}
	add := func(id, name string, muscles ...string) {
		parts := map[string]string{"pectoralis major": "chest", "latissimus dorsi": "back", "quadriceps": "upper legs"}
		var bodyParts []string
		for _, m := range muscles {
			bodyParts = append(bodyParts, parts[m])
		}
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: bodyParts, Equipments: []string{"barbell"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: muscles, SecondaryMuscles: []string{}})
	}
	add("a1", "bench press", "pectoralis major")
	add("a2", "bent-over row", "latissimus dorsi")
	add("a3", "pullover", "latissimus dorsi", "pectoralis major")
	add("a4", "clean and press", "quadriceps")
	add("a5", "clean", "quadriceps")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"chest and back", []string{"a3", "a1", "a2"}}, // either, shorter names first
		{"chest back", []string{"a3"}},
		{"clean and press", []string{"a4"}},
	})
}

// TestSearchRankingTypeNamed: an exercise type named for the head of its
// exercises ("stretching", "stretch") ranks its staples so named first,
// before those of larger families.
func TestSearchRankingTypeNamed(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string, standard bool) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{"upper legs"}, Equipments: []string{"body weight"},
			ExerciseTypes: []string{"stretching"}, Difficulty: "beginner", TargetMuscles: []string{"quadriceps"}, SecondaryMuscles: []string{},
			Family: family, Pattern: "stretch", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: standard})
	}
	for i, name := range []string{"quad foam roll", "calf foam roll", "shin foam roll", "glute foam roll", "lat foam roll", "hip foam roll", "back foam roll", "neck foam roll"} {
		add(fmt.Sprintf("r%d", i), name, "foam rolling", i == 0)
	}
	for i, name := range []string{"standing quad stretch", "lying quad stretch", "kneeling quad stretch", "couch quad stretch"} {
		add(fmt.Sprintf("s%d", i), name, "quad stretch", i == 0)
	}
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"stretching", []string{"s0", "r0", "s1", "s2", "s3", "r1", "r2", "r3", "r4", "r5"}},
		{"quads", []string{"r0", "s0", "s1", "s2", "s3", "r1", "r2", "r3", "r4", "r5"}}, // no type: the larger family first
	})
}

// TestSearchSynonymCompletions: a phrase of the synonym table being typed
// stands for what the phrase stands for ("push d": "push day", the
// chest), but not a word that is already a term, nor a single word too
// short to tell.
func TestSearchSynonymCompletions(t *testing.T) {
	f := &File{Format: FormatV1, Vocabularies: testVocabularies()}
	add := func(id, name, muscle string) {
		parts := map[string]string{"pectoralis major": "chest", "quadriceps": "upper legs", "rectus abdominis": "waist"}
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{parts[muscle]}, Equipments: []string{"body weight"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{muscle}, SecondaryMuscles: []string{}})
	}
	add("a1", "push-up", "pectoralis major")
	add("a2", "pistol", "quadriceps")
	add("a3", "crunch", "rectus abdominis")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"push d", []string{"a1"}},  // "push day": the chest
		{"abdomin", []string{"a3"}}, // "abdominals", and the muscle's own word
		{"push", []string{"a1"}},    // a term: as typed
		{"ab", []string{"a3"}},      // a phrase of the table itself
		{"pist", []string{"a2"}},    // no phrase of the table: the names
	})
}

// TestSearchRankingAliases: a typo matched in the name proper ranks
// before one matched only in an alias, and a name or alias that the query
// begins, as typed so far, ranks before the other loose matches.
func TestSearchRankingAliases(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name string, aliases ...string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{"upper legs"}, Equipments: []string{"barbell"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"quadriceps"}, SecondaryMuscles: []string{},
			Family: name, Pattern: "squat", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: append([]string{}, aliases...)})
	}
	add("b1", "clean", "squat clean")
	add("b2", "box squat")
	add("b9", "barbell hip thrust", "hip thrust") // the highest id: ranked first by its alias only
	add("b4", "hip thruster machine")
	add("b5", "banded hip thrust")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"sqaut", []string{"b2", "b1"}},            // the name's squat first, though "clean" is the shorter name
		{"squat", []string{"b2", "b1"}},            // as typed, the same order
		{"hip thr", []string{"b4", "b9", "b5"}},    // "hip thruster machine" and "hip thrust" begin with the query; b5 has it inside
		{"banded hip thr", []string{"b5"}},         // every word, the last as a prefix
		{"bandedhipthrust", []string{"b5"}},        // words run together, split into those of names
		{"hip thrust", []string{"b9", "b5", "b4"}}, // the alias exactly, then every word in the name
	})
}

// TestSearchRankingFields: in a tier of every word in the name, a record
// whose fields confirm the words that name a body part, muscle or
// equipment ranks first; and a word of the synonym table is never taken
// for a typo of another.
func TestSearchRankingFields(t *testing.T) {
	f := &File{Format: FormatV1, Vocabularies: testVocabularies()}
	add := func(id, name, bodyPart, muscle string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{bodyPart}, Equipments: []string{"dumbbell"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{muscle}, SecondaryMuscles: []string{}})
	}
	add("c1", "chest-supported dumbbell row", "back", "latissimus dorsi")
	add("c2", "dumbbell chest fly on stability ball", "chest", "pectoralis major") // a longer name than c1
	add("c3", "cone drill", "upper legs", "quadriceps")
	add("c4", "dumbbell dead bug", "waist", "rectus abdominis")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"chest dumbbell", []string{"c2", "c1"}}, // c1 has the words, c2 is for the chest
		{"core", []string{"c4"}},                 // core: the abdominals (synonyms.txt), not "cone"
		{"cone", []string{"c3"}},
	})
}

// TestSearchRankingHead: in a tier of every word in the name, a name
// that ends with the query's last word ranks first, as typed but for a
// plural, before the records whose fields confirm the words: a row is not
// a rowing machine's sprint, a fly is not a flying knee.
func TestSearchRankingHead(t *testing.T) {
	v := testVocabularies()
	v.Equipments = append(v.Equipments, Term{"rowing machine"})
	f := &File{Format: FormatV1, Vocabularies: v}
	add := func(id, name, equipment string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{"back"}, Equipments: []string{equipment},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"latissimus dorsi"}, SecondaryMuscles: []string{}})
	}
	add("d1", "rowing machine sprint", "rowing machine")
	add("d2", "helms row", "dumbbell")
	add("d3", "indoor rowing", "rowing machine")
	add("e1", "flying knee", "body weight")
	add("e2", "dumbbell fly", "dumbbell")
	add("f1", "pull-up hold", "body weight")
	add("f2", "scapular pull-up", "body weight")
	add("h1", "l-sit pull-up", "body weight")
	add("h2", "decline weighted sit-up", "body weight")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"row", []string{"d2", "d3", "d1"}},     // the head first, then the shorter name ("rowing machine" does not confirm "row")
		{"rows", []string{"d2", "d3", "d1"}},    // a plural is the same head
		{"fly", []string{"e2", "e1"}},           // not a flying knee first, though e1 < e2
		{"flies", []string{"e2", "e1"}},         //
		{"pull up", []string{"f2", "h1", "f1"}}, // the last two words joined: "up" alone is no head
		{"pullup", []string{"f2", "h1", "f1"}},  // the same written as one word
		{"rowing", []string{"d3", "d1", "d2"}},  // "rowing" is its own head; the stem still finds the row
		{"sit up", []string{"h2", "h1"}},        // a particle is no head alone: a sit-up is no pull-up
	})
}

// TestSearchRankingStandard: in a tier, a family's standard form ranks
// before the other records, those of larger families first, then names of
// fewer words; variations put the standard form first too.
func TestSearchRankingStandard(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string, standard bool) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{"chest"}, Equipments: []string{"barbell"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"pectoralis major"}, SecondaryMuscles: []string{},
			Family: family, Pattern: "push", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: standard})
	}
	add("a1", "leg press", "leg press", true) // a family of one
	add("g1", "barbell bench press", "bench press", true)
	add("g2", "dumbbell bench press", "bench press", false)
	add("g3", "close-grip bench press", "bench press", false)
	add("g4", "floor press", "bench press", false)
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"press", []string{"g1", "a1", "g4", "g2", "g3"}}, // the standard of four, of one, then by name length
		{"bench press", []string{"g1", "g2", "g3"}},
	})
	p, err := c.Related(Variations, "g3", Filter{}, PageRequest{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(p.Exercises), []string{"g1", "g4", "g2"}; !slices.Equal(got, want) {
		t.Errorf("variations of g3: %v, want %v", got, want)
	}
}

// TestSearchRankingFamilyName: a family's name is a name of its standard
// form, the version its plain name means.
func TestSearchRankingFamilyName(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	for i, name := range []string{"barbell bench press", "cable chest press", "dumbbell bench press"} {
		f.Exercises = append(f.Exercises, Exercise{ID: fmt.Sprintf("f%d", i), Name: name, BodyParts: []string{"chest"}, Equipments: []string{strings.Fields(name)[0]},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"pectoralis major"}, SecondaryMuscles: []string{},
			Family: "chest press", Pattern: "push", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: i == 0})
	}
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"chest press", []string{"f0", "f1", "f2"}}, // the family's standard form, then the name that has both words
		{"chest presses", []string{"f0", "f1", "f2"}},
	})
}

// TestSearchRankingStaples: a query of vocabulary values alone ranks the
// staples it describes first: standard forms of families of four or more
// whose first target (or its body part) or equipment the values name,
// strength before stretching, then an equipment's shortest version of a
// family whose standard uses another.
func TestSearchRankingStaples(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string, standard bool, equipment, kind string, targets ...string) {
		parts := map[string]string{"pectoralis major": "chest", "latissimus dorsi": "back", "quadriceps": "upper legs"}
		var bodyParts []string
		for _, m := range targets {
			if !slices.Contains(bodyParts, parts[m]) {
				bodyParts = append(bodyParts, parts[m])
			}
		}
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: bodyParts, Equipments: []string{equipment},
			ExerciseTypes: strings.Split(kind, ","), Difficulty: "beginner", TargetMuscles: targets, SecondaryMuscles: []string{},
			Family: family, Pattern: "push", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: standard})
	}
	for i, name := range []string{"barbell bench press", "dumbbell bench press", "dumbbell incline bench press", "cable chest press"} {
		add(fmt.Sprintf("b%d", i), name, "bench press", i == 0, strings.Fields(name)[0], "strength", "pectoralis major")
	}
	for i, name := range []string{"doorway chest stretch", "wall chest stretch", "floor chest stretch", "band chest stretch"} {
		add(fmt.Sprintf("s%d", i), name, "chest stretch", i == 0, "body weight", "stretching", "pectoralis major")
	}
	add("c1", "chest slide", "chest slide", true, "body weight", "strength", "pectoralis major") // a family of one
	add("c2", "dumbbell chest squeeze", "chest squeeze", true, "dumbbell", "strength", "pectoralis major")
	for i, name := range []string{"push jerk", "split jerk", "power jerk", "squat jerk"} {
		add(fmt.Sprintf("j%d", i), name, "jerk", i == 0, "barbell", "strength", "quadriceps", "pectoralis major")
	}
	// A conditioning family whose first target is the chest: no chest
	// staple before the loaded ones, but a body weight staple.
	for i, name := range []string{"bear crawl", "side crawl", "spider crawl", "leopard crawl"} {
		add(fmt.Sprintf("a%d", i), name, "crawl", i == 0, "body weight", "strength,cardio", "pectoralis major")
	}
	// Of the cable presses of as many words, the one of cable alone is the
	// cable staple, though b10 has the lower id.
	f.Exercises = append(f.Exercises, f.Exercises[3])
	f.Exercises[len(f.Exercises)-1].ID, f.Exercises[len(f.Exercises)-1].Name = "b10", "cable press around"
	f.Exercises[len(f.Exercises)-1].Equipments = []string{"cable", "sled"}
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"cable", []string{"b3", "b10"}},
		{"pectoralis major", []string{"b0", "a0", "s0", "j0", "c1", "c2", "a1", "a2", "a3", "j1"}}, // a value of two words is one: its staples first
		// The staples: the bench press, then the crawl, conditioning, then
		// the stretch (not the jerk, whose chest only helps, nor the family
		// of one); then "chest" in the name, then the rest, standard forms
		// and short names first.
		{"pecs", []string{"b0", "a0", "s0", "c1", "c2", "b3", "s1", "s2", "s3", "j0"}},
		{"dumbbell chest", []string{"c2", "b1", "b2"}}, // a name being typed, then the staples
		{"dumb bell bench", []string{"b1", "b2"}},      // two words that make one of a name
		{"chest day", []string{"b0", "a0", "s0", "c1", "c2", "b3", "s1", "s2", "s3", "j0"}},
		{"bodyweight", []string{"a0", "s0", "c1", "a1", "a2", "a3", "s1", "s2", "s3"}}, // for an equipment, the crawl is a strength staple
		{"quads", []string{"j0", "j1", "j2", "j3"}},
	})
}

// TestSearchRankingStaplesPlainFirst: staples of one family size class
// rank the names of fewer words first, the plain form before its
// elaborations, whatever their ids.
func TestSearchRankingStaplesPlainFirst(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	for _, family := range [][]string{{"a", "barbell bench press", "dumbbell bench press", "floor press", "close-grip bench press"}, {"z", "dip", "bench dip", "ring dip", "weighted dip"}} {
		for i, name := range family[1:] {
			f.Exercises = append(f.Exercises, Exercise{ID: fmt.Sprintf("%s%d", family[0], i), Name: name, BodyParts: []string{"chest"}, Equipments: []string{"body weight"},
				ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"pectoralis major"}, SecondaryMuscles: []string{},
				Family: family[1], Pattern: "push", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
				Tips: []string{"Breathe."}, Aliases: []string{}, Standard: i == 0})
		}
	}
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"pecs", []string{"z0", "a0", "a2", "z1", "z2", "z3", "a1", "a3"}},
	})
}

// TestSearchRankingSecondTargets: a description that no staple trains
// first has for staples those that train it among their other targets.
func TestSearchRankingSecondTargets(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string, standard bool, equipment string, targets ...string) {
		parts := map[string]string{"pectoralis major": "chest", "latissimus dorsi": "back"}
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{parts[targets[0]]}, Equipments: []string{equipment},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: targets, SecondaryMuscles: []string{},
			Family: family, Pattern: "pull", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: standard})
	}
	for i, name := range []string{"chin", "weighted chin", "negative chin", "ring chin"} {
		add(fmt.Sprintf("c%d", i), name, "chin", i == 0, "body weight", "latissimus dorsi", "pectoralis major")
	}
	for i, name := range []string{"bench", "incline bench", "decline bench", "floor bench"} {
		add(fmt.Sprintf("b%d", i), name, "bench", i == 0, "barbell", "pectoralis major")
	}
	add("a0", "bodyweight pec squeeze", "pec squeeze", true, "body weight", "pectoralis major") // a family of one: no staple
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"pecs bodyweight", []string{"c0", "a0", "c1", "c2", "c3"}},
		{"pecs", []string{"b0", "a0", "c0", "b1", "b2", "b3", "c1", "c2", "c3"}}, // a staple trains the chest first: the chin is no staple
	})
}

// rankingCase is a query and the ids it must rank, in order.
type rankingCase struct {
	q    string
	want []string
}

func checkRanking(t *testing.T, c *Catalogue, cases []rankingCase) {
	t.Helper()
	for _, tc := range cases {
		p, err := c.List(Filter{Query: tc.q}, PageRequest{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(p.Exercises); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestSearchErrors(t *testing.T) {
	c := mustNew(t, searchFile(50, 1))
	for _, q := range []string{strings.Repeat("é", MaxQueryLength+1), "--!?", "curl\x00", "\t", "squ\xc3at"} {
		_, err := c.List(Filter{Query: q}, PageRequest{})
		var ae *ArgumentError
		if !errors.As(err, &ae) || ae.Violations[0].Field != FieldQuery {
			t.Errorf("%q: %v, want a violation of %s", q, err, FieldQuery)
		}
	}
	if _, err := c.List(Filter{Query: strings.Repeat("é", MaxQueryLength)}, PageRequest{}); err != nil {
		t.Errorf("a query of %d characters: %v", MaxQueryLength, err)
	}
	if _, err := c.Related(Variations, "r00001", Filter{Query: "curl"}, PageRequest{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a relation with a query: %v, want invalid argument", err)
	}
}

// TestSearchRepeatedWord: a word typed twice names its staples twice,
// and the list still holds each record once, its total counting them once.
func TestSearchRepeatedWord(t *testing.T) {
	c := mustNew(t, searchFile(400, 7))
	got, _, total := collect(t, c, Filter{Query: "dumbbell dumbbell"}, MaxLimit)
	distinct := map[string]bool{}
	for _, id := range got {
		distinct[id] = true
	}
	if len(distinct) != len(got) || total != len(got) || total == 0 {
		t.Errorf("%d records, %d distinct, total %d", len(got), len(distinct), total)
	}
}

// TestSearchSetAside: when no record matches every word, words are set
// aside until some do (first those that match nothing, then words that
// say how, then equipment and the like, then the movement), the page
// says which, and the records that match a word set aside too come first.
func TestSearchSetAside(t *testing.T) {
	c := mustNew(t, rivalFile())
	for _, tc := range []struct {
		q       string
		ignored []string
		want    []string
	}{
		{"barbell press", []string{}, nil}, // every word used
		{"strict barbell press", []string{"strict"}, nil},
		{"press strict", []string{"strict"}, nil},
		// "cable" names an equipment, "press" the movement: the press
		// is kept; the cable presses do not exist.
		{"cable press", []string{"cable"}, nil},
		// Of two words that say how, the rarer is set aside: "kroc"
		// names one row, "paused" three records.
		{"paused kroc dumbbell press", []string{"kroc"}, []string{"q02"}},
		// More words kept first: the tempo fly keeps two of three.
		{"tempo row fly", []string{"row"}, []string{"f07"}},
		{"zzzz qqqq", []string{}, nil}, // nothing matches any word: nothing is set aside
		// Words beyond search.MaxQueryWords are set aside from the start.
		{"barbell press" + strings.Repeat(" paused", search.MaxQueryWords), []string{"paused", "paused"}, []string{"p01"}},
	} {
		p, err := c.List(Filter{Query: tc.q}, PageRequest{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.IgnoredWords, tc.ignored) || p.IgnoredWords == nil {
			t.Errorf("%q: ignored %q, want %q", tc.q, p.IgnoredWords, tc.ignored)
		}
		if tc.want != nil && !slices.Equal(ids(p.Exercises), tc.want) {
			t.Errorf("%q: %v, want %v", tc.q, ids(p.Exercises), tc.want)
		}
	}
	if p, _ := c.List(Filter{BodyParts: []string{"chest"}}, PageRequest{}); p.IgnoredWords != nil {
		t.Errorf("a listing without a query: ignored %q, want nil", p.IgnoredWords)
	}
}

// rivalFile is a catalogue of chest and back families for the staples of
// rival forms, equipments and "and": a press of 16 records, 5 of them
// with dumbbells, a fly of 9 (one with a cable), a dip of 4 and a row of
// 8 (three with a cable).
func rivalFile() *File {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string, standard bool, equipment, target string) {
		part := map[string]string{"pectoralis major": "chest", "latissimus dorsi": "back"}[target]
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{part}, Equipments: []string{equipment},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{target}, SecondaryMuscles: []string{},
			Family: family, Pattern: "push", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: standard})
	}
	for i, name := range []string{"barbell press", "paused barbell press", "wide barbell press", "close barbell press", "tempo barbell press",
		"pin barbell press", "board barbell press", "floor barbell press", "spoto barbell press", "larsen barbell press", "reverse barbell press"} {
		add(fmt.Sprintf("p%02d", i), name, "press", i == 0, "barbell", "pectoralis major")
	}
	// The twist press has the lower id, but the dumbbell press is the
	// root of the other dumbbell presses.
	for i, name := range []string{"twist press", "dumbbell press", "paused dumbbell press", "neutral dumbbell press", "single dumbbell press"} {
		add(fmt.Sprintf("q%02d", i), name, "press", false, "dumbbell", "pectoralis major")
	}
	for i, name := range []string{"dumbbell fly", "incline dumbbell fly", "decline dumbbell fly", "floor dumbbell fly", "twist dumbbell fly",
		"single dumbbell fly", "paused dumbbell fly", "tempo dumbbell fly"} {
		add(fmt.Sprintf("f%02d", i), name, "fly", i == 0, "dumbbell", "pectoralis major")
	}
	add("e00", "cable fly", "fly", false, "cable", "pectoralis major")
	for i, name := range []string{"dip", "bench dip", "ring dip", "weighted dip"} {
		add(fmt.Sprintf("d%02d", i), name, "dip", i == 0, "body weight", "pectoralis major")
	}
	for i, name := range []string{"barbell row", "pendlay row", "seal row", "yates row", "kroc row"} {
		add(fmt.Sprintf("r%02d", i), name, "row", i == 0, "barbell", "latissimus dorsi")
	}
	for i, name := range []string{"cable row", "wide cable row", "close cable row"} {
		add(fmt.Sprintf("s%02d", i), name, "row", false, "cable", "latissimus dorsi")
	}
	return f
}

// TestSearchRankingRivals: the version of a large family on an equipment
// that more than a quarter of its records use is a staple beside its
// standard form, after the standard forms of the next class; of the
// versions of as many words, the root of the others.
func TestSearchRankingRivals(t *testing.T) {
	c := mustNew(t, rivalFile())
	checkRanking(t, c, []rankingCase{
		{"pecs", []string{"p00", "q01", "f00", "d00", "d01", "d02", "d03", "e00", "q00", "f01"}},
		{"dumbbell", []string{"q01", "f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "q02"}},
		{"dumbell", []string{"q01", "f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "q02"}}, // a misspelt value is the value
		// The rival form ranks as a standard form in every tier: the
		// dumbbell press before the twist press, of as many words.
		{"press", []string{"p00", "q01", "q00", "p01", "p02", "p03", "p04", "p05", "p06", "p07"}},
	})
}

// TestSearchRankingEquipmentStaples: an equipment's versions of families
// rank the families of more records with it first: the cable row, of
// three, before the cable fly, of one, whatever their ids.
func TestSearchRankingEquipmentStaples(t *testing.T) {
	c := mustNew(t, rivalFile())
	checkRanking(t, c, []rankingCase{
		{"cable", []string{"s00", "e00", "s01", "s02"}},
	})
}

// TestSearchRankingAndLeaders: "and" between muscles leads with the
// first staple of each when the first of either does not train the
// other: the press, then the row before the rest of the chest.
func TestSearchRankingAndLeaders(t *testing.T) {
	c := mustNew(t, rivalFile())
	checkRanking(t, c, []rankingCase{
		{"chest and back", []string{"p00", "r00", "q01", "f00", "d00", "d01", "d02", "d03", "e00", "q00"}},
		// Both at once: none; the less specific, chest, is set aside.
		{"chest back", []string{"r00", "r01", "r02", "r03", "r04", "s00", "s01", "s02"}},
	})
}

// TestSearchRankingRegion: a phrase that stands for two muscles or more
// ("thighs": the quadriceps and the hamstrings) has for staples the
// records that target two of them, whichever they name first.
func TestSearchRankingRegion(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string, standard bool, targets ...string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{"upper legs"}, Equipments: []string{"body weight"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: targets, SecondaryMuscles: []string{},
			Family: family, Pattern: "legs", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: standard})
	}
	for i, name := range []string{"jump", "box jump", "tuck jump", "broad jump"} {
		add(fmt.Sprintf("a%d", i), name, "jump", i == 0, "rectus abdominis", "quadriceps") // one of them
	}
	for i, name := range []string{"swing", "one-arm swing", "two-arm swing", "walking swing"} {
		add(fmt.Sprintf("b%d", i), name, "swing", i == 0, "rectus abdominis", "quadriceps", "hamstrings") // two
	}
	for i, name := range []string{"squat", "box squat", "pause squat", "wide squat"} {
		add(fmt.Sprintf("c%d", i), name, "squat", i == 0, "quadriceps")
	}
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"thighs", []string{"b0", "c0", "a0", "a1", "a2", "a3", "b3", "c1", "c2", "c3"}},
	})
}

// TestSearchSynonymExerciseNames: an exercise the synonym table stands
// for is found by its name, not by words of the fields; for a phrase of
// the table, its words in a row.
func TestSearchSynonymExerciseNames(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, target, part string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{part}, Equipments: []string{"dumbbell"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{target}, SecondaryMuscles: []string{},
			Family: name, Pattern: "core", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: true})
	}
	add("a", "hanging knee raise", "rectus abdominis", "waist")
	add("b", "calf raise", "quadriceps", "upper legs")            // "leg" in a field
	add("c", "single-leg calf raise", "quadriceps", "upper legs") // "leg" and "raise" apart
	add("d", "close-grip dumbbell bench press", "pectoralis major", "chest")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"lower abs dumbbell", []string{"a", "c"}}, // "leg" and "raise" apart come after
		{"cgbp dumbbell", []string{"d"}},           // an abbreviation's words need not be in a row
	})
}

// TestSearchRankingFamilyNamed: the words before the last that name a
// family of many records (and no head nor vocabulary value) rank its
// records as a head does; a last word typed so far that begins one word
// only ranks as that word.
func TestSearchRankingFamilyNamed(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string, standard bool, equipment string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{"chest"}, Equipments: []string{equipment},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"pectoralis major"}, SecondaryMuscles: []string{},
			Family: family, Pattern: "push", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: standard})
	}
	add("a0", "incline dumbbell curl", "curl", true, "dumbbell")
	add("a1", "incline dumbbell shrug", "shrug", true, "dumbbell")
	add("a2", "seated dumbbell curl", "curl", false, "dumbbell")
	for i, name := range []string{"barbell incline bench press", "dumbbell incline bench press", "paused incline bench press", "wide incline bench press",
		"close incline bench press", "smith incline bench press", "tempo incline bench press", "pin incline bench press"} {
		equipment := strings.Fields(name)[0]
		if equipment != "dumbbell" {
			equipment = "barbell"
		}
		add(fmt.Sprintf("b%d", i), name, "incline press", i == 0, equipment)
	}
	for i, name := range []string{"dumbbell seated calf raise", "seated calf raise", "bent-knee calf raise", "seated toe raise"} {
		add(fmt.Sprintf("c%d", i), name, "seated calf raise", i == 1, "dumbbell")
	}
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"incline dumbbell", []string{"b1", "a0", "a1"}},
		{"incline dumb", []string{"b1", "a0", "a1"}},
		{"seated dumbbell", []string{"a2", "c0", "c1", "c3"}}, // a family of 4 is no movement the word means
	})
}

// TestSearchNameKeys: a whole name is compared without the little words
// that join its others, as a query leaves them out ("clean and press" is
// the clean and press before the kettlebell one), but other stop words
// stay (a "rehab squat" is no "squat").
func TestSearchNameKeys(t *testing.T) {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	add := func(id, name, family string) {
		f.Exercises = append(f.Exercises, Exercise{ID: id, Name: name, BodyParts: []string{"upper legs"}, Equipments: []string{"barbell"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"quadriceps"}, SecondaryMuscles: []string{},
			Family: family, Pattern: "legs", Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{}, Standard: true})
	}
	add("a", "barbell clean and press", "barbell clean and press")
	add("b", "clean and press", "clean and press")
	add("c", "mini squat", "rehab squat")
	add("d", "front squat", "front squat")
	c := mustNew(t, f)
	checkRanking(t, c, []rankingCase{
		{"clean and press", []string{"b", "a"}},
		{"clean & press", []string{"b", "a"}},
		{"squats", []string{"c", "d"}}, // no name is "squat": by id
		{"squatt", []string{"c", "d"}},
	})
}

// TestDeferredRankedConcurrent: pages and cursors of one list read at once
// by many requests, as a cached search is, materialise its tiers once and
// agree with the list read alone. Run it with -race.
func TestDeferredRankedConcurrent(t *testing.T) {
	c := mustNew(t, synthFile(5000))
	for _, q := range []string{"incline press", "squatt front", "db curl", "bench pre", "dumbbell chest"} {
		c.rankings.Purge()
		want, _, total := collect(t, c, Filter{Query: q}, MaxLimit)
		if total < 40 {
			t.Fatalf("%q: %d records, too few to page", q, total)
		}
		c.rankings.Purge()
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for g := range 8 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(g), 1))
				for range 20 {
					i := rng.IntN(len(want) - 1)
					limit := 1 + rng.IntN(30)
					p, err := c.List(Filter{Query: q}, PageRequest{Limit: limit, After: want[i]})
					if err != nil {
						errs <- err.Error()
						return
					}
					end := min(len(want), i+1+limit)
					if got := ids(p.Exercises); !slices.Equal(got, want[i+1:end]) {
						errs <- fmt.Sprintf("%q after %s: %v, want %v", q, want[i], got, want[i+1:end])
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}
