package demo

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

var (
	catOnce sync.Once
	cat     *exercise.File
	catErr  error
)

func catalogue(t testing.TB) *exercise.File {
	catOnce.Do(func() { cat, catErr = exercise.Decode(bytes.NewReader(dataset.Default())) })
	if catErr != nil {
		t.Fatal(catErr)
	}
	return cat
}

func inputOf(x exercise.Exercise) Input {
	return Input{Name: x.Name, Family: x.Family, Pattern: x.Pattern, Equipments: x.Equipments,
		TargetMuscles: x.TargetMuscles, SecondaryMuscles: x.SecondaryMuscles, ExerciseTypes: x.ExerciseTypes}
}

func record(t testing.TB, name string) exercise.Exercise {
	for _, x := range catalogue(t).Exercises {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("no record %q", name)
	return exercise.Exercise{}
}

func TestDataValid(t *testing.T) {
	l, err := loadLibrary()
	if err != nil {
		t.Fatal(err)
	}
	f := catalogue(t)
	fams := map[string]bool{}
	pats := map[string]bool{}
	for _, x := range f.Exercises {
		fams[x.Family] = true
		pats[x.Pattern] = true
	}
	for _, n := range sortedKeys(l.families) {
		if !fams[n] {
			t.Errorf("families/%s: family %q is not in the catalogue", l.families[n].file, n)
		}
	}
	for f := range fams {
		if l.families[f] == nil {
			t.Errorf("family %q is not listed in any families/*.yaml (list it, as {} if it has no template yet)", f)
		}
	}
	for p := range pats {
		if _, ok := l.patterns[p]; !ok {
			t.Errorf("patterns.yaml: pattern %q missing", p)
		}
	}
	for _, m := range exercise.Names(f.Vocabularies.Muscles) {
		if len(l.muscles[m]) == 0 {
			t.Errorf("muscles.yaml: muscle %q has no region", m)
		}
	}
	for _, n := range l.usedTemplates() {
		if l.templates[n] == nil {
			t.Errorf("template %q is used but not defined", n)
		}
	}
	for _, ty := range exercise.Names(f.Vocabularies.ExerciseTypes) {
		if _, ok := l.icons[ty]; !ok {
			t.Errorf("icons.yaml: exercise type %q has no icon", ty)
		}
	}
}

// TestFamilyFilesMirrorSources checks that each families/<area>.yaml maps
// the families of catalog/dataset/source/families/<area>.yaml.
func TestFamilyFilesMirrorSources(t *testing.T) {
	src := map[string]string{}
	files, _ := filepath.Glob(filepath.Join("..", "..", "dataset", "source", "families", "*.yaml"))
	if len(files) == 0 {
		t.Skip("catalogue sources not found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "- family: "); ok {
				src[strings.TrimSpace(name)] = filepath.Base(f)
			}
		}
	}
	for n, f := range theLibrary().families {
		if src[n] != f.file {
			t.Errorf("family %q is in families/%s, its source is in %s", n, f.file, src[n])
		}
	}
}

func TestUnknownKeysRejected(t *testing.T) {
	var m map[string]*template
	err := decodeStrict([]byte("squat:\n  base: stand\n  bogus: 1\n"), &m)
	if err == nil {
		t.Fatal("unknown key accepted")
	}
	var fm map[string]*familyEntry
	if err := decodeStrict([]byte("squat:\n  rules:\n    - when: {nam: [x]}\n"), &fm); err == nil {
		t.Fatal("unknown key in a rule accepted")
	}
	bad := &template{Keys: []map[string]float64{{"elbow": 3}}}
	if err := theLibrary().compile(bad); err == nil {
		t.Fatal("unknown pose field accepted")
	}
	if err := theLibrary().compile(&template{View: "top"}); err == nil {
		t.Fatal("unknown view accepted")
	}
	if err := theLibrary().compile(&template{View: "front", Hook: "knee"}); err == nil {
		t.Fatal("unknown hook accepted")
	}
}

// TestEveryRecord resolves every record and renders its poster at 180 px
// (and all frames for every 25th record).
func TestEveryRecord(t *testing.T) {
	for i, x := range catalogue(t).Exercises {
		d := For(inputOf(x))
		fr := d.Frames(180)
		_ = i
		if len(fr) == 0 || fr[0].Bounds().Dx() != 180 || fr[0].Bounds().Dy() != 180 {
			t.Fatalf("%s: bad frames", x.Name)
		}
		if p := d.PosterFrame(); p < 0 || p >= d.FrameCount() {
			t.Fatalf("%s: poster %d", x.Name, p)
		}
		if d.Faithful() != (d.Template() != "") {
			t.Fatalf("%s: faithful %v with template %q", x.Name, d.Faithful(), d.Template())
		}
	}
}

