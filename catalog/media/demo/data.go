package demo

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed data
var dataFS embed.FS

// place says where a prop stands: At names an anchor (a joint of the first
// frame such as "hip", "back", "seat", "wrist", "feet", or "world"), X and Y
// shift it, H and W size it and Tilt turns it (degrees).
type place struct {
	At   string  `yaml:"at"`
	X    float64 `yaml:"x"`
	Y    float64 `yaml:"y"`
	H    float64 `yaml:"h"`
	W    float64 `yaml:"w"`
	Tilt float64 `yaml:"tilt"`
}

// template is an animation: keyframes of a pose over one loop.
type template struct {
	Note string `yaml:"note"`
	Base string `yaml:"base"`
	Pin  string `yaml:"pin"` // "" (ground every frame) or a joint held where it is in the first frame
	// Fix lists limbs whose ends stay where they are in the first frame:
	// "hands", "feet", or the near "hand" or "foot" only.
	Fix []string `yaml:"fix"`
	// XPin is the joint that ground mode keeps at x = dx (default ankle).
	XPin  string `yaml:"xpin"`
	Still bool   `yaml:"still"` // one frame only
	// View is "side" (default) or "front": the figure faces the viewer and
	// the pose is read in the frontal plane (see front.go).
	View string `yaml:"view"`
	// Hook is the joint the cable, band or straps pull: "wrist"
	// (default), "ankle", "hip", "elbow" (the forearm's middle, side view),
	// "pass" (a stability ball handed between the hands and the feet, side
	// view) or (front view) "head".
	Hook string `yaml:"hook"`
	// Pair adds a second cable stack mirrored on the far side, its cable
	// to the far hand (a front view's crossover).
	Pair bool `yaml:"pair"`
	// Feet "sole" (front view) draws the feet sole on with the toes up,
	// for straight legs pointing at the viewer (a long sit), an and an2
	// turning them about the ankle towards the midline (inversion).
	Feet string `yaml:"feet"`
	// Free keeps the far arm's keyed pose under single: arm instead of
	// resting it (the empty hand raised in a low windmill).
	Free bool `yaml:"free"`
	// Pass draws the front view's one kettlebell in the hand farther
	// from the midline, passed between the hands where they meet (around
	// the world).
	Pass bool `yaml:"pass"`
	// Swing "side" turns the front view's jump rope beside the hip its
	// handles are at instead of round the body (a side swing).
	Swing string `yaml:"swing"`
	// Alternate lists limbs ("arms", "legs") whose far side runs half a loop behind.
	Alternate []string             `yaml:"alternate"`
	Props     map[string]place     `yaml:"props"`
	Keys      []map[string]float64 `yaml:"keys"`
	Poster    int                  `yaml:"poster"`

	name  string
	lever bool // some key sets wr: the near dumbbell is held by one end
	keys  []pose
	durs  []float64
}

// modifiers change a template for one family or variant.
type modifiers struct {
	Template  string             `yaml:"template"`
	Add       map[string]float64 `yaml:"add"`
	Single    string             `yaml:"single"` // "arm": only the near hand holds the load, the far arm rests
	Alternate []string           `yaml:"alternate"`
	Props     map[string]place   `yaml:"props"`
	Faithful  *bool              `yaml:"faithful"`
	Drop      []string           `yaml:"drop"` // equipment not drawn
	// Still is the pose of the still figure drawn when no faithful
	// template applies (default: the pattern's).
	Still string `yaml:"still"`
}

type when struct {
	Name      []string `yaml:"name"`      // any of these words or phrases in the name
	Equipment []string `yaml:"equipment"` // any of these equipments
	Not       []string `yaml:"not"`       // none of these words in the name
}

type rule struct {
	When      when `yaml:"when"`
	modifiers `yaml:",inline"`
}

type familyEntry struct {
	modifiers `yaml:",inline"`
	Rules     []rule `yaml:"rules"`

	file string
}

type patternEntry struct {
	Template string `yaml:"template"` // a faithful default for every family of the pattern
	Still    string `yaml:"still"`    // the neutral pose otherwise
}

type iconEntry struct {
	Template   string   `yaml:"template"`
	Equipments []string `yaml:"equipments"`
	Muscles    []string `yaml:"muscles"`
}

type library struct {
	poses     map[string]map[string]float64
	templates map[string]*template
	families  map[string]*familyEntry
	patterns  map[string]patternEntry
	global    []rule
	muscles   map[string][]string
	icons     map[string]iconEntry
}

