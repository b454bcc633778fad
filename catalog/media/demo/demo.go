// Package demo draws animated exercise demonstrations from the catalogue's
// own data: a pictogram performing the exercise with its equipment, seen
// from the side, the front or (lying) the feet, the working muscles tinted. Poses, templates, the mapping of
// families to templates and of muscles to parts of the figure are YAML data
// in data/; the code only interprets and draws them.
package demo

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// Version names the renderer and its data; bump it whenever any output pixel could change.
const Version = "demo/8"

// FPS is the frame rate of every animation.
const FPS = 12

// loopFrames is the length of every animated loop (2 seconds).
const loopFrames = 24

// Input is what a demonstration is resolved from: a catalogue record's
// fields.
type Input struct {
	Name, Family, Pattern                                      string
	Equipments, TargetMuscles, SecondaryMuscles, ExerciseTypes []string
}

// Demo is a resolved demonstration: template, modifiers, equipment and
// tinted muscles. The zero Demo draws a standing figure.
type Demo struct {
	tmpl      *template
	still     string // pose of the still figure when tmpl is nil
	faithful  bool
	add       map[string]float64
	single    bool
	alternate []string
	props     map[string]place
	equip     []string
	tint      tint
}

var (
	libOnce sync.Once
	lib     *library
	libErr  error
)

func theLibrary() *library {
	libOnce.Do(func() { lib, libErr = loadLibrary() })
	if libErr != nil {
		panic("demo: embedded data: " + libErr.Error())
	}
	return lib
}

// separators are what a normalised name turns into spaces (built once:
// matching the rules against every record normalises many phrases).
var separators = strings.NewReplacer("-", " ", "/", " ", "'", "")

// normalise lower-cases s and turns hyphens and slashes into spaces.
func normalise(s string) string {
	s = strings.ToLower(s)
	s = separators.Replace(s)
	return " " + strings.Join(strings.Fields(s), " ") + " "
}

// phrase matches a word or phrase at word starts (so "kick" finds "kicks").
func phrase(name, p string) bool {
	return strings.Contains(name, strings.TrimSuffix(normalise(p), " "))
}

