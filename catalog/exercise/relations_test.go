package exercise

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/exercisedb/exercisedb/catalog/search"
)

// relatedFile is randomFile as a version 2 file: records in 40 families
// over 6 movement patterns, with minimal content.
func relatedFile(n int, seed uint64) *File {
	f := randomFile(n, seed)
	f.Format = FormatV2
	rng := rand.New(rand.NewPCG(seed, 7))
	standard := map[int]bool{}
	for i := range f.Exercises {
		x := &f.Exercises[i]
		fam := rng.IntN(40)
		x.Family = fmt.Sprintf("family %d", fam)
		// Some families have a standard form, the first record drawn.
		x.Standard = fam%3 != 0 && !standard[fam]
		standard[fam] = true
		x.Pattern = fmt.Sprintf("pattern %d", fam%6)
		x.Description = "A test exercise."
		x.Instructions = []string{"Set up.", "Move.", "Return."}
		x.Tips = []string{"Breathe."}
		x.Aliases = []string{}
	}
	return f
}

// relatedModel is the specification of Related written as a scan: every
// record is tested against the rules and sorted by its tier, then id.
// sameSet reports whether a and b hold the same values (each without
// repeats), in any order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

// needsOnly reports whether x needs no equipment but those of have (as a
// Filter gives them); with none given, any record does.
func needsOnly(x Exercise, have []string) bool {
	if len(have) == 0 {
		return true
	}
	for _, e := range x.Equipments {
		if !slices.ContainsFunc(have, func(h string) bool { return Canonical(h) == e || slices.Contains(comesWith[Canonical(h)], e) }) {
			return false
		}
	}
	return true
}

func relatedModel(f *File, rel Relation, id string, flt Filter) []Exercise {
	all, err := model(f, flt, PageRequest{Limit: MaxLimit * 1000})
	if err != nil {
		panic(err)
	}
	var src Exercise
	for _, x := range f.Exercises {
		if x.ID == id {
			src = x
		}
	}
	// share counts the target muscles of src that x trains, and reports
	// (as 1) whether x aims at a muscle src does not train at all.
	share := func(x Exercise) (shared, beyond int) {
		for _, m := range x.TargetMuscles {
			switch {
			case slices.Contains(src.TargetMuscles, m):
				shared++
			case !slices.Contains(src.SecondaryMuscles, m):
				beyond = 1
			}
		}
		return shared, beyond
	}
	rank := map[string]int{"beginner": 0, "intermediate": 1, "advanced": 2}
	type scored struct {
		x    Exercise
		tier int
	}
	size := map[string]int{}
	for _, x := range f.Exercises {
		size[x.Family]++
	}
	// class: as in search, the standard forms first, those of larger
	// families first, then the other records by the words of their names
	// (the index's masks, at the records' positions in id order).
	sorted := slices.Clone(f.Exercises)
	slices.SortFunc(sorted, func(a, b Exercise) int { return strings.Compare(a.ID, b.ID) })
	idx := search.NewIndex(bodyPartOf(f.Vocabularies.Muscles))
	pos := map[string]uint32{}
	for i := range sorted {
		pos[sorted[i].ID] = uint32(i)
		idx.Add(uint32(i), searchRecord(&sorted[i]))
	}
	idx.Finish()
	class := func(x Exercise) int {
		return slices.IndexFunc(idx.Masks(), func(m *roaring.Bitmap) bool { return m.Contains(pos[x.ID]) })
	}
	var out []scored
	for _, xp := range all.Exercises {
		x := *xp
		if x.ID == src.ID || !needsOnly(x, flt.Equipments) {
			continue
		}
		switch rel {
		case Variations:
			if x.Family == src.Family {
				out = append(out, scored{x, rank[x.Difficulty]})
			}
		case Alternatives:
			shared, beyond := share(x)
			if x.Pattern != src.Pattern || shared == 0 || (x.Family == src.Family && sameSet(x.Equipments, src.Equipments)) {
				continue
			}
			// Most of src's targets first; then no harder, then the least
			// harder; then the same family; then no other target.
			tier := len(src.TargetMuscles) - shared
			tier = 3*tier + max(0, rank[x.Difficulty]-rank[src.Difficulty])
			tier = 2 * tier
			if x.Family != src.Family {
				tier++
			}
			tier = 2*tier + beyond
			out = append(out, scored{x, tier})
		}
	}
	if rel == Alternatives {
		// The staple: a standard form of another family of at least two
		// thirds of src's records, of at least half the largest such family's records,
		// at most one difficulty harder; sharing an equipment first, then
		// of the larger family, of more shared targets, of the lower id.
		type option struct {
			i, shares, size, shared int
			id                      string
		}
		var opts []option
		largest := 0
		for i, s := range out {
			x := s.x
			shared, _ := share(x)
			if !x.Standard || x.Family == src.Family || size[x.Family] < max(4, (2*size[src.Family]+2)/3) || rank[x.Difficulty] > rank[src.Difficulty]+1 {
				continue
			}
			shares := 1
			if slices.ContainsFunc(x.Equipments, func(e string) bool { return slices.Contains(src.Equipments, e) }) {
				shares = 0
			}
			largest = max(largest, size[x.Family])
			opts = append(opts, option{i, shares, size[x.Family], shared, x.ID})
		}
		opts = slices.DeleteFunc(opts, func(o option) bool { return 2*o.size < largest })
		if len(opts) > 0 {
			best := slices.MinFunc(opts, func(a, b option) int {
				return cmp.Or(cmp.Compare(a.shares, b.shares), cmp.Compare(b.size, a.size), cmp.Compare(b.shared, a.shared), cmp.Compare(a.id, b.id))
			})
			out[best.i].tier = -1
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(class(a.x), class(b.x)), cmp.Compare(a.x.ID, b.x.ID))
	})
	xs := make([]Exercise, len(out))
	for i, s := range out {
		xs[i] = s.x
	}
	return xs
}