func decodeStrict(data []byte, v any) error {
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func readDir(dir string, each func(name string, data []byte) error) error {
	ents, err := fs.ReadDir(dataFS, dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := dataFS.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if err := each(e.Name(), data); err != nil {
			return fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
		}
	}
	return nil
}

func loadLibrary() (*library, error) {
	l := &library{templates: map[string]*template{}, families: map[string]*familyEntry{}}
	read := func(name string, v any) error {
		data, err := dataFS.ReadFile("data/" + name)
		if err != nil {
			return err
		}
		if err := decodeStrict(data, v); err != nil {
			return fmt.Errorf("data/%s: %w", name, err)
		}
		return nil
	}
	if err := read("poses.yaml", &l.poses); err != nil {
		return nil, err
	}
	if err := read("patterns.yaml", &l.patterns); err != nil {
		return nil, err
	}
	var g struct {
		Rules []rule `yaml:"rules"`
	}
	if err := read("modifiers.yaml", &g); err != nil {
		return nil, err
	}
	l.global = g.Rules
	if err := read("muscles.yaml", &l.muscles); err != nil {
		return nil, err
	}
	if err := read("icons.yaml", &l.icons); err != nil {
		return nil, err
	}
	err := readDir("data/templates", func(file string, data []byte) error {
		var m map[string]*template
		if err := decodeStrict(data, &m); err != nil {
			return err
		}
		for n, t := range m {
			if _, dup := l.templates[n]; dup {
				return fmt.Errorf("template %q defined twice", n)
			}
			t.name = n
			l.templates[n] = t
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = readDir("data/families", func(file string, data []byte) error {
		var m map[string]*familyEntry
		if err := decodeStrict(data, &m); err != nil {
			return err
		}
		for n, f := range m {
			if f == nil {
				f = &familyEntry{}
			}
			if _, dup := l.families[n]; dup {
				return fmt.Errorf("family %q mapped twice", n)
			}
			f.file = file
			l.families[n] = f
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, l.check()
}

// check compiles the templates and verifies every reference.
func (l *library) check() error {
	var errs []error
	for n, p := range l.poses {
		if _, err := unsetPose().overlay(p); err != nil {
			errs = append(errs, fmt.Errorf("pose %s: %w", n, err))
		}
	}
	for _, n := range sortedKeys(l.templates) {
		if err := l.compile(l.templates[n]); err != nil {
			errs = append(errs, fmt.Errorf("template %s: %w", n, err))
		}
	}
	checkMods := func(where string, m modifiers) {
		if m.Template != "" && l.templates[m.Template] == nil {
			errs = append(errs, fmt.Errorf("%s: unknown template %q", where, m.Template))
		}
		if _, err := unsetPose().overlay(m.Add); err != nil {
			errs = append(errs, fmt.Errorf("%s: add: %w", where, err))
		}
		if m.Still != "" && l.poses[m.Still] == nil {
			errs = append(errs, fmt.Errorf("%s: unknown still pose %q", where, m.Still))
		}
		if m.Single != "" && m.Single != "arm" {
			errs = append(errs, fmt.Errorf("%s: single %q (want arm)", where, m.Single))
		}
		for _, a := range m.Alternate {
			if a != "arms" && a != "legs" {
				errs = append(errs, fmt.Errorf("%s: alternate %q", where, a))
			}
		}
		for k, p := range m.Props {
			if err := checkProp(k, p); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
			}
		}
	}
	for _, n := range sortedKeys(l.families) {
		f := l.families[n]
		checkMods("family "+n, f.modifiers)
		for i, r := range f.Rules {
			checkMods(fmt.Sprintf("family %s rule %d", n, i), r.modifiers)
		}
	}
	for i, r := range l.global {
		checkMods(fmt.Sprintf("modifiers.yaml rule %d", i), r.modifiers)
		if r.Template != "" {
			errs = append(errs, fmt.Errorf("modifiers.yaml rule %d: a global rule cannot choose a template", i))
		}
	}
	for n, p := range l.patterns {
		if p.Template != "" && l.templates[p.Template] == nil {
			errs = append(errs, fmt.Errorf("pattern %s: unknown template %q", n, p.Template))
		}
		if p.Still != "" && l.poses[p.Still] == nil {
			errs = append(errs, fmt.Errorf("pattern %s: unknown pose %q", n, p.Still))
		}
	}
	for n, ic := range l.icons {
		if l.templates[ic.Template] == nil {
			errs = append(errs, fmt.Errorf("icon %s: unknown template %q", n, ic.Template))
		}
	}
	for m, regs := range l.muscles {
		for _, r := range regs {
			if _, ok := regions[r]; !ok {
				errs = append(errs, fmt.Errorf("muscle %s: unknown region %q", m, r))
			}
		}
	}
	return errors.Join(errs...)
}

var propKinds = map[string]bool{
	"bench": true, "box": true, "box2": true, "ball": true, "cable": true, "band": true, "bar": true,
	"machine": true, "roller": true, "rings": true, "station": true, "landmine": true,
	"sled": true, "rope": true, "wall": true, "strap": true, "pole": true,
	"plate": true, "tyre": true, "stairs": true, "seat": true, "pad": true,
	"bike": true, "sandbag": true,
}

func checkProp(k string, p place) error {
	if !propKinds[k] {
		return fmt.Errorf("unknown prop %q", k)
	}
	return nil
}

func (l *library) compile(t *template) error {
	base := unsetPose()
	if t.Base != "" {
		bp, ok := l.poses[t.Base]
		if !ok {
			return fmt.Errorf("unknown base pose %q", t.Base)
		}
		var err error
		if base, err = base.overlay(bp); err != nil {
			return err
		}
	}
	if len(t.Keys) == 0 {
		t.Keys = []map[string]float64{{}}
	}
	if t.XPin != "" {
		var b body
		if _, ok := b.joint(t.XPin); !ok {
			return fmt.Errorf("unknown xpin joint %q", t.XPin)
		}
	}
	if t.Pin != "" {
		var b body
		if _, ok := b.joint(t.Pin); !ok {
			return fmt.Errorf("unknown pin joint %q", t.Pin)
		}
	}
	if t.View != "" && t.View != "side" && t.View != "front" && t.View != "end" {
		return fmt.Errorf("view %q (want side, front or end)", t.View)
	}
	if t.Feet != "" && (t.Feet != "sole" || t.View != "front") {
		return fmt.Errorf("feet %q (want sole, front view only)", t.Feet)
	}
	if t.Swing != "" && t.Swing != "side" {
		return fmt.Errorf("swing %q (want side)", t.Swing)
	}
	if t.Hook != "" && t.Hook != "wrist" && t.Hook != "ankle" && t.Hook != "head" && t.Hook != "hip" && t.Hook != "elbow" && t.Hook != "pass" {
		return fmt.Errorf("hook %q (want wrist, ankle, head, hip, elbow or pass)", t.Hook)
	}
	for _, f := range t.Fix {
		if f != "hands" && f != "feet" && f != "hand" && f != "foot" {
			return fmt.Errorf("fix %q (want hands, feet, hand or foot)", f)
		}
		if (f == "hands" || f == "hand") && (t.View == "front" || t.View == "end") {
			// the reach solves a side-view arm: it ignores fwd and bends the far elbow the wrong way
			return fmt.Errorf("fix %q: hands are held only in the side view", f)
		}
	}
	for _, a := range t.Alternate {
		if a != "arms" && a != "legs" {
			return fmt.Errorf("alternate %q (want arms or legs)", a)
		}
	}
	for k, p := range t.Props {
		if err := checkProp(k, p); err != nil {
			return err
		}
	}
	t.keys, t.durs = nil, nil
	cur := base
	for i, k := range t.Keys {
		d := 1.0
		m := map[string]float64{}
		for n, v := range k {
			if n == "dur" {
				d = v
				continue
			}
			m[n] = v
		}
		next, err := cur.overlay(m)
		if err != nil {
			return fmt.Errorf("key %d: %w", i, err)
		}
		if d <= 0 {
			return fmt.Errorf("key %d: dur must be positive", i)
		}
		cur = next
		_, wr := m["wr"]
		t.lever = t.lever || wr
		t.keys = append(t.keys, cur)
		t.durs = append(t.durs, d)
	}
	if t.Poster < 0 || t.Poster >= len(t.keys) {
		return fmt.Errorf("poster %d out of range", t.Poster)
	}
	return nil
}

// usedTemplates lists the templates that families, patterns and icons name.
func (l *library) usedTemplates() []string {
	set := map[string]bool{}
	for _, f := range l.families {
		set[f.Template] = true
		for _, r := range f.Rules {
			set[r.Template] = true
		}
	}
	for _, p := range l.patterns {
		set[p.Template] = true
	}
	for _, i := range l.icons {
		set[i.Template] = true
	}
	delete(set, "")
	out := sortedKeys(set)
	sort.Strings(out)
	return out
}

// DataDigest is a hash of the embedded data: poses, templates and the
// families' mapping. It enters the names of media files beside Version, so
// that an edit of the data renames every file it may change even where
// Version was not bumped.
var DataDigest = sync.OnceValue(func() string {
	h := sha256.New()
	err := fs.WalkDir(dataFS, "data", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := dataFS.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
})