func (w when) matches(in Input, name string) bool {
	if len(w.Name) > 0 {
		ok := false
		for _, n := range w.Name {
			if phrase(name, n) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, n := range w.Not {
		if phrase(name, n) {
			return false
		}
	}
	if len(w.Equipment) > 0 {
		ok := false
		for _, e := range w.Equipment {
			for _, x := range in.Equipments {
				if e == x {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// heldOrDrawn lists the equipment the renderer draws, in drawing order.
var drawable = []string{
	"leverage machine", "smith machine", "cable", "bench", "plyo box", "stability ball", "bosu ball",
	"foam roller", "pull-up bar", "dip station", "gymnastic rings", "suspension trainer", "climbing rope",
	"parallettes", "sled", "landmine", "rowing machine", "stationary bike", "treadmill", "elliptical trainer",
	"stair climber", "ski erg", "tyre", "battle ropes", "jump rope", "resistance band",
	"barbell", "ez barbell", "trap bar", "dumbbell", "kettlebell", "medicine ball", "weight plate",
	"sandbag", "atlas stone", "ab wheel",
}

// For resolves the demonstration of a record from the data. It never
// fails: a record without a faithful template gets a still pose.
func For(in Input) Demo {
	l := theLibrary()
	name := normalise(in.Name)
	var mods []modifiers
	for _, r := range l.global {
		if r.When.matches(in, name) {
			mods = append(mods, r.modifiers)
		}
	}
	tmplName := ""
	mapped := false
	if f, ok := l.families[in.Family]; ok {
		mapped = true
		mods = append(mods, f.modifiers)
		for _, r := range f.Rules {
			if r.When.matches(in, name) {
				mods = append(mods, r.modifiers)
			}
		}
	}
	faithful := true
	still := ""
	d := Demo{add: map[string]float64{}, props: map[string]place{}}
	drop := map[string]bool{}
	for _, m := range mods {
		if m.Template != "" {
			tmplName = m.Template
		}
		if m.Faithful != nil {
			faithful = *m.Faithful
		}
		if m.Still != "" {
			still = m.Still
		}
		for k, v := range m.Add {
			d.add[k] += v
		}
		if m.Single == "arm" {
			d.single = true
		}
		d.alternate = append(d.alternate, m.Alternate...)
		for k, v := range m.Props {
			d.props[k] = v
		}
		for _, e := range m.Drop {
			drop[e] = true
		}
	}
	pat := l.patterns[in.Pattern]
	if tmplName == "" && !mapped && pat.Template != "" {
		tmplName = pat.Template
	}
	if tmplName != "" && faithful {
		d.tmpl = l.templates[tmplName]
		d.faithful = true
	} else {
		d.still = pat.Still
		if still != "" {
			d.still = still
		}
		if d.still == "" {
			d.still = "stand"
		}
		d.add = map[string]float64{}
		d.single, d.alternate = false, nil
	}
	for _, e := range drawable {
		if drop[e] {
			continue
		}
		for _, x := range in.Equipments {
			if x == e {
				d.equip = append(d.equip, e)
			}
		}
	}
	d.tint = tint{}
	for _, m := range in.SecondaryMuscles {
		for _, r := range l.muscles[m] {
			d.tint[r] = paint.Secondary
		}
	}
	for _, m := range in.TargetMuscles {
		for _, r := range l.muscles[m] {
			d.tint[r] = paint.Target
		}
	}
	return d
}

// Icon returns a pictogram for an exercise type; an unknown type gets a
// neutral standing figure.
func Icon(exerciseType string) Demo {
	l := theLibrary()
	ic, ok := l.icons[exerciseType]
	if !ok {
		return Demo{still: "stand", tint: tint{}}
	}
	d := For(Input{Name: exerciseType, Equipments: ic.Equipments, TargetMuscles: ic.Muscles})
	d.tmpl = l.templates[ic.Template]
	d.still = ""
	d.faithful = true
	return d
}

// Faithful reports whether a template shows this movement.
func (d Demo) Faithful() bool { return d.faithful }

// Template is the template's name ("" for the still pose).
func (d Demo) Template() string {
	if d.tmpl == nil {
		return ""
	}
	return d.tmpl.name
}

// PosterFrame is the index of the frame that best shows the movement.
func (d Demo) PosterFrame() int {
	n := d.FrameCount()
	if n == 1 {
		return 0
	}
	t := d.tmpl
	total := 0.0
	for _, x := range t.durs {
		total += x
	}
	at := 0.0
	for i := 0; i < t.Poster; i++ {
		at += t.durs[i]
	}
	return int(math.Round(at/total*float64(n))) % n
}

// Fingerprint is a stable string of everything that affects the pixels.
func (d Demo) Fingerprint() string {
	var b strings.Builder
	b.WriteString(Version)
	if d.tmpl != nil {
		fmt.Fprintf(&b, "|t=%s", d.tmpl.name)
	} else {
		fmt.Fprintf(&b, "|still=%s", d.still)
	}
	for _, k := range sortedKeys(d.add) {
		fmt.Fprintf(&b, "|add.%s=%g", k, d.add[k])
	}
	if d.single {
		b.WriteString("|single")
	}
	alt := append([]string(nil), d.alternate...)
	sort.Strings(alt)
	if len(alt) > 0 {
		fmt.Fprintf(&b, "|alt=%s", strings.Join(alt, ","))
	}
	for _, k := range sortedKeys(d.props) {
		fmt.Fprintf(&b, "|prop.%s=%+v", k, d.props[k])
	}
	fmt.Fprintf(&b, "|eq=%s", strings.Join(d.equip, ","))
	for _, r := range regionOrder {
		if c, ok := d.tint[r]; ok {
			w := "s"
			if c == paint.Target {
				w = "t"
			}
			fmt.Fprintf(&b, "|%s=%s", r, w)
		}
	}
	return b.String()
}

func (d Demo) has(alt string) bool {
	for _, a := range d.alternate {
		if a == alt {
			return true
		}
	}
	if d.tmpl != nil {
		for _, a := range d.tmpl.Alternate {
			if a == alt {
				return true
			}
		}
	}
	return false
}

// keys returns the complete keyframes with the modifiers applied.
func (d Demo) keys() ([]pose, []float64) {
	l := theLibrary()
	if d.tmpl == nil {
		p, _ := unsetPose().overlay(l.poses[d.still])
		return []pose{p.complete()}, []float64{1}
	}
	out := make([]pose, len(d.tmpl.keys))
	for i, k := range d.tmpl.keys {
		for _, n := range sortedKeys(d.add) { // near fields before far ones
			v := d.add[n]
			j := fieldIndex[n]
			if !math.IsNaN(k[j]) {
				k[j] += v
			} else if near, far := farOf[j]; far {
				k[j] = k[near] + v
			} else {
				k[j] = v
			}
		}
		out[i] = k.complete()
	}
	return out, d.tmpl.durs
}

func ease(s float64) float64 { return (1 - math.Cos(math.Pi*s)) / 2 }

// sample interpolates the keys at phase u in [0, 1).
func sample(keys []pose, durs []float64, u float64) pose {
	if len(keys) == 1 {
		return keys[0]
	}
	u -= math.Floor(u)
	total := 0.0
	for _, x := range durs {
		total += x
	}
	at := u * total
	i := 0
	for i < len(keys)-1 && at >= durs[i] {
		at -= durs[i]
		i++
	}
	s := ease(at / durs[i])
	a, b := keys[i], keys[(i+1)%len(keys)]
	if i == len(keys)-1 { // the loop closes without undoing whole turns
		b[fTurn] += 360 * math.Round((a[fTurn]-b[fTurn])/360)
	}
	var p pose
	for j := range p {
		p[j] = a[j] + (b[j]-a[j])*s
	}
	return p
}

// bodies computes the placed body of every frame.
func (d Demo) bodies() []body {
	keys, durs := d.keys()
	n := d.FrameCount()
	out := make([]body, n)
	pin := ""
	if d.tmpl != nil {
		pin = d.tmpl.Pin
	}
	hr := d.heldRadius()
	var hand0, hand20, foot0, foot20 vec
	fixHands, fixFeet, fixHand2, fixFoot2 := false, false, false, false
	if d.tmpl != nil {
		for _, f := range d.tmpl.Fix {
			fixHands = fixHands || f == "hands" || f == "hand"
			fixFeet = fixFeet || f == "feet" || f == "foot"
			fixHand2 = fixHand2 || f == "hands"
			fixFoot2 = fixFoot2 || f == "feet"
		}
	}
	var p0 vec
	var lift0, dx0 float64
	for i := range n {
		u := float64(i) / float64(n)
		p := sample(keys, durs, u)
		if d.has("arms") {
			q := sample(keys, durs, u+0.5)
			p[fSh2], p[fEl2] = q[fSh], q[fEl]
		}
		if d.has("legs") {
			q := sample(keys, durs, u+0.5)
			p[fHip2], p[fKn2], p[fAn2] = q[fHip], q[fKn], q[fAn]
		}
		rest := d.single && !d.tmpl.Free // a free empty hand moves as keyed
		if rest && d.front() {           // the far arm hangs at the side
			p[fSh2], p[fEl2], p[fFwd2] = 6, 5, 0
		} else if rest {
			p[fSh2], p[fEl2] = keys[0][fSh2], keys[0][fEl2]
		}
		b := pose2body(p)
		if p[fTurn] != 0 && !d.front() {
			b.turn(p[fTurn])
		}
		if d.front() {
			b = pose2front(p, d.tmpl.View == "end")
			if d.tmpl.Feet == "sole" {
				b.soleFeet(p)
			}
		}
		if pin == "" || i == 0 {
			// the held load reaches below the hands that hold it: the near
			// one only when the far arm is free (a plank's support hand)
			tip := math.Min(b.arm.tip.Y, b.arm2.tip.Y)
			if d.single {
				tip = b.arm.tip.Y
			}
			low := math.Min(b.lowest(), tip-hr)
			if d.front() {
				low = math.Min(frontLowest(&b), tip-hr)
			}
			xj := b.leg.end
			if d.front() {
				xj = b.hip
			}
			if d.tmpl != nil && d.tmpl.XPin != "" {
				xj, _ = b.joint(d.tmpl.XPin)
			}
			lift := p[fLift]
			if pin != "" {
				lift = math.Max(lift, 0)
			}
			b.translate(vec{p[fDx] - xj.X, lift - low})
			if i == 0 && pin != "" {
				p0, _ = b.joint(pin)
				lift0, dx0 = p[fLift], p[fDx]
			}
		} else {
			j, _ := b.joint(pin)
			b.translate(p0.add(vec{p[fDx] - dx0, p[fLift] - lift0}).sub(j))
		}
		if i == 0 {
			hand0, hand20 = b.arm.tip, b.arm2.tip
			foot0, foot20 = b.leg.end, b.leg2.end
		} else {
			if fixHands {
				reachArm(&b.arm, hand0, p[fEl])
				if !d.single && fixHand2 {
					reachArm(&b.arm2, hand20, p[fEl2])
				}
			}
			if fixFeet && d.front() {
				reachLegFront(&b.leg, foot0, p[fKn], p[fHfwd], 1)
				if fixFoot2 {
					reachLegFront(&b.leg2, foot20, p[fKn2], p[fHfwd2], -1)
				}
			} else if fixFeet {
				reachLeg(&b.leg, b.hip, foot0, p[fKn])
				if fixFoot2 {
					reachLeg(&b.leg2, b.hip, foot20, p[fKn2])
				}
			}
		}
		b.wr = p[fWr]
		out[i] = b
	}
	return out
}

// Frames renders the loop at height×height pixels.
func (d Demo) Frames(height int) []*image.RGBA {
	return Collect(func(each func(int, *image.RGBA) error) error { return d.Draw(height, each) })
}

// Collect keeps a copy of every frame that draw (a Draw with its height
// given) hands out.
func Collect(draw func(each func(i int, frame *image.RGBA) error) error) []*image.RGBA {
	var out []*image.RGBA
	draw(func(_ int, f *image.RGBA) error {
		c := *f
		c.Pix = slices.Clone(f.Pix)
		out = append(out, &c)
		return nil
	})
	return out
}

// FrameCount is how many frames the loop has (1 for a still).
func (d Demo) FrameCount() int {
	if d.tmpl == nil || d.tmpl.Still || len(d.tmpl.keys) == 1 {
		return 1
	}
	return loopFrames
}

// Draw draws the loop at height×height pixels a frame at a time, into one
// image that it hands to each in turn (valid until each returns), and
// stops at each's first error. A caller that encodes as it goes holds one
// frame rather than the loop: 24 frames at 720 px are 50 MB.
func (d Demo) Draw(height int, each func(i int, frame *image.RGBA) error) error {
	if height < 16 {
		height = 16
	}
	bs := d.bodies()
	st := d.staticProps(&bs[0])
	if d.front() {
		st = d.frontStatics(&bs[0])
	}
	scenes := make([]scene, len(bs))
	var bb box
	st.back.bounds(&bb)
	for i := range bs {
		if d.front() {
			scenes[i] = d.frontScene(&bs[i], st, float64(i)/float64(len(bs)))
		} else {
			scenes[i] = d.frameScene(&bs[i], st, i, len(bs))
		}
		scenes[i].bounds(&bb)
	}
	v := camera(bb, height)
	// the background: white with the ground band
	bg := image.NewRGBA(image.Rect(0, 0, height, height))
	fill(bg, paint.Background)
	gc := paint.On(bg, 1, 0, 0)
	var ground scene
	ground.rect(v.left-10, -2.2, v.left+float64(height)/v.scale+10, 0, paint.Ground)
	ground.draw(gc, v)
	st.back.draw(gc, v)
	// one canvas draws every frame, so the rasterizer's buffers are reused
	frame := image.NewRGBA(bg.Rect)
	c := paint.On(frame, 1, 0, 0)
	for i := range bs {
		copy(frame.Pix, bg.Pix)
		scenes[i].draw(c, v)
		if err := each(i, frame); err != nil {
			return err
		}
	}
	return nil
}

func fill(img *image.RGBA, c color.RGBA) {
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
}

// camera fits the whole loop in the frame at a scale that is the same for
// every demonstration unless the movement needs more room.
func camera(bb box, height int) view {
	const minSpan, margin = 124.0, 5.0
	lo := math.Min(bb.y0, -2.2) - margin
	span := math.Max(minSpan, math.Max(bb.x1-bb.x0+2*margin, bb.y1-lo+margin))
	cx := (bb.x0 + bb.x1) / 2
	return view{scale: float64(height) / span, left: cx - span/2, top: lo + span}
}