// walkRelated pages through a relation with limit, forward from the start
// and then backward from the end, and returns both orders of ids.
func walkRelated(t *testing.T, c *Catalogue, rel Relation, id string, flt Filter, limit, recordCap int) (fwd, bwd []string, total int) {
	t.Helper()
	p, err := c.Related(rel, id, flt, PageRequest{Limit: limit, RecordCap: recordCap})
	if err != nil {
		t.Fatal(err)
	}
	total = p.Total
	var last Page
	for {
		fwd = append(fwd, ids(p.Exercises)...)
		last = p
		if !p.HasNextPage {
			break
		}
		if p.NextCursor == "" {
			t.Fatalf("HasNextPage without NextCursor")
		}
		if p, err = c.Related(rel, id, flt, PageRequest{Limit: limit, RecordCap: recordCap, After: p.NextCursor}); err != nil {
			t.Fatal(err)
		}
	}
	p = last
	for {
		bwd = append(ids(p.Exercises), bwd...)
		if !p.HasPreviousPage {
			break
		}
		if p, err = c.Related(rel, id, flt, PageRequest{Limit: limit, RecordCap: recordCap, Before: p.PreviousCursor}); err != nil {
			t.Fatal(err)
		}
	}
	return fwd, bwd, total
}

// TestRelatedEquipmentsAtHand: a relation's equipments are what one has
// ("what can I do instead with what I have"), so a related record needing
// anything else (but what comes with it) is left out, where the listing's
// any-of would keep a record that needs one of them and something more.
func TestRelatedEquipmentsAtHand(t *testing.T) {
	f := relatedFile(600, 3)
	c := mustNew(t, f)
	have := []string{" Body Weight", "dumbbell"}
	for _, rel := range []Relation{Variations, Alternatives} {
		left, kept := 0, 0
		for _, src := range f.Exercises[:60] {
			all, _, _ := walkRelated(t, c, rel, src.ID, Filter{}, MaxLimit, 0)
			got, _, _ := walkRelated(t, c, rel, src.ID, Filter{Equipments: have}, MaxLimit, 0)
			var want []string
			for _, id := range all {
				x := f.Exercises[slices.IndexFunc(f.Exercises, func(x Exercise) bool { return x.ID == id })]
				if needsOnly(x, have) {
					want = append(want, id)
				} else if slices.Contains(x.Equipments, "body weight") || slices.Contains(x.Equipments, "dumbbell") {
					left++ // the listing's any-of would keep it
				}
			}
			kept += len(want)
			// The same records; the order may differ, as the staple is
			// chosen among what is at hand.
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%s of %s with %q:\n got %v\nwant %v", rel, src.ID, have, got, want)
			}
		}
		if left == 0 || kept == 0 {
			t.Fatalf("%s: the test data should hold records kept (%d) and records needing more (%d)", rel, kept, left)
		}
	}
}