func hashFrames(d Demo, h int) string {
	s := sha256.New()
	for _, f := range d.Frames(h) {
		s.Write(f.Pix)
	}
	return hex.EncodeToString(s.Sum(nil))
}

func TestDeterministic(t *testing.T) {
	d := For(inputOf(record(t, "barbell bench press")))
	if a, b := hashFrames(d, 180), hashFrames(d, 180); a != b {
		t.Fatal("two renders differ")
	}
	e := For(inputOf(record(t, "barbell bench press")))
	if d.Fingerprint() != e.Fingerprint() {
		t.Fatal("fingerprint not stable")
	}
}

var goldenRecords = []string{"barbell bench press", "pull-up", "kettlebell swing", "dumbbell bent-over row", "jumping jack", "tree pose", "lat pulldown"}

func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden.txt")
	var lines []string
	for _, n := range goldenRecords {
		lines = append(lines, fmt.Sprintf("%s\t%s", n, hashFrames(For(inputOf(record(t, n))), 180)))
	}
	for _, ty := range []string{"strength", "yoga"} {
		lines = append(lines, fmt.Sprintf("icon:%s\t%s", ty, hashFrames(Icon(ty), 180)))
	}
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte("# "+Version+"\n"+got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "\t"); ok {
			want[k] = v
		}
	}
	for _, l := range lines {
		k, v, _ := strings.Cut(l, "\t")
		if want[k] != v {
			t.Errorf("%s: frames changed (bump Version and run with -update if intended)", k)
		}
	}
}

// TestFrontMirrors checks that the front view mirrors a symmetric pose.
func TestFrontMirrors(t *testing.T) {
	p, _ := unsetPose().overlay(map[string]float64{"sh": 70, "el": 20, "hip": 15, "kn": 10})
	b := pose2front(p.complete(), false)
	for _, l := range [][2]limb{{b.arm, b.arm2}, {b.leg, b.leg2}} {
		for _, j := range [][2]vec{{l[0].root, l[1].root}, {l[0].mid, l[1].mid}, {l[0].end, l[1].end}, {l[0].tip, l[1].tip}} {
			if math.Abs(j[0].X+j[1].X) > 1e-9 || math.Abs(j[0].Y-j[1].Y) > 1e-9 || j[0].X <= 0 {
				t.Fatalf("not mirrored: %v %v", j[0], j[1])
			}
		}
	}
}

func TestFingerprintSeparates(t *testing.T) {
	a := For(inputOf(record(t, "barbell bench press")))
	b := For(inputOf(record(t, "dumbbell bench press")))
	if a.Fingerprint() == b.Fingerprint() {
		t.Fatal("different equipment, same fingerprint")
	}
}

func TestIcons(t *testing.T) {
	for _, ty := range []string{"strength", "cardio", "plyometrics", "stretching", "weightlifting", "yoga", "aerobic", "unknown"} {
		d := Icon(ty)
		if len(d.Frames(64)) == 0 {
			t.Fatal(ty)
		}
	}
	if Icon("unknown").Template() != "" {
		t.Fatal("unknown type got a template")
	}
}

// TestCoverage reports how many records have a faithful animation.
func TestCoverage(t *testing.T) {
	type c struct{ ok, all int }
	per := map[string]*c{}
	fam := map[string]*c{}
	total := c{}
	for _, x := range catalogue(t).Exercises {
		d := For(inputOf(x))
		if per[x.Pattern] == nil {
			per[x.Pattern] = &c{}
		}
		if fam[x.Family] == nil {
			fam[x.Family] = &c{}
		}
		per[x.Pattern].all++
		fam[x.Family].all++
		total.all++
		if d.Faithful() {
			per[x.Pattern].ok++
			fam[x.Family].ok++
			total.ok++
		}
	}
	t.Logf("faithful: %d / %d records (%.0f%%)", total.ok, total.all, 100*float64(total.ok)/float64(total.all))
	for _, p := range sortedKeys(per) {
		t.Logf("  %-18s %3d / %3d", p, per[p].ok, per[p].all)
	}
	var gaps []string
	for f, v := range fam {
		if v.all-v.ok >= 3 {
			gaps = append(gaps, fmt.Sprintf("%3d %s", v.all-v.ok, f))
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(gaps)))
	t.Logf("families with 3+ records not faithful:\n%s", strings.Join(gaps, "\n"))
}

