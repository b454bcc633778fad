package demo

import (
	"image/color"
	"math"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

type shapeKind uint8

const (
	kCapsule shapeKind = iota
	kCircle
	kRing
	kPoly
)

// shape is one filled primitive in world units (y up).
type shape struct {
	kind shapeKind
	a, b vec
	w    float64 // capsule width, circle radius, ring radius
	in   float64 // ring inner radius
	pts  []vec
	col  color.RGBA
}

type scene []shape

func (s *scene) capsule(a, b vec, w float64, c color.RGBA) {
	*s = append(*s, shape{kind: kCapsule, a: a, b: b, w: w, col: c})
}
func (s *scene) circle(a vec, r float64, c color.RGBA) {
	*s = append(*s, shape{kind: kCircle, a: a, w: r, col: c})
}
func (s *scene) ring(a vec, r, in float64, c color.RGBA) {
	*s = append(*s, shape{kind: kRing, a: a, w: r, in: in, col: c})
}
func (s *scene) poly(c color.RGBA, pts ...vec) {
	*s = append(*s, shape{kind: kPoly, pts: pts, col: c})
}

// rect is an axis-aligned box from x0..x1, y0..y1.
func (s *scene) rect(x0, y0, x1, y1 float64, c color.RGBA) {
	s.poly(c, vec{x0, y0}, vec{x1, y0}, vec{x1, y1}, vec{x0, y1})
}

// bounds extends a box with the scene's extent.
func (s scene) bounds(b *box) {
	for _, sh := range s {
		switch sh.kind {
		case kCapsule:
			b.add(sh.a, sh.w/2)
			b.add(sh.b, sh.w/2)
		case kCircle, kRing:
			b.add(sh.a, sh.w)
		case kPoly:
			for _, p := range sh.pts {
				b.add(p, 0)
			}
		}
	}
}

type box struct {
	x0, y0, x1, y1 float64
	ok             bool
}

func (b *box) add(p vec, r float64) {
	if !b.ok {
		*b = box{p.X - r, p.Y - r, p.X + r, p.Y + r, true}
		return
	}
	b.x0 = math.Min(b.x0, p.X-r)
	b.y0 = math.Min(b.y0, p.Y-r)
	b.x1 = math.Max(b.x1, p.X+r)
	b.y1 = math.Max(b.y1, p.Y+r)
}

// view maps world units to pixels.
type view struct {
	scale, left, top float64
}

func (v view) pt(p vec) paint.Point {
	return paint.Point{X: float32((p.X - v.left) * v.scale), Y: float32((v.top - p.Y) * v.scale)}
}

func ringPath(v view, c vec, r, in float64) paint.Path {
	var p paint.Path
	add := func(rad float64, rev bool) {
		const n = 24
		for i := 0; i <= n; i++ {
			a := 2 * math.Pi * float64(i) / n
			if rev {
				a = -a
			}
			q := v.pt(vec{c.X + rad*math.Cos(a), c.Y + rad*math.Sin(a)})
			if i == 0 {
				p.MoveTo(q)
			} else {
				p.LineTo(q)
			}
		}
		p.Close()
	}
	add(r, false)
	add(in, true)
	return p
}

func (s scene) draw(c *paint.Canvas, v view) {
	sc := float32(v.scale)
	for _, sh := range s {
		switch sh.kind {
		case kCapsule:
			c.Fill(paint.Capsule(v.pt(sh.a), v.pt(sh.b), float32(sh.w)*sc), sh.col)
		case kCircle:
			c.Fill(paint.Ellipse(v.pt(sh.a), float32(sh.w)*sc, float32(sh.w)*sc), sh.col)
		case kRing:
			c.Fill(ringPath(v, sh.a, sh.w, sh.in), sh.col)
		case kPoly:
			pts := make([]paint.Point, len(sh.pts))
			for i, p := range sh.pts {
				pts[i] = v.pt(p)
			}
			c.Fill(paint.Polygon(pts...), sh.col)
		}
	}
}

// region is a part of the figure that a muscle tints: a stretch [t0, t1]
// along a segment, on its front (+1), back (-1) or middle (0), as a
// fraction of the segment's width.
type region struct {
	seg    string
	side   float64
	t0, t1 float64
	w      float64
}

var regions = map[string]region{
	"chest":          {"torso", 1, 0.58, 0.86, 0.42},
	"abs":            {"torso", 1, 0.14, 0.52, 0.40},
	"obliques":       {"torso", 0, 0.14, 0.48, 0.42},
	"lats":           {"torso", -0.25, 0.42, 0.80, 0.48},
	"upper-back":     {"torso", -1, 0.68, 0.95, 0.44},
	"lower-back":     {"torso", -1, 0.10, 0.58, 0.40},
	"neck":           {"neck", 0, 0, 1, 0.8},
	"shoulder":       {"shoulder", 0, 0, 0, 0},
	"upperarm-front": {"upperarm", 1, 0.18, 0.85, 0.5},
	"upperarm-back":  {"upperarm", -1, 0.15, 0.85, 0.5},
	"forearm":        {"forearm", 0, 0.1, 0.75, 0.7},
	"glutes":         {"glutes", 0, 0, 0, 0},
	"hip-front":      {"hipfront", 0, 0, 0, 0},
	"thigh-front":    {"thigh", 1, 0.15, 0.85, 0.5},
	"thigh-back":     {"thigh", -1, 0.15, 0.85, 0.5},
	"thigh-inner":    {"thigh", 0, 0.1, 0.6, 0.45},
	"shin":           {"shank", 1, 0.1, 0.75, 0.45},
	"calf":           {"shank", -1, 0.08, 0.6, 0.55},
}

// tint holds the colour of each tinted region.
type tint map[string]color.RGBA

// overlay draws the tinted parts of one segment.
func (t tint) overlay(s *scene, seg string, a, b vec, w, side float64, order []string) {
	for _, name := range order {
		col, ok := t[name]
		if !ok {
			continue
		}
		r := regions[name]
		if r.seg != seg {
			continue
		}
		d := b.sub(a)
		l := math.Hypot(d.X, d.Y)
		if l < 1e-6 {
			continue
		}
		u := d.mul(1 / l)
		front := vec{-u.Y, u.X} // the segment's anterior side for limbs pointing along dir(a)
		if seg == "torso" {
			front = vec{u.Y, -u.X}
		}
		front = front.mul(side) // a turned figure's anterior side is mirrored
		ww := w * r.w
		off := front.mul(r.side * (w - ww) / 2)
		p0 := a.lerp(b, r.t0).add(off)
		p1 := a.lerp(b, r.t1).add(off)
		s.capsule(p0, p1, ww, col)
	}
}

// regionOrder fixes the drawing order of tints so output is deterministic.
var regionOrder = []string{"lower-back", "abs", "obliques", "lats", "chest", "upper-back", "neck", "shoulder",
	"upperarm-front", "upperarm-back", "forearm", "glutes", "hip-front", "thigh-front", "thigh-back", "thigh-inner", "shin", "calf"}

// figure appends the body's shapes to s, far side first.
func figure(s *scene, b *body, t tint, far func()) {
	off := vec{farOffsetX * b.side(), farOffsetY}
	leg := func(l limb, col color.RGBA, o vec, tinted bool) {
		root := b.hip.add(o)
		mid, end, tip, heel := l.mid.add(o), l.end.add(o), l.tip.add(o), l.heel.add(o)
		s.capsule(end, mid, shankW, col)
		s.capsule(heel, tip, footW, col)
		if tinted {
			t.overlay(s, "shank", mid, end, shankW, b.side(), regionOrder)
		}
		s.capsule(root, mid, thighW, col)
		if tinted {
			t.overlay(s, "thigh", root, mid, thighW, b.side(), regionOrder)
		}
	}
	arm := func(l limb, col color.RGBA, o vec, tinted bool) {
		root, mid, end, tip := l.root.add(o), l.mid.add(o), l.end.add(o), l.tip.add(o)
		s.capsule(root, mid, upperArmW, col)
		if tinted {
			t.overlay(s, "upperarm", root, mid, upperArmW, b.side(), regionOrder)
		}
		s.capsule(mid, end, foreArmW, col)
		s.circle(tip, handR, col)
		if tinted {
			t.overlay(s, "forearm", mid, end, foreArmW, b.side(), regionOrder)
			if c, ok := t["shoulder"]; ok {
				s.circle(root.add(dir(l.a1).mul(2.2)), upperArmW*0.62, c)
			}
		}
	}
	if far != nil {
		far()
	}
	arm(b.arm2, paint.BodyFar, off, false)
	leg(b.leg2, paint.BodyFar, off, false)
	// torso, neck and head
	s.capsule(b.hip, b.shoulder, torsoW, paint.Body)
	s.capsule(b.shoulder, b.neck, 6, paint.Body)
	t.overlay(s, "neck", b.shoulder.add(b.neck.sub(b.shoulder).mul(0.3)), b.neck, 6, b.side(), regionOrder)
	s.circle(b.head, headR, paint.Body)
	t.overlay(s, "torso", b.hip, b.shoulder, torsoW, b.side(), regionOrder)
	up := b.shoulder.sub(b.hip).mul(1.0 / torsoLen)
	front := vec{up.Y, -up.X}.mul(b.side())
	if c, ok := t["glutes"]; ok {
		s.circle(b.hip.add(front.mul(-3.2)).add(up.mul(-0.5)), 4.6, c)
	}
	if c, ok := t["hip-front"]; ok {
		s.circle(b.hip.add(front.mul(3.2)).add(up.mul(2)), 3.4, c)
	}
	leg(b.leg, paint.Body, vec{}, true)
}

// nearArm draws the near arm (after props held between the arms).
func nearArm(s *scene, b *body, t tint) {
	l := b.arm
	s.capsule(l.root, l.mid, upperArmW, paint.Body)
	t.overlay(s, "upperarm", l.root, l.mid, upperArmW, b.side(), regionOrder)
	s.capsule(l.mid, l.end, foreArmW, paint.Body)
	t.overlay(s, "forearm", l.mid, l.end, foreArmW, b.side(), regionOrder)
	s.circle(l.tip, handR, paint.Body)
	if c, ok := t["shoulder"]; ok {
		s.circle(l.root.add(dir(l.a1).mul(2.2)), upperArmW*0.62, c)
	}
}