func TestRelatedMatchesModel(t *testing.T) {
	f := relatedFile(600, 3)
	c := mustNew(t, f)
	filters := []Filter{
		{},
		{Equipments: []string{"body weight", "dumbbell"}},
		{Difficulties: []string{"beginner"}, BodyParts: []string{"back"}},
	}
	for _, rel := range []Relation{Variations, Alternatives} {
		for i, flt := range filters {
			for _, src := range []string{"r00000", "r00007", "r00123", "r00599"} {
				t.Run(fmt.Sprintf("%s/filter%d/%s", rel, i, src), func(t *testing.T) {
					want := ids(refs(relatedModel(f, rel, src, flt)))
					for _, recordCap := range []int{0, 3} {
						fwd, bwd, total := walkRelated(t, c, rel, src, flt, 4, recordCap)
						w := want
						if recordCap > 0 && len(w) > recordCap {
							w = w[:recordCap]
						}
						if total != len(w) {
							t.Errorf("cap %d: total %d, want %d", recordCap, total, len(w))
						}
						if !slices.Equal(fwd, w) && !(len(fwd) == 0 && len(w) == 0) {
							t.Errorf("cap %d: forward\n got %v\nwant %v", recordCap, fwd, w)
						}
						if !slices.Equal(bwd, fwd) {
							t.Errorf("cap %d: backward visits %v, forward %v", recordCap, bwd, fwd)
						}
					}
				})
			}
		}
	}
}

func TestRelationRules(t *testing.T) {
	f := relatedFile(400, 5)
	c := mustNew(t, f)
	byID := map[string]Exercise{}
	for _, x := range f.Exercises {
		byID[x.ID] = x
	}
	related := func(rel Relation, id string) []string {
		fwd, _, _ := walkRelated(t, c, rel, id, Filter{}, MaxLimit, 0)
		return fwd
	}
	for _, x := range f.Exercises {
		for _, v := range related(Variations, x.ID) {
			if !slices.Contains(related(Variations, v), x.ID) {
				t.Fatalf("%s is a variation of %s but not the other way round", v, x.ID)
			}
			if byID[v].Family != x.Family {
				t.Fatalf("variation %s of %s is of family %q, not %q", v, x.ID, byID[v].Family, x.Family)
			}
		}
		for _, a := range related(Alternatives, x.ID) {
			y := byID[a]
			shares := slices.ContainsFunc(y.TargetMuscles, func(m string) bool { return slices.Contains(x.TargetMuscles, m) })
			switch {
			case a == x.ID:
				t.Fatalf("%s is its own alternative", a)
			case !shares:
				t.Fatalf("alternative %s of %s shares no target muscle", a, x.ID)
			case y.Pattern != x.Pattern:
				t.Fatalf("alternative %s of %s has pattern %q, not %q", a, x.ID, y.Pattern, x.Pattern)
			case y.Family == x.Family && sameSet(y.Equipments, x.Equipments):
				t.Fatalf("alternative %s of %s differs in neither equipment nor set-up", a, x.ID)
			}
		}
	}
}