// TestReviewCatalogue writes contact sheets of the catalogue's posters:
// go test -run ReviewCatalogue -review /tmp/demo
func TestReviewCatalogue(t *testing.T) {
	if *review == "" {
		t.Skip("no -review directory")
	}
	os.MkdirAll(*review, 0o755)
	seen := map[string]bool{}
	var ds []Demo
	var names []string
	for _, x := range catalogue(t).Exercises {
		d := For(inputOf(x))
		if !d.Faithful() || seen[d.Fingerprint()] || seen[x.Family] {
			continue
		}
		seen[d.Fingerprint()], seen[x.Family] = true, true
		ds = append(ds, d)
		names = append(names, x.Name)
	}
	sort.Sort(byName{ds, names})
	for i := 0; i < len(ds); i += 48 {
		j := min(i+48, len(ds))
		p := fmt.Sprintf("%s/catalogue-%02d.png", *review, i/48)
		f, _ := os.Create(p)
		png.Encode(f, ContactSheet(ds[i:j], names[i:j], 8, 150))
		f.Close()
		t.Logf("%s: %s", p, strings.Join(names[i:j], " | "))
	}
}

type byName struct {
	d []Demo
	n []string
}

func (b byName) Len() int           { return len(b.n) }
func (b byName) Less(i, j int) bool { return b.n[i] < b.n[j] }
func (b byName) Swap(i, j int) {
	b.d[i], b.d[j] = b.d[j], b.d[i]
	b.n[i], b.n[j] = b.n[j], b.n[i]
}

