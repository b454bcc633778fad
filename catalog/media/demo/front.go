package demo

import (
	"math"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// The front view: the figure faces the viewer, the near limbs on its +x
// side and the far ones mirrored on its -x side, both drawn dark. The pose
// fields are read in the frontal plane: sh is shoulder abduction (0 at the
// side, 90 out, 180 overhead), el the elbow's bend further out, hip the
// hip's abduction (negative crosses the midline), kn the knee's bend.
// trunk tilts the whole figure about the hips, + its top towards the near
// side (-90 lies it on its far side, near limbs up); the limbs keep their
// angles to the torso.
const (
	shoulderHalf = 8.5
	hipHalf      = 4.6
)

// pose2front computes the joints of a complete pose seen from the front,
// with the pelvis centre at the origin. hip and shoulder are the centres;
// each limb's root is its own joint.
func pose2front(p pose, end bool) body {
	if end {
		return pose2end(p)
	}
	var b body
	b.trunkAbs = 180 - p[fTrunk]
	b.shoulder = vec{0, torsoLen}
	// head tilts the neck and head towards the near shoulder
	b.neck = b.shoulder.add(dir(180 - p[fHead]*0.5).mul(neckLen))
	b.head = b.neck.add(dir(180 - p[fHead]).mul(headR * 0.9))
	arm := func(s, sh, el, fwd, efwd float64) limb {
		l := limb{root: vec{s * shoulderHalf, torsoLen - 2}, behind: fwd < 0}
		// fwd turns the arm about a vertical axis through the shoulder:
		// seen from the front, its sideways reach shrinks by cos(fwd) and
		// crosses to the other side past 90.
		c := math.Cos(fwd * math.Pi / 180)
		seg := func(a, n float64) (vec, float64) {
			v := dir(a).mul(n)
			if fwd == 0 {
				return v, a
			}
			v.X *= c
			if v.lenv() < 1e-6 {
				return v, a
			}
			return v, math.Atan2(v.X, -v.Y) * 180 / math.Pi
		}
		var u, f vec
		u, l.a1 = seg(s*sh, upperArm)
		// a forearm pointing towards the viewer looks shorter
		f, l.a2 = seg(s*(sh+el), foreArm*math.Max(0.15, math.Cos(efwd*math.Pi/180)))
		l.mid = l.root.add(u)
		l.end = l.mid.add(f)
		l.tip = l.end.add(f.mul(2 / foreArm))
		return l
	}
	leg := func(s, hip, kn, hfwd, kfwd float64) limb {
		l := limb{root: vec{s * hipHalf, 0}}
		l.a1 = s * hip
		// a thigh flexed towards the viewer looks shorter
		l.mid = l.root.add(dir(l.a1).mul(thighLen * math.Max(0.15, math.Cos(hfwd*math.Pi/180))))
		l.a2 = l.a1 - s*kn
		l.end = l.mid.add(dir(l.a2).mul(shankLen * math.Max(0.15, math.Cos(kfwd*math.Pi/180))))
		l.tip = l.end.add(vec{s * 3.2, -2.2})
		l.heel = l.end.add(vec{-s * 0.8, -2.2})
		if kfwd < 0 { // the shank points away from the viewer: its foot is hidden behind the knee
			l.tip, l.heel = l.end, l.end
		}
		return l
	}
	b.arm = arm(1, p[fSh], p[fEl], p[fFwd], p[fEfwd])
	b.arm2 = arm(-1, p[fSh2], p[fEl2], p[fFwd2], p[fEfwd2])
	b.leg = leg(1, p[fHip], p[fKn], p[fHfwd], p[fKfwd])
	b.leg2 = leg(-1, p[fHip2], p[fKn2], p[fHfwd2], p[fKfwd2])
	if bow := p[fBow]; bow != 0 {
		// a torso bowed towards the viewer looks shorter: the shoulders and
		// the arms hanging from them drop, the head stays in front of them
		c := math.Cos(bow * math.Pi / 180)
		drop := vec{0, -torsoLen * (1 - c)}
		sh := b.shoulder
		b.shoulder = sh.add(drop)
		b.neck = b.shoulder.add(b.neck.sub(sh).mul(c))
		b.head = b.shoulder.add(b.head.sub(sh).mul(c)).add(vec{0, -(1 - c) * headR * 0.6})
		for _, l := range []*limb{&b.arm, &b.arm2} {
			for _, v := range []*vec{&l.root, &l.mid, &l.end, &l.tip} {
				*v = v.add(drop)
			}
		}
		b.back = bow >= 45
	}
	if t := p[fTrunk]; t != 0 {
		sin, cos := math.Sincos(-t * math.Pi / 180)
		rot := func(v *vec) { *v = vec{v.X*cos - v.Y*sin, v.X*sin + v.Y*cos} }
		for _, v := range []*vec{&b.shoulder, &b.neck, &b.head} {
			rot(v)
		}
		for _, l := range []*limb{&b.arm, &b.arm2, &b.leg, &b.leg2} {
			for _, v := range []*vec{&l.root, &l.mid, &l.end, &l.tip, &l.heel} {
				rot(v)
			}
			l.a1, l.a2 = l.a1-t, l.a2-t
		}
	}
	return b
}

// pose2end computes the joints of a figure lying face up, seen along its
// body from the feet: the shoulders' line at the origin, the arms read as
// in the front view (sh 90 = out level with the shoulders, 180 = straight
// up), each leg's knee hip (hip2) units above the shoulders' line and its
// foot kn (kn2) units below it. The torso points away from the viewer and is drawn end on.
// trunk turns the pelvis and the legs about the body's long axis under a
// still chest, + the knees towards the near side (knees dropped to one
// side, a windshield wiper).
func pose2end(p pose) body {
	turn := p[fTrunk]
	p[fTrunk] = 0
	b := pose2front(p, false)
	b.end = true
	d := vec{0, -(torsoLen - 2)}
	b.shoulder = vec{}
	b.neck = vec{0, 3}
	b.head = vec{0, 5.5}
	for _, l := range []*limb{&b.arm, &b.arm2} {
		for _, v := range []*vec{&l.root, &l.mid, &l.end, &l.tip} {
			*v = v.add(d)
		}
		l.behind = false // lying face up, no arm is behind the body
	}
	leg := func(s, knee, foot float64) limb {
		var l limb
		l.root = vec{s * hipHalf, -2}
		l.mid = vec{s * (hipHalf + 3), knee}
		l.end = vec{s * (hipHalf + 7), -foot}
		l.a1, l.a2 = 0, 0
		l.tip = l.end.add(vec{s * 1.5, -2.2})
		l.heel = l.end.add(vec{-s * 1.5, -2.2})
		return l
	}
	b.leg = leg(1, p[fHip], p[fKn])
	b.leg2 = leg(-1, p[fHip2], p[fKn2])
	// each leg turns out about its hip by open (+ away from the midline),
	// then both with the pelvis by trunk (+ towards the near side)
	rot := func(l *limb, c vec, deg float64) {
		if deg == 0 {
			return
		}
		sin, cos := math.Sincos(-deg * math.Pi / 180)
		for _, v := range []*vec{&l.root, &l.mid, &l.end, &l.tip, &l.heel} {
			d := v.sub(c)
			*v = c.add(vec{d.X*cos - d.Y*sin, d.X*sin + d.Y*cos})
		}
	}
	rot(&b.leg, b.leg.root, p[fOpen])
	rot(&b.leg2, b.leg2.root, -p[fOpen2])
	rot(&b.leg, vec{0, -2}, turn) // about the pelvis
	rot(&b.leg2, vec{0, -2}, turn)
	return b
}

// endFigure appends the figure seen from its feet to s: the shins and
// knees nearest, then the torso end on with the head above it, the arms.
// between, when set, draws what lies between the knees, in front of the
// torso and behind the shins.
func endFigure(s *scene, b *body, t tint, between func(*scene)) {
	c := paint.Body
	o := b.shoulder // the shoulders' line, placed
	s.circle(b.head, headR, c)
	s.capsule(o.add(vec{-shoulderHalf, 0}), o.add(vec{shoulderHalf, 0}), torsoW, c)
	if col, ok := t["chest"]; ok {
		s.capsule(o.add(vec{-shoulderHalf + 2, 3}), o.add(vec{shoulderHalf - 2, 3}), 4, col)
	}
	if between != nil {
		between(s)
	}
	for _, l := range []limb{b.leg2, b.leg} {
		s.capsule(l.mid, l.end, shankW, c)
		s.capsule(l.heel, l.tip, footW, c)
		s.circle(l.mid, thighW/2+0.5, c)
		t.frontTint(s, "shank", l.mid, l.end, shankW, vec{1, 0})
	}
	frontArms(s, b, t, false)
}

// frontLowest is the lowest y of the front figure's outline.
func frontLowest(b *body) float64 {
	var s scene
	frontFigure(&s, b, nil, nil)
	var bb box
	s.bounds(&bb)
	return bb.y0
}

// soleFeet turns the feet of a front view's legs pointing at the viewer
// sole on, toes up from the ankle, each turned by its an (an2) towards
// the midline: an ankle inversion, negative an eversion.
func (b *body) soleFeet(p pose) {
	for i, l := range []*limb{&b.leg, &b.leg2} {
		s, an := 1.0, p[fAn]
		if i == 1 {
			s, an = -1, p[fAn2]
		}
		l.heel = l.end.add(vec{0, 1})
		l.tip = l.end.add(dir(180 + s*an).mul(footLen))
	}
}

func (d Demo) front() bool {
	return d.tmpl != nil && (d.tmpl.View == "front" || d.tmpl.View == "end")
}

// frontRegions places the tints seen from the front: side +1 is a limb's
// outer edge, -1 its inner edge. chest, abs, obliques, shoulder, glutes and
// hip-front are drawn in frontFigure; back-side regions are not visible.
var frontRegions = map[string]region{
	"upperarm-front": {"upperarm", 0, 0.18, 0.85, 0.5},
	"forearm":        {"forearm", 0, 0.1, 0.75, 0.7},
	"glutes":         {"thigh", 1, 0.04, 0.5, 0.4}, // the abductors: outer hip and thigh
	"thigh-front":    {"thigh", 0, 0.15, 0.85, 0.5},
	"thigh-inner":    {"thigh", -1, 0.08, 0.7, 0.45},
	"shin":           {"shank", 0, 0.1, 0.75, 0.45},
	"calf":           {"shank", 1, 0.08, 0.55, 0.4},
}

// frontTint draws the tinted parts of one limb segment from a to b; out
// points to the figure's outside.
func (t tint) frontTint(s *scene, seg string, a, b vec, w float64, out vec) {
	for _, name := range regionOrder {
		col, ok := t[name]
		r, here := frontRegions[name]
		if !ok || !here || r.seg != seg {
			continue
		}
		d := b.sub(a)
		l := d.lenv()
		if l < 1e-6 {
			continue
		}
		n := vec{-d.Y / l, d.X / l}
		if n.X*out.X+n.Y*out.Y < 0 {
			n = n.mul(-1)
		}
		ww := w * r.w
		off := n.mul(r.side * (w - ww) / 2)
		s.capsule(a.lerp(b, r.t0).add(off), a.lerp(b, r.t1).add(off), ww, col)
	}
}

// frontFigure appends the body seen from the front to s; between draws
// what lies between the knees of a figure seen from its feet.
func frontFigure(s *scene, b *body, t tint, between func(*scene)) {
	if b.end {
		endFigure(s, b, t, between)
		return
	}
	frontArms(s, b, t, true)
	c := paint.Body
	for i, l := range []limb{b.leg2, b.leg} { // the near leg in front
		out := vec{2*float64(i) - 1, 0}
		s.capsule(l.end, l.mid, shankW, c)
		s.capsule(l.heel, l.tip, footW, c)
		t.frontTint(s, "shank", l.mid, l.end, shankW, out)
		s.capsule(l.root, l.mid, thighW, c)
		t.frontTint(s, "thigh", l.root, l.mid, thighW, out)
	}
	// torso points in its own frame: x across, y up from the hips
	up := b.shoulder.sub(b.hip).mul(1 / torsoLen)
	across := vec{up.Y, -up.X}.mul(1 / up.lenv()) // full width even when bowed
	at := func(x, y float64) vec { return b.hip.add(across.mul(x)).add(up.mul(y)) }
	s.capsule(at(-hipHalf, 0), at(hipHalf, 0), thighW, c)
	s.poly(c, at(-hipHalf-3.5, 0), at(hipHalf+3.5, 0), at(shoulderHalf+1, torsoLen-2), at(-shoulderHalf-1, torsoLen-2))
	s.capsule(at(-shoulderHalf, torsoLen-2), at(shoulderHalf, torsoLen-2), 7, c)
	s.capsule(b.shoulder, b.neck, 6, c)
	s.circle(b.head, headR, c)
	if col, ok := t["neck"]; ok {
		s.capsule(at(0, torsoLen+1.5), b.neck, 6*0.8, col)
	}
	front := t
	if b.back { // the chest and belly face the floor; the upper back faces the viewer
		front = tint{}
		for k, v := range t {
			front[k] = v
		}
		delete(front, "chest")
		delete(front, "abs")
		delete(front, "obliques")
		if col, ok := t["upper-back"]; ok {
			front["chest"] = col
		}
	}
	t = front
	for _, x := range []float64{-1, 1} {
		if col, ok := t["chest"]; ok {
			s.capsule(at(x*2.6, torsoLen-6), at(x*6, torsoLen-6.5), 5.5, col)
		}
		if col, ok := t["obliques"]; ok {
			s.capsule(at(x*7, 6), at(x*8, 13), 3.2, col)
		}
		if col, ok := t["lats"]; ok {
			s.capsule(at(x*8.5, torsoLen-6), at(x*7.5, torsoLen-13), 2.6, col)
		}
		if col, ok := t["glutes"]; ok {
			s.circle(at(x*(hipHalf+3.6), 1.5), 3.4, col)
		}
		if col, ok := t["hip-front"]; ok {
			s.circle(at(x*(hipHalf+1.5), 3), 2.6, col)
		}
	}
	if col, ok := t["abs"]; ok {
		s.capsule(at(0, 5), at(0, 17), 5.2, col)
	}
	frontArms(s, b, t, false)
}

// frontArms appends the arms seen from the front that are turned back
// behind the body (behind: drawn before it) or not (after it).
func frontArms(s *scene, b *body, t tint, behind bool) {
	c := paint.Body
	for i, l := range []limb{b.arm, b.arm2} {
		if l.behind != behind {
			continue
		}
		out := vec{1 - 2*float64(i), 0}
		s.capsule(l.root, l.mid, upperArmW, c)
		t.frontTint(s, "upperarm", l.root, l.mid, upperArmW, out)
		if !behind { // a light edge keeps a forearm or hand in front of the torso visible
			s.capsule(l.mid.lerp(l.end, 0.35), l.end, foreArmW+2.4, paint.Background)
			s.circle(l.tip, handR+1.2, paint.Background)
		}
		s.capsule(l.mid, l.end, foreArmW, c)
		t.frontTint(s, "forearm", l.mid, l.end, foreArmW, out)
		s.circle(l.tip, handR, c)
		if col, ok := t["shoulder"]; ok {
			s.circle(l.root.add(dir(l.a1).mul(1.8)).add(out.mul(0.8)), upperArmW*0.66, col)
		}
	}
}

// frontStatics places the cable's pulley or the band's anchor low beside
// the figure (default: 30 units out on the near side, by the floor).
func (d Demo) frontStatics(b *body) statics {
	var st statics
	s := &st.back
	for _, e := range d.equip {
		switch e {
		case "cable":
			p := d.place("cable", place{At: "world", X: 30, Y: 6})
			st.pulley = anchor(b, p)
			x := st.pulley.X
			s.rect(x-3.5+3.5*sign(x), 0, x+3.5+3.5*sign(x), 100, paint.Frame)
			s.circle(st.pulley, 2.6, paint.Iron)
		case "resistance band":
			if d.place("band", place{}).At == "hands" {
				continue
			}
			st.band = anchor(b, d.place("band", d.place("cable", place{At: "world", X: 30, Y: 2})))
			s.rect(st.band.X-2, 0, st.band.X+2, st.band.Y+1.5, paint.Iron)
		case "pull-up bar":
			// the upright of a bar station, only where the template places
			// one (a human flag grips it)
			p, ok := d.tmpl.Props["pole"]
			if !ok {
				continue
			}
			a := anchor(b, p)
			s.rect(a.X-1.8, 0, a.X+1.8, orDefault(p.H, 110), paint.Frame)
		case "treadmill":
			// stood on sideways: the belt runs across under the feet, the
			// console at its near end
			x := b.hip.X
			s.rect(x-40, 0, x+40, 4, paint.Iron)
			s.capsule(vec{x + 40, 2}, vec{x + 34, 80}, 3.4, paint.Frame)
			s.capsule(vec{x + 34, 80}, vec{x + 22, 80}, 3, paint.Frame)
		case "sled":
			// seen side on beside the figure, only where the template
			// places one; its strap runs from the near end to the hook
			p, ok := d.tmpl.Props["sled"]
			if !ok {
				continue
			}
			a := anchor(b, p)
			s.rect(a.X-12, 0, a.X+12, 9, paint.Iron)
			st.tow = vec{a.X - 12*sign(a.X-b.hip.X), 6}
		case "landmine":
			// the pivot on the floor, in front of the figure unless placed
			st.pivot = anchor(b, d.place("landmine", place{At: "world"}))
			st.landmine = true
			s.rect(st.pivot.X-4, 0, st.pivot.X+4, 3, paint.Iron)
		case "gymnastic rings", "suspension trainer":
			// only where the data places the anchor, above the figure
			if p := d.place("rings", place{}); p.At != "" {
				st.strap = anchor(b, p)
				s.rect(st.strap.X-6, st.strap.Y, st.strap.X+6, st.strap.Y+2.5, paint.Frame)
			}
		case "bench", "leverage machine", "stability ball", "plyo box", "foam roller":
			// a seat under the pelvis, a box under a foot or a roller under
			// a side-lying body, only where the template places one
			kind := map[string]string{"bench": "bench", "leverage machine": "machine", "stability ball": "ball", "plyo box": "box", "foam roller": "roller"}[e]
			p, ok := d.tmpl.Props[kind]
			if !ok || p.At == "knees" {
				continue
			}
			a := anchor(b, p)
			if e == "foam roller" { // seen end on, w across (default 10)
				r := orDefault(p.W, 10) / 2
				s.circle(vec{a.X, r}, r, paint.Accent)
				continue
			}
			w := orDefault(p.W, 26)
			if e == "stability ball" {
				s.circle(vec{a.X, w / 2}, w/2, paint.Accent)
				continue
			}
			s.rect(a.X-w/2, 0, a.X+w/2, a.Y, paint.Frame)
			if h := p.H; h > 0 { // a backrest or the machine's frame behind the torso
				s.rect(a.X-w/2+3, a.Y, a.X+w/2-3, a.Y+h, paint.Frame)
			}
		}
	}
	if p, ok := d.props["ball"]; ok && d.hasEquip("bosu ball") {
		// a dome on the floor under the anchor a family rule names (the forearm of a side plank)
		a := anchor(b, p)
		var pts []vec
		for i := 0; i <= 12; i++ {
			t := math.Pi * float64(i) / 12
			pts = append(pts, vec{a.X + 13*math.Cos(t), 6 * math.Sin(t)})
		}
		s.poly(paint.Accent, pts...)
	}
	d.floorBarEnd(b, s) // beside the figure
	if p, ok := d.tmpl.Props["bar"]; ok && d.hasEquip("pull-up bar") {
		// seen from the front the bar runs across, level through both hands
		y := anchor(b, p).Y
		x0, x1 := math.Min(b.arm.tip.X, b.arm2.tip.X)-16, math.Max(b.arm.tip.X, b.arm2.tip.X)+16
		s.capsule(vec{x0, y}, vec{x1, y}, 2.6, paint.Frame)
		s.capsule(vec{x0, y}, vec{x0, 0}, 3.2, paint.Frame)
		s.capsule(vec{x1, y}, vec{x1, 0}, 3.2, paint.Frame)
	}
	d.platePile(b, s)
	d.seatPad(b, s)
	d.wallPanel(b, s)
	if d.tmpl.Pair && st.pulley != (vec{}) {
		x := -st.pulley.X
		s.rect(x-3.5+3.5*sign(x), 0, x+3.5+3.5*sign(x), 100, paint.Frame)
		s.circle(vec{x, st.pulley.Y}, 2.6, paint.Iron)
	}
	return st
}

// frontScene draws one frame, at phase u of the loop, of the front view:
// the figure, what the hands hold, and the cable or band to the template's
// hook (wrist or ankle).
func (d Demo) frontScene(b *body, st statics, u float64) scene {
	var s scene
	rope := d.hasEquip("jump rope")
	// the rope turns twice a loop, rising behind the body and falling in
	// front of it, under the feet at the start of each half loop
	ropeBehind := rope && math.Mod(2*u, 1) < 0.5
	if ropeBehind {
		frontJumpRope(&s, b, u, d.tmpl.Swing == "side")
	}
	hook := b.arm.tip
	switch d.tmpl.Hook {
	case "ankle":
		hook = b.leg.end
		if d.tmpl.Feet == "sole" { // the band loops the forefoot
			hook = b.leg.end.lerp(b.leg.tip, 0.6)
		}
	case "head":
		hook = b.head
	case "hip":
		hook = b.hip
	}
	for _, e := range d.equip {
		switch e {
		case "sled":
			if st.tow != (vec{}) {
				s.capsule(st.tow, hook, 1.6, paint.Iron)
			}
		case "cable":
			s.capsule(st.pulley, hook, 1.2, paint.Iron)
			if d.tmpl.Pair && !d.single {
				s.capsule(vec{-st.pulley.X, st.pulley.Y}, b.arm2.tip, 1.2, paint.Iron)
			}
		case "resistance band":
			if d.place("band", place{}).At == "hands" { // drawn after the figure
				continue
			}
			s.capsule(st.band, hook, 1.5, paint.Accent)
			if (d.tmpl.Hook == "" || d.tmpl.Hook == "wrist") && !d.single {
				s.capsule(st.band, b.arm2.tip, 1.5, paint.Accent)
			}
		}
	}
	if d.frontBar() != "" && !st.landmine && !d.floorBar() { // a bar held in both hands, seen end to end through them
		l, r := b.arm2.tip, b.arm.tip
		if l.X > r.X {
			l, r = r, l
		}
		u := r.sub(l).mul(1 / math.Max(1, r.sub(l).lenv()))
		if r.X-l.X < 8 { // hands together: a level bar
			u = vec{1, 0}
		}
		n := vec{-u.Y, u.X}
		p0, p1 := l.sub(u.mul(14)), r.add(u.mul(14))
		s.capsule(p0, p1, 2.2, paint.Iron)
		for _, p := range []vec{p0, p1} { // the plates, square to the bar
			a, c := p.sub(u.mul(2)), p.add(u.mul(2))
			s.poly(paint.Iron, a.sub(n.mul(9)), c.sub(n.mul(9)), c.add(n.mul(9)), a.add(n.mul(9)))
		}
	}
	d.frontHeld(&s, b, true)
	frontFigure(&s, b, d.tint, d.betweenKnees(b))
	if st.landmine { // the bar from its pivot to the hands, in front of the body
		hand := b.arm.tip
		if !d.single {
			hand = b.arm.tip.lerp(b.arm2.tip, 0.5)
		}
		v := hand.sub(st.pivot)
		u := v.mul(1 / math.Max(1, v.lenv()))
		s.capsule(st.pivot, hand.add(u.mul(3)), 2.2, paint.Iron)
		c := hand.sub(u.mul(math.Min(11, v.lenv()/2)))
		s.circle(c, 8, paint.Iron)
		s.circle(c, 1.8, paint.Frame)
	}
	d.frontHeld(&s, b, false)
	if d.hasEquip("sandbag") && d.place("sandbag", place{}).At == "hands" { // held across between the hands
		c := b.arm.tip.lerp(b.arm2.tip, 0.5)
		s.capsule(c.add(vec{-9, 0}), c.add(vec{9, 0}), 10, paint.Frame)
	}
	if d.hasEquip("medicine ball") { // held between the hands, or in the near one
		c := b.arm.tip
		if !d.single {
			c = b.arm.tip.lerp(b.arm2.tip, 0.5)
		}
		s.circle(c, 7, paint.Accent)
	}
	if d.hasEquip("resistance band") && d.place("band", place{}).At == "hands" { // stretched between the hands, in front
		s.capsule(b.arm.tip, b.arm2.tip, 1.5, paint.Accent)
	}
	if d.tmpl.Hook == "ankle" && d.tmpl.Feet != "sole" && (d.hasEquip("cable") || d.hasEquip("resistance band")) {
		s.ring(hook, 3.4, 2, paint.Iron)
	}
	if rope && !ropeBehind {
		frontJumpRope(&s, b, u, d.tmpl.Swing == "side")
	}
	if st.strap != (vec{}) { // a strap from the anchor to each hand (the near one with single: arm)
		hands := []vec{b.arm.tip, b.arm2.tip}
		if d.single {
			hands = hands[:1]
		}
		for _, h := range hands {
			s.capsule(st.strap, h, 1.4, paint.Iron)
			s.capsule(h.add(vec{-2.5, 0}), h.add(vec{2.5, 0}), 2, paint.Accent)
		}
	}
	if d.hasEquip("battle ropes") {
		for i, h := range []vec{b.arm.tip, b.arm2.tip} {
			frontBattleRope(&s, h, float64(1-2*i), u)
		}
	}
	return s
}

// frontJumpRope draws a turning jump rope seen from the front: a loop from
// hand to hand whose middle sweeps from under the feet up over the head
// and back, twice a loop.
func frontJumpRope(s *scene, b *body, u float64, side bool) {
	h1, h2 := b.arm.tip, b.arm2.tip
	if side {
		frontSideRope(s, b, h1.lerp(h2, 0.5), u)
		return
	}
	c := b.hip.Y + 8
	y := math.Max(0.6, c-62*math.Cos(4*math.Pi*u))
	mid := vec{(h1.X + h2.X) / 2, y}
	ctl := mid.mul(2).sub(h1.lerp(h2, 0.5))
	prev := h1
	const segs = 12
	for k := 1; k <= segs; k++ {
		t := float64(k) / segs
		p := h1.mul((1 - t) * (1 - t)).add(ctl.mul(2 * t * (1 - t))).add(h2.mul(t * t))
		// the loop swings a little wider than the hands
		p.X += 5 * math.Sin(math.Pi*t) * sign(h1.X-h2.X) * (0.5 - t) * 2
		s.capsule(prev, p, 1.3, paint.Accent)
		prev = p
	}
}

// frontBattleRope draws one battle rope from a hand towards its anchor in
// front of the figure (towards the viewer, so down to the floor), with
// waves running along it; side is +1 for the near hand.
func frontBattleRope(s *scene, hand vec, side, u float64) {
	end := vec{hand.X + side*6, 1}
	prev := hand
	const segs = 10
	for k := 1; k <= segs; k++ {
		t := float64(k) / segs
		p := hand.lerp(end, t)
		p.X += 4 * (1 - t) * math.Sin(2*math.Pi*(2*t-u))
		s.capsule(prev, p, 2, paint.Iron)
		prev = p
	}
}

// reachLegFront re-aims a front-view leg so its ankle is at target, the
// knee bent outwards for a positive kn (inwards for a negative one); s is
// +1 for the near leg, -1 for the far one.
func reachLegFront(l *limb, target vec, kn, hfwd, s float64) {
	thigh := thighLen * math.Max(0.15, math.Cos(hfwd*math.Pi/180))
	a1, a2 := solve(l.root, target, thigh, shankLen, (s < 0) == (kn >= 0))
	l.a1, l.a2 = a1, a2
	l.mid = l.root.add(dir(a1).mul(thigh))
	l.end = l.mid.add(dir(a2).mul(shankLen))
	l.tip = l.end.add(vec{s * 3.2, -2.2})
	l.heel = l.end.add(vec{-s * 0.8, -2.2})
}

// frontBar names the bar held in both hands that the front view draws.
func (d Demo) frontBar() string {
	for _, e := range d.equip {
		switch e {
		case "barbell", "ez barbell", "smith machine":
			return e
		}
	}
	return ""
}

// betweenKnees draws a stability ball or foam roller the template places
// `at: knees` of a figure seen from its feet, squeezed between the knees:
// the ball w across (default the gap between the knees), the roller lying
// across from knee to knee, w thick (default 8).
func (d Demo) betweenKnees(b *body) func(*scene) {
	if !b.end {
		return nil
	}
	for _, k := range []struct{ kind, equip string }{{"ball", "stability ball"}, {"roller", "foam roller"}} {
		p, ok := d.tmpl.Props[k.kind]
		if !ok || p.At != "knees" || !d.hasEquip(k.equip) {
			continue
		}
		l, r := b.leg2.mid, b.leg.mid
		c := l.lerp(r, 0.5).add(vec{p.X, p.Y})
		if k.kind == "ball" {
			rad := orDefault(p.W, r.sub(l).lenv()) / 2
			return func(s *scene) { s.circle(c, rad, paint.Accent) }
		}
		w := orDefault(p.W, 8)
		return func(s *scene) { s.capsule(l.add(vec{p.X, p.Y}), r.add(vec{p.X, p.Y}), w, paint.Accent) }
	}
	return nil
}

// frontHeld draws the dumbbells, kettlebells and weight plates the hands
// hold: those in a hand behind the body when behind (before the figure),
// the others after it. A plate placed at the hands is one plate held by
// its rim in both (a bus driver, a halo), or with a kettlebell one bell
// held upside down by its horns (a kettlebell halo): drawn between them
// with the hands over it, so that a plate's turn shows, and behind the
// body, lighter, while either arm is turned back.
func (d Demo) frontHeld(s *scene, b *body, behind bool) {
	if d.place("plate", place{}).At == "hands" && (d.hasEquip("weight plate") || d.hasEquip("kettlebell")) {
		if (b.arm.behind || b.arm2.behind) != behind {
			return
		}
		l, r := b.arm.tip, b.arm2.tip
		c := l.lerp(r, 0.5)
		col := paint.Iron
		if behind { // light, as the far limbs, where it shows past the head
			col = paint.BodyFar
		}
		edge := 1.2 // a light edge keeps it visible over the body
		if behind {
			edge = 0
		}
		if d.hasEquip("weight plate") {
			rad := math.Max(8.5, r.sub(l).lenv()/2)
			s.circle(c, rad+edge, paint.Background)
			s.circle(c, rad, col)
			s.circle(c, 2, paint.Frame)
		} else { // upside down by the horns: the bell above the hands
			s.ring(c, 3.4, 1.8+2*edge, paint.Background)
			s.circle(c.add(vec{0, 5}), 5.2+edge, paint.Background)
			s.ring(c, 3.4, 1.8, col)
			s.circle(c.add(vec{0, 5}), 5.2, col)
		}
		if !behind {
			for _, h := range []vec{l, r} {
				s.circle(h, handR+1.2, paint.Background)
				s.circle(h, handR, paint.Body)
			}
		}
		return
	}
	if d.tmpl.Pass && d.hasEquip("kettlebell") {
		l, r := b.arm, b.arm2
		dl, dr := math.Abs(l.tip.X-b.hip.X), math.Abs(r.tip.X-b.hip.X)
		switch {
		case dl > dr+4 && l.behind == behind:
			held(s, "kettlebell", l.tip, dir(l.a2), true)
		case dr > dl+4 && r.behind == behind:
			held(s, "kettlebell", r.tip, dir(r.a2), true)
		case math.Abs(dl-dr) <= 4 && (l.behind && r.behind) == behind: // handed over
			held(s, "kettlebell", l.tip.lerp(r.tip, 0.5), vec{0, -1}, true)
		}
		return
	}
	for i, l := range []limb{b.arm, b.arm2} {
		if i == 1 && d.single {
			break
		}
		if l.behind != behind {
			continue
		}
		for _, e := range d.equip {
			if e == "dumbbell" && i == 0 && d.tmpl.lever { // upright at wr 0, + tipping out
				heldLever(s, l.tip, dir(180-b.wr))
			} else if e == "dumbbell" || e == "kettlebell" || e == "weight plate" {
				held(s, e, l.tip, dir(l.a2), true)
			}
			if e == "sandbag" && d.single { // gripped by its top in one hand (dragged along the floor under a plank)
				s.capsule(l.tip.add(vec{-7, -6.7}), l.tip.add(vec{7, -6.7}), 10, paint.Frame)
			}
		}
	}
}

// frontSideRope draws a rope swung beside the body from handles held
// together at one hip (a side swing): it turns in the plane beside the
// body, so seen from the front it is a narrow loop from the hands to a
// far point swinging between the floor and well above the hands.
func frontSideRope(s *scene, b *body, h vec, u float64) {
	side := sign(h.X - b.hip.X)
	far := vec{h.X + 5*side, math.Max(0.6, h.Y-52*math.Cos(4*math.Pi*u))}
	for _, w := range []float64{-2.5, 2.5} {
		prev := h
		const segs = 8
		for k := 1; k <= segs; k++ {
			t := float64(k) / segs
			p := h.lerp(far, t)
			p.X += w * math.Sin(math.Pi*t)
			s.capsule(prev, p, 1.3, paint.Accent)
			prev = p
		}
	}
}