func TestRelatedErrors(t *testing.T) {
	f := relatedFile(200, 9)
	c := mustNew(t, f)
	alts, _, _ := walkRelated(t, c, Alternatives, "r00001", Filter{}, MaxLimit, 0)
	if len(alts) < 3 {
		t.Fatalf("r00001 has %d alternatives; the test needs 3", len(alts))
	}
	var notInList string
	for _, x := range f.Exercises {
		if x.ID != "r00001" && !slices.Contains(alts, x.ID) {
			notInList = x.ID
			break
		}
	}
	for _, tc := range []struct {
		name  string
		id    string
		req   PageRequest
		want  error
		field string
	}{
		{name: "unknown id", id: "nope", want: ErrNotFound},
		{name: "malformed id", id: "a b", want: ErrInvalidArgument, field: FieldID},
		{name: "cursor not in list", id: "r00001", req: PageRequest{After: notInList}, want: ErrInvalidArgument, field: FieldAfter},
		{name: "cursor not in catalogue", id: "r00001", req: PageRequest{Before: "zzz"}, want: ErrInvalidArgument, field: FieldBefore},
		{name: "both cursors", id: "r00001", req: PageRequest{After: alts[0], Before: alts[1]}, want: ErrInvalidArgument, field: FieldBefore},
		{name: "beyond cap", id: "r00001", req: PageRequest{After: alts[2], RecordCap: 2}, want: ErrBeyondRecordCap},
		{name: "limit", id: "r00001", req: PageRequest{Limit: MaxLimit + 1}, want: ErrInvalidArgument, field: FieldLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Related(Alternatives, tc.id, Filter{}, tc.req)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var ae *ArgumentError
			if tc.field != "" && (!errors.As(err, &ae) || ae.Violations[0].Field != tc.field) {
				t.Fatalf("err = %v, want a violation of %s", err, tc.field)
			}
		})
	}
	// The cursor at the cap's last record is still reachable, and the
	// empty page after it pages back with the rank past the cap, which
	// before accepts (and after does not).
	end, err := c.Related(Alternatives, "r00001", Filter{}, PageRequest{After: alts[1], RecordCap: 2})
	if err != nil {
		t.Fatalf("after the last reachable record: %v", err)
	}
	if len(end.Exercises) != 0 || !end.HasPreviousPage || end.PreviousCursor != alts[2] {
		t.Fatalf("after the last reachable record: %+v, want an empty page whose previousCursor is %s", end, alts[2])
	}
	back, err := c.Related(Alternatives, "r00001", Filter{}, PageRequest{Before: end.PreviousCursor, RecordCap: 2})
	if err != nil || !slices.Equal(ids(back.Exercises), alts[:2]) || back.HasNextPage {
		t.Fatalf("before the rank past the cap: %v, %v; want %v and no next page", ids(back.Exercises), err, alts[:2])
	}
	if _, err := c.Related(Alternatives, "r00001", Filter{}, PageRequest{After: alts[2], RecordCap: 2}); !errors.Is(err, ErrBeyondRecordCap) {
		t.Fatalf("after the rank past the cap: %v, want ErrBeyondRecordCap", err)
	}
}

// A version 1 catalogue has no families: every relation is empty.
func TestRelatedVersion1(t *testing.T) {
	c := mustNew(t, randomFile(50, 1))
	for _, rel := range []Relation{Variations, Alternatives} {
		p, err := c.Related(rel, "r00003", Filter{}, PageRequest{})
		if err != nil || p.Total != 0 || len(p.Exercises) != 0 {
			t.Fatalf("%s: %+v, %v", rel, p, err)
		}
	}
}

// handMade is a hand-made record of a test: its equipments are those
// of equipment, separated by commas.
type handMade struct {
	name, family, difficulty, equipment string
	targets                             []string
	standard                            bool
}