// benchRecord renders one record's loop; cpu-ms/op is the process CPU time
// per loop, which a busy shared host does not inflate as it does ns/op.
func benchRecord(b *testing.B, h int) {
	d := For(inputOf(record(b, "barbell bench press")))
	b.ResetTimer()
	c0, ok := processCPU()
	for range b.N {
		d.Frames(h)
	}
	if c1, _ := processCPU(); ok {
		b.ReportMetric(float64(c1-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

func BenchmarkFrames180(b *testing.B) { benchRecord(b, 180) }
func BenchmarkFrames360(b *testing.B) { benchRecord(b, 360) }
func BenchmarkFrames720(b *testing.B) { benchRecord(b, 720) }

// TestFrontTurn checks that fwd turns a front-view arm towards the viewer
// (its sideways reach shrinks, then crosses over), that efwd, hfwd and
// kfwd shorten the forearm, the thigh and the shank, and that a shank
// pointing away hides its foot.
func TestFrontTurn(t *testing.T) {
	reach := func(m map[string]float64) body {
		p, _ := unsetPose().overlay(m)
		return pose2front(p.complete(), false)
	}
	out := reach(map[string]float64{"sh": 90, "el": 0})
	front := reach(map[string]float64{"sh": 90, "el": 0, "fwd": 90})
	across := reach(map[string]float64{"sh": 90, "el": 0, "fwd": 180})
	root := out.arm.root.X
	if out.arm.tip.X-root < 25 || math.Abs(front.arm.tip.X-root) > 1e-6 || across.arm.tip.X-root > -25 {
		t.Fatalf("hand x from the shoulder: out %.1f, at the viewer %.1f, across %.1f", out.arm.tip.X-root, front.arm.tip.X-root, across.arm.tip.X-root)
	}
	if front.arm.tip.Y != out.arm.tip.Y {
		t.Fatal("turning the arm changed its height")
	}
	rotated := reach(map[string]float64{"sh": 90, "el": 90, "efwd": 60})
	if l := rotated.arm.end.sub(rotated.arm.mid).lenv(); math.Abs(l-foreArm/2) > 1e-6 {
		t.Fatalf("forearm at 60 degrees towards the viewer drawn %.1f long", l)
	}
	seated := reach(map[string]float64{"hfwd": 80, "kfwd": 60})
	if l := seated.leg.root.Y - seated.leg.mid.Y; l > thighLen*0.3 {
		t.Fatalf("thigh towards the viewer drawn %.1f long", l)
	}
	if l := seated.leg.mid.Y - seated.leg.end.Y; math.Abs(l-shankLen/2) > 1e-6 {
		t.Fatalf("shank at 60 degrees drawn %.1f long", l)
	}
	if seated.leg.tip == seated.leg.end {
		t.Fatal("foot of a shank towards the viewer hidden")
	}
	kneeling := reach(map[string]float64{"kfwd": -84})
	if kneeling.leg.tip != kneeling.leg.end || kneeling.leg.heel != kneeling.leg.end {
		t.Fatal("foot of a shank pointing away from the viewer drawn")
	}
}

// TestFrontBow checks that bow drops a front-view torso's shoulders by its
// foreshortening, the arms hanging from them unchanged in length, and turns
// the upper back to the viewer when bent far over.
func TestFrontBow(t *testing.T) {
	at := func(m map[string]float64) body {
		p, _ := unsetPose().overlay(m)
		return pose2front(p.complete(), false)
	}
	up := at(map[string]float64{"sh": 10})
	bent := at(map[string]float64{"sh": 10, "bow": 60})
	if d := up.shoulder.Y - bent.shoulder.Y; math.Abs(d-torsoLen/2) > 1e-6 {
		t.Fatalf("shoulders dropped %.1f at bow 60, want %.1f", d, torsoLen/2)
	}
	if a, b := up.arm.tip.sub(up.arm.root), bent.arm.tip.sub(bent.arm.root); a.sub(b).lenv() > 1e-6 {
		t.Fatalf("the arm changed from %v to %v", a, b)
	}
	if up.back || !bent.back || bent.head.Y > up.head.Y-torsoLen/2 {
		t.Fatalf("back towards the viewer: upright %v, bowed %v; head at %.1f", up.back, bent.back, bent.head.Y)
	}
}

// TestFrontFeetPlanted checks that fix: [feet] holds a front view's feet
// where the first frame put them (a lateral lunge shifts over its feet).
func TestFrontFeetPlanted(t *testing.T) {
	d := For(inputOf(record(t, "lateral lunge")))
	if !d.front() {
		t.Fatalf("lateral lunge drawn with %q, not from the front", d.Template())
	}
	bs := d.bodies()
	moved := false
	for _, b := range bs[1:] {
		for i, l := range []limb{b.leg, b.leg2} {
			f0 := []limb{bs[0].leg, bs[0].leg2}[i].end
			if l.end.sub(f0).lenv() > 1e-6 {
				t.Fatalf("foot %d moved from %v to %v", i, f0, l.end)
			}
		}
		moved = moved || math.Abs(b.hip.X-bs[0].hip.X) > 5
	}
	if !moved {
		t.Fatal("the pelvis never shifted over a foot")
	}
}

// TestEndView checks the view from the feet: a fly on a bench keeps the
// shoulders level above the feet while the hands sweep from wide to above
// the chest.
func TestEndView(t *testing.T) {
	d := For(inputOf(record(t, "dumbbell fly")))
	if d.tmpl == nil || d.tmpl.View != "end" {
		t.Fatalf("dumbbell fly drawn with %q, not from the feet", d.Template())
	}
	bs := d.bodies()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bs {
		if math.Abs(b.arm.root.Y-b.arm2.root.Y) > 1e-6 || b.leg.end.Y > b.shoulder.Y-20 {
			t.Fatalf("shoulders %v %v, foot %v", b.arm.root, b.arm2.root, b.leg.end)
		}
		lo, hi = math.Min(lo, b.arm.tip.Y-b.shoulder.Y), math.Max(hi, b.arm.tip.Y-b.shoulder.Y)
	}
	if lo > 5 || hi < 25 {
		t.Fatalf("hands between %.1f and %.1f above the shoulders", lo, hi)
	}
}

// TestFrontBar checks that a front template placing a bar draws the
// pull-up bar level through both hands of the first frame, and nothing
// without the bar among the equipment.
func TestFrontBar(t *testing.T) {
	d := For(inputOf(record(t, "archer pull-up")))
	if !d.front() {
		t.Fatalf("archer pull-up drawn with %q, not from the front", d.Template())
	}
	bs := d.bodies()
	b := &bs[0]
	lo, hi := math.Min(b.arm.tip.X, b.arm2.tip.X), math.Max(b.arm.tip.X, b.arm2.tip.X)
	found := false
	for _, s := range d.frontStatics(b).back {
		if s.kind == kCapsule && s.a.Y == s.b.Y && math.Abs(s.a.Y-b.arm.end.Y-1) < 1e-9 && s.a.X < lo && s.b.X > hi {
			found = true
		}
	}
	if !found {
		t.Fatal("no level bar through both hands")
	}
	d.equip = nil
	if n := len(d.frontStatics(b).back); n != 0 {
		t.Fatalf("%d shapes drawn without the bar", n)
	}
}

// TestFrontPlacedProps checks that a front view draws the foam roller and
// the bar's upright only where its template places them: under the thigh
// of a side-lying roll, and gripped by a human flag.
func TestFrontPlacedProps(t *testing.T) {
	count := func(name string) (rollers, uprights int) {
		d := For(inputOf(record(t, name)))
		if !d.front() {
			t.Fatalf("%s drawn with %q, not from the front", name, d.Template())
		}
		for _, s := range d.frontStatics(&d.bodies()[0]).back {
			if s.kind == kCircle && s.col == paint.Accent {
				rollers++
			}
			if s.kind == kPoly && s.col == paint.Frame && s.pts[2].Y-s.pts[0].Y > 100 {
				uprights++
			}
		}
		return rollers, uprights
	}
	for _, c := range []struct {
		name              string
		rollers, uprights int
	}{{"it band foam roll", 1, 0}, {"human flag", 0, 1}, {"lateral lunge", 0, 0}} {
		if r, u := count(c.name); r != c.rollers || u != c.uprights {
			t.Errorf("%s: %d rollers and %d uprights drawn, want %d and %d", c.name, r, u, c.rollers, c.uprights)
		}
	}
}

// TestPlatePile checks that plates stood on are drawn underfoot, not in
// the hand: a deficit reverse lunge starts standing on them.
func TestPlatePile(t *testing.T) {
	d := For(inputOf(record(t, "deficit reverse lunge")))
	if d.hasEquip("weight plate") {
		t.Fatal("the plate is also held")
	}
	bs := d.bodies()
	st := d.staticProps(&bs[0])
	var bb box
	st.back.bounds(&bb)
	foot := bs[0].leg
	sole := math.Min(foot.tip.Y, foot.heel.Y) - footW/2
	if math.Abs(bb.y1-sole) > 0.5 || bb.y0 > 0.1 || foot.end.X < bb.x0 || foot.end.X > bb.x1 {
		t.Fatalf("plates %+v, standing foot at %v, sole at %.1f", bb, foot.end, sole)
	}
}

// TestSideHooks checks that a side view's straps, band or towed sled pull
// on the joint the template hooks: the heels in a suspension trainer, the
// waist of a sled sprint.
func TestSideHooks(t *testing.T) {
	for _, c := range []struct {
		name  string
		from  func(statics) vec
		joint func(*body) vec
	}{
		{"suspension trainer hamstring curl", func(st statics) vec { return st.strap }, func(b *body) vec { return b.leg.end.add(vec{0, 2}) }},
		{"sled sprint", func(st statics) vec { return st.tow }, func(b *body) vec { return b.hip }},
	} {
		d := For(inputOf(record(t, c.name)))
		bs := d.bodies()
		st := d.staticProps(&bs[0])
		for i := range bs {
			found := false
			for _, sh := range d.frameScene(&bs[i], st, i, len(bs)) {
				found = found || sh.kind == kCapsule && sh.a == c.from(st) && sh.b == c.joint(&bs[i])
			}
			if !found {
				t.Fatalf("%s frame %d: nothing runs from %v to %v", c.name, i, c.from(st), c.joint(&bs[i]))
			}
		}
	}
}

// TestFrontJumpRope checks that a front view turns its jump rope: under
// the feet as a loop starts, over the head a quarter loop later.
func TestFrontJumpRope(t *testing.T) {
	d := For(inputOf(record(t, "jump rope jumping jack")))
	if !d.front() {
		t.Fatalf("drawn with %q, not from the front", d.Template())
	}
	bs := d.bodies()
	st := d.frontStatics(&bs[0])
	ropeY := func(i int) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, sh := range d.frontScene(&bs[i], st, float64(i)/float64(len(bs))) {
			if sh.kind == kCapsule && sh.col == paint.Accent {
				lo, hi = math.Min(lo, math.Min(sh.a.Y, sh.b.Y)), math.Max(hi, math.Max(sh.a.Y, sh.b.Y))
			}
		}
		return lo, hi
	}
	if lo, _ := ropeY(0); lo > frontLowest(&bs[0]) {
		t.Fatalf("rope at %.1f as the loop starts, the feet at %.1f", lo, frontLowest(&bs[0]))
	}
	q := len(bs) / 4
	if _, hi := ropeY(q); hi < bs[q].head.Y+headR {
		t.Fatalf("rope up to %.1f a quarter loop later, the head at %.1f", hi, bs[q].head.Y)
	}
}

// TestLiftedTyre checks that a tyre flip starts with the tyre flat on the
// floor and tips it up onto its edge as the hands drive it.
func TestLiftedTyre(t *testing.T) {
	d := For(inputOf(record(t, "tyre flip")))
	bs := d.bodies()
	st := d.staticProps(&bs[0])
	top := func(i int) float64 {
		y := math.Inf(-1)
		for _, sh := range d.frameScene(&bs[i], st, i, len(bs)) {
			if sh.kind == kPoly && sh.col == paint.Iron {
				for _, p := range sh.pts {
					y = math.Max(y, p.Y)
				}
			}
		}
		return y
	}
	if y := top(0); math.Abs(y-13) > 0.5 {
		t.Fatalf("the tyre reaches %.1f at the start, not lying flat", y)
	}
	if y := top(len(bs) * 3 / 4); y < liftedTyreLen*0.8 {
		t.Fatalf("the tyre reaches only %.1f as it is pushed over", y)
	}
}

// TestBallUnderHeels checks that a ball hooked at the ankles rolls with
// the heels in a leg curl, staying on the floor.
func TestBallUnderHeels(t *testing.T) {
	d := For(inputOf(record(t, "stability ball leg curl")))
	bs := d.bodies()
	st := d.staticProps(&bs[0])
	for i := range bs {
		found := false
		for _, sh := range d.frameScene(&bs[i], st, i, len(bs)) {
			found = found || sh.kind == kCircle && sh.col == paint.Accent && math.Abs(sh.a.X-bs[i].leg.end.X) < 2 && sh.a.Y == sh.w
		}
		if !found {
			t.Fatalf("frame %d: no ball on the floor under the heel at %v", i, bs[i].leg.end)
		}
	}
}

// TestFrontStraps checks that a front view draws suspension straps from
// the anchor to both hands where the data places the anchor, and none
// where it does not.
func TestFrontStraps(t *testing.T) {
	for name, want := range map[string]bool{"suspension trainer side lunge": true, "suspension trainer side plank": false} {
		d := For(inputOf(record(t, name)))
		if !d.front() {
			t.Fatalf("%s drawn with %q, not from the front", name, d.Template())
		}
		bs := d.bodies()
		st := d.frontStatics(&bs[0])
		hands := 0
		for _, sh := range d.frontScene(&bs[0], st, 0) {
			if sh.kind == kCapsule && sh.a == st.strap && (sh.b == bs[0].arm.tip || sh.b == bs[0].arm2.tip) {
				hands++
			}
		}
		if (hands == 2) != want || (st.strap != vec{}) != want {
			t.Fatalf("%s: straps to %d hands, anchor %v", name, hands, st.strap)
		}
	}
}

// TestFrontBosu checks that a front view draws the bosu's dome on the
// floor under the anchor its family places, and nothing without the ball.
func TestFrontBosu(t *testing.T) {
	d := For(inputOf(record(t, "bosu ball side plank")))
	if !d.front() {
		t.Fatalf("bosu ball side plank drawn with %q, not from the front", d.Template())
	}
	bs := d.bodies()
	b := &bs[0]
	var dome []vec
	for _, s := range d.frontStatics(b).back {
		if s.kind == kPoly {
			dome = s.pts
		}
	}
	if len(dome) == 0 {
		t.Fatal("no dome drawn")
	}
	x0, x1 := dome[len(dome)-1].X, dome[0].X
	if w := b.arm2.end.X; w < x0 || w > x1 || dome[0].Y != 0 {
		t.Fatalf("dome from %.1f to %.1f on y %.1f, the supporting hand at %.1f", x0, x1, dome[0].Y, w)
	}
	d.equip = nil
	if n := len(d.frontStatics(b).back); n != 0 {
		t.Fatalf("%d shapes drawn without the ball", n)
	}
}

// TestFrontFixHandsRejected checks that a front or end template cannot
// hold its hands, which only the side view's reach solves.
func TestFrontFixHandsRejected(t *testing.T) {
	l, err := loadLibrary()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		view, fix string
		ok        bool
	}{{"front", "hands", false}, {"end", "hand", false}, {"front", "feet", true}, {"", "hands", true}} {
		tm := &template{View: c.view, Fix: []string{c.fix}, Keys: []map[string]float64{{}}}
		if err := l.compile(tm); (err == nil) != c.ok {
			t.Errorf("view %q fix %q: %v", c.view, c.fix, err)
		}
	}
}