// handMadeFile returns a version 2 file of recs, of pattern unless a
// record's family names one after a colon ("row:horizontal pull"), with
// the test vocabularies and the equipments recs need.
func handMadeFile(pattern string, recs []handMade) *File {
	f := &File{Format: FormatV2, Vocabularies: testVocabularies()}
	parts := map[string]string{}
	for _, m := range f.Vocabularies.Muscles {
		parts[m.Name] = m.BodyPart
	}
	for _, r := range recs {
		var bodyParts []string
		for _, m := range r.targets {
			if !slices.Contains(bodyParts, parts[m]) {
				bodyParts = append(bodyParts, parts[m])
			}
		}
		for _, e := range strings.Split(r.equipment, ",") {
			if !slices.Contains(f.Vocabularies.Equipments, Term{e}) {
				f.Vocabularies.Equipments = append(f.Vocabularies.Equipments, Term{e})
			}
		}
		family, p, found := strings.Cut(r.family, ":")
		if !found {
			p = pattern
		}
		f.Exercises = append(f.Exercises, Exercise{
			ID: IDFor(r.name), Name: r.name, BodyParts: bodyParts,
			Equipments: strings.Split(r.equipment, ","), ExerciseTypes: []string{"strength"},
			Difficulty: r.difficulty, TargetMuscles: r.targets, SecondaryMuscles: []string{},
			Family: family, Pattern: p, Standard: r.standard,
			Description: "A test exercise.", Instructions: []string{"Set up.", "Move.", "Return."},
			Tips: []string{"Breathe."}, Aliases: []string{},
		})
	}
	return f
}

// TestAlternativesOrder: the ranking a coach expects, on hand-made
// records. A substitute that demands more comes after one that does not,
// even of the same family (a weighted lat pulldown is no substitute for
// someone who cannot do a lat pulldown), the least harder first; one that
// trains more of the exercise's target muscles comes first, and one that
// also aims elsewhere after one that does not.
func TestAlternativesOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		recs []handMade
		want []string
	}{
		{
			name: "difficulty before family, least harder first",
			src:  "lat pulldown",
			recs: []handMade{
				{"lat pulldown", "pulldown", "beginner", "cable", []string{"latissimus dorsi"}, true},
				{"weighted lat pulldown", "pulldown", "advanced", "dumbbell", []string{"latissimus dorsi"}, false},
				{"rope climb", "climb", "advanced", "body weight", []string{"latissimus dorsi"}, false},
				{"chest-to-bar pull-up", "pull-up", "intermediate", "body weight", []string{"latissimus dorsi"}, false},
				{"assisted pull-up", "pull-up", "beginner", "barbell", []string{"latissimus dorsi"}, false},
			},
			want: []string{"assisted pull-up", "chest-to-bar pull-up", "weighted lat pulldown", "rope climb"},
		},
		{
			name: "more shared targets first, then nothing beyond them",
			src:  "deadlift",
			recs: []handMade{
				{"deadlift", "deadlift", "beginner", "barbell", []string{"hamstrings", "quadriceps", "rectus abdominis"}, true},
				{"sumo pull", "sumo", "beginner", "barbell", []string{"quadriceps"}, false},
				{"romanian deadlift", "romanian", "beginner", "barbell", []string{"hamstrings", "quadriceps"}, false},
				{"hinge and press", "complex", "beginner", "barbell", []string{"hamstrings", "quadriceps", "rectus abdominis", "pectoralis major"}, false},
				{"long stiff leg deadlift", "stiff", "beginner", "barbell", []string{"hamstrings", "quadriceps", "rectus abdominis"}, false},
			},
			want: []string{"long stiff leg deadlift", "hinge and press", "romanian deadlift", "sumo pull"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := handMadeFile("hinge and pull", tc.recs)
			c := mustNew(t, f)
			p, err := c.Related(Alternatives, IDFor(tc.src), Filter{}, PageRequest{Limit: MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range p.Exercises {
				got = append(got, x.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("alternatives of %s:\n got %q\nwant %q", tc.src, got, tc.want)
			}
		})
	}
}

// TestAlternativesFallback: with nothing of the exercise's pattern at
// hand, the list falls back on the neighbouring patterns (a vertical
// pull's rows, then pullovers) and says so; each pattern's staple comes
// first; a bench comes with dumbbells.
func TestAlternativesFallback(t *testing.T) {
	lats := []string{"latissimus dorsi"}
	recs := []handMade{
		{"lat pulldown", "pulldown", "beginner", "cable", lats, true},
		{"pull-up", "pull-up", "intermediate", "body weight,pull-up bar", lats, true},
		{"wide pull-up", "pull-up", "intermediate", "body weight,pull-up bar", lats, false},
		{"archer pull-up", "pull-up", "advanced", "body weight,pull-up bar", lats, false},
		{"negative pull-up", "pull-up", "beginner", "body weight,pull-up bar", lats, false},
		{"machine pulldown", "pulldown", "beginner", "leverage machine", lats, false},
		{"dumbbell row", "row:horizontal pull", "beginner", "dumbbell,bench", lats, true},
		{"kroc row", "row:horizontal pull", "beginner", "dumbbell", lats, false},
		{"seal row", "row:horizontal pull", "beginner", "dumbbell,bench", lats, false},
		{"renegade row", "row:horizontal pull", "beginner", "dumbbell", lats, false},
		{"doorway row", "doorway:horizontal pull", "beginner", "body weight", lats, true},
		{"dumbbell pullover", "pullover:pullover", "intermediate", "dumbbell,bench", lats, true},
		{"floor pullover", "pullover:pullover", "intermediate", "dumbbell", lats, false},
		{"band pullover", "pullover:pullover", "beginner", "resistance band", lats, false},
		{"ball pullover", "pullover:pullover", "beginner", "stability ball", lats, false},
		{"dumbbell curl", "curl:elbow flexion", "beginner", "dumbbell", lats, true},
	}
	c := mustNew(t, handMadeFile("vertical pull", recs))
	for _, tc := range []struct {
		src      string
		have     []string
		want     []string
		patterns []string
		fallback bool
	}{
		// The larger family's standard form first, then by difficulty.
		{"lat pulldown", nil, []string{"pull-up", "machine pulldown", "negative pull-up", "wide pull-up", "archer pull-up"}, []string{"vertical pull"}, false},
		{"pull-up", []string{"body weight"}, []string{"doorway row"}, []string{"horizontal pull"}, true},
		// Each pattern's staple, nearest first, then the rest in turn;
		// the bench comes with the dumbbells.
		{"lat pulldown", []string{"dumbbell"}, []string{"dumbbell row", "dumbbell pullover", "renegade row", "seal row", "kroc row", "floor pullover"}, []string{"horizontal pull", "pullover"}, true},
		{"lat pulldown", []string{"cable"}, []string{}, []string{}, false},
	} {
		t.Run(tc.src+" with "+strings.Join(tc.have, ","), func(t *testing.T) {
			p, err := c.Related(Alternatives, IDFor(tc.src), Filter{Equipments: tc.have}, PageRequest{Limit: MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, x := range p.Exercises {
				got = append(got, x.Name)
			}
			if !slices.Equal(got, tc.want) || !slices.Equal(p.MovementPatterns, tc.patterns) || p.Fallback != tc.fallback {
				t.Errorf("got %q of %q (fallback %t)\nwant %q of %q (fallback %t)", got, p.MovementPatterns, p.Fallback, tc.want, tc.patterns, tc.fallback)
			}
		})
	}
	// Other lists carry no patterns.
	if p, err := c.Related(Variations, IDFor("pull-up"), Filter{}, PageRequest{}); err != nil || p.MovementPatterns != nil || p.Fallback {
		t.Errorf("variations: patterns %q, fallback %t, %v", p.MovementPatterns, p.Fallback, err)
	}
}
