package demo

import (
	"image/color"
	"math"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// statics are the props that stand still, placed from the first frame.
type statics struct {
	back     scene   // drawn behind the figure
	pulley   vec     // cable: where the cable leaves the stack
	band     vec     // resistance band anchor
	strap    vec     // rings and suspension trainer anchor
	pivot    vec     // landmine pivot
	landmine bool    // the barbell is a landmine's: its plates are drawn on the sleeve, not at the hands
	ropeEnd  vec     // battle ropes anchor
	flywheel vec     // rowing machine and ski erg
	tow      vec     // a towed sled's strap end
	tyre     vec     // the far edge a lifted tyre tips about
	lip      float64 // the hook's height when the lifted tyre lies flat
	ballR    float64 // a ball rolling under the heels or the forearms
	pad      scene   // a preacher pad, drawn over the body and under the near arm
}

func (d Demo) hasEquip(e string) bool {
	for _, x := range d.equip {
		if x == e {
			return true
		}
	}
	return false
}

// place returns the prop's placement: the demo's, the template's or def.
func (d Demo) place(kind string, def place) place {
	if p, ok := d.props[kind]; ok {
		return p
	}
	if d.tmpl != nil {
		if p, ok := d.tmpl.Props[kind]; ok {
			return p
		}
	}
	return def
}

// anchor resolves a placement's point from the first frame's body.
func anchor(b *body, p place) vec {
	var a vec
	switch p.At {
	case "seat":
		a = vec{b.hip.X, b.hip.Y - torsoW/2}
	case "front":
		a = vec{b.hip.X + 40, 0}
	case "behind":
		a = vec{b.hip.X - 40, 0}
	case "feet", "foot":
		a = vec{b.leg.end.X + 2, math.Min(b.leg.tip.Y, b.leg.heel.Y) - footW/2}
	case "world", "":
	default:
		if j, ok := b.joint(p.At); ok {
			a = j
		}
	}
	return a.add(vec{p.X, p.Y})
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func (d Demo) staticProps(b *body) statics {
	var st statics
	s := &st.back
	legs := func(x0, x1, top float64) {
		if top > 4 {
			s.capsule(vec{x0, top}, vec{x0, 0}, 2.6, paint.Iron)
			s.capsule(vec{x1, top}, vec{x1, 0}, 2.6, paint.Iron)
		}
	}
	for _, e := range d.equip {
		switch e {
		case "bench":
			p := d.place("bench", place{At: "seat"})
			if p.At == "back" || p.At == "chest" {
				u := b.shoulder.sub(b.hip).mul(1 / torsoLen)
				n := vec{-u.Y, u.X}  // back side
				if p.At == "chest" { // chest down on an incline bench
					n = n.mul(-1)
				}
				a := b.hip.add(u.mul(-9)).add(n.mul(torsoW / 2))
				c := b.shoulder.add(u.mul(6)).add(n.mul(torsoW / 2))
				a2, c2 := a.add(n.mul(4)), c.add(n.mul(4))
				s.poly(paint.Frame, a, c, c2, a2)
				lo := a2
				hi := c2
				if lo.Y > hi.Y {
					lo, hi = hi, lo
				}
				s.capsule(a2.lerp(c2, 0.15), vec{a2.lerp(c2, 0.15).X, 0}, 2.6, paint.Iron)
				s.capsule(a2.lerp(c2, 0.85), vec{a2.lerp(c2, 0.85).X, 0}, 2.6, paint.Iron)
				if p.At == "back" && math.Abs(u.Y) > 0.2 && math.Abs(u.Y) < 0.95 {
					// inclined back rest: add the seat
					seat := b.hip.Y - torsoW/2
					s.rect(b.hip.X-4, seat-4, b.hip.X+16*sign(u.X)*-1+0, seat, paint.Frame)
				}
				continue
			}
			a := anchor(b, p)
			w := orDefault(p.W, 34)
			s.rect(a.X-w/2, a.Y-4, a.X+w/2, a.Y, paint.Frame)
			legs(a.X-w/2+3, a.X+w/2-3, a.Y-4)
		case "plyo box":
			p := d.place("box", place{At: "front"})
			a := anchor(b, p)
			w, h := orDefault(p.W, 26), orDefault(p.H, 24)
			if p.At != "front" && p.At != "behind" && p.At != "world" && p.At != "" {
				h = math.Max(a.Y, 4)
			}
			s.rect(a.X-w/2, 0, a.X+w/2, h, paint.Frame)
			s.rect(a.X-w/2, h-1.5, a.X+w/2, h, paint.Iron)
			// a second box: dropped from one, jumped onto the other
			if d.tmpl != nil {
				if p2, ok := d.tmpl.Props["box2"]; ok {
					a2 := anchor(b, p2)
					w2, h2 := orDefault(p2.W, 26), orDefault(p2.H, 24)
					s.rect(a2.X-w2/2, 0, a2.X+w2/2, h2, paint.Frame)
					s.rect(a2.X-w2/2, h2-1.5, a2.X+w2/2, h2, paint.Iron)
				}
			}
		case "stability ball":
			if d.tmpl != nil && d.tmpl.Hook == "ankle" {
				// under the heels: it rolls with them
				st.ballR = math.Max(9, (b.leg.end.Y-2)/2)
				continue
			}
			if d.tmpl != nil && d.tmpl.Hook == "elbow" {
				// under the forearms: it rolls with them
				st.ballR = math.Max(9, (forearmMid(b.arm).Y-foreArmW/2)/2)
				continue
			}
			if d.tmpl != nil && d.tmpl.Hook == "pass" {
				// handed between the hands and the feet: it moves with them
				st.ballR = orDefault(d.place("ball", place{}).W, 13)
				continue
			}
			if d.tmpl != nil && (d.tmpl.Hook == "hip" || d.tmpl.Hook == "wrist") {
				// behind the lower back, or ahead of the hand, against a
				// wall: it rolls with it
				st.ballR = orDefault(d.place("ball", place{}).W, 15)
				continue
			}
			p := d.place("ball", place{At: "seat"})
			a := anchor(b, p)
			r := orDefault(p.W, math.Max(9, math.Min(18, a.Y/2)))
			s.circle(vec{a.X, r}, r, paint.Accent)
		case "bosu ball":
			p := d.place("ball", place{At: "feet"})
			a := anchor(b, p)
			var pts []vec
			for i := 0; i <= 12; i++ {
				t := math.Pi * float64(i) / 12
				pts = append(pts, vec{a.X + 13*math.Cos(t), 6 * math.Sin(t)})
			}
			s.poly(paint.Accent, pts...)
		case "foam roller":
			p := d.place("roller", place{At: "seat"})
			a := anchor(b, p)
			s.circle(vec{a.X, 5}, 5, paint.Accent)
		case "cable":
			p := d.place("cable", place{At: "front", Y: 55})
			st.pulley = anchor(b, p)
			x := st.pulley.X
			top := math.Max(st.pulley.Y+8, 100)
			s.rect(x+1, 0, x+8, top, paint.Frame)
			s.rect(x+2, 2, x+7, 20, paint.Iron)
			s.circle(st.pulley, 2.6, paint.Iron)
		case "resistance band":
			// a band replaces a cable where the template has one
			def := d.place("cable", place{At: "feet"})
			st.band = anchor(b, d.place("band", def))
		case "pull-up bar":
			p := d.place("bar", place{At: "wrist", Y: 1})
			a := anchor(b, p)
			s.capsule(a, vec{a.X - 22, a.Y + 6}, 2.6, paint.Frame)
			s.capsule(vec{a.X - 22, a.Y + 6}, vec{a.X - 22, 0}, 3.2, paint.Frame)
			s.circle(a, 2.6, paint.Iron)
		case "dip station":
			p := d.place("station", place{At: "wrist", Y: -2})
			a := anchor(b, p)
			s.capsule(vec{a.X - 2, a.Y}, vec{a.X - 2, 0}, 3.2, paint.Frame)
			s.capsule(vec{a.X - 12, 0}, vec{a.X + 8, 0}, 3, paint.Frame)
			s.capsule(vec{a.X - 6, a.Y}, vec{a.X + 6, a.Y}, 3, paint.Iron)
		case "gymnastic rings", "suspension trainer":
			p := d.place("rings", place{At: "wrist", Y: 30})
			st.strap = anchor(b, p)
			st.strap.Y = math.Max(st.strap.Y, b.head.Y+headR+22)
			s.rect(st.strap.X-6, st.strap.Y, st.strap.X+6, st.strap.Y+2.5, paint.Frame)
		case "climbing rope":
			p := d.place("rope", place{At: "wrist"})
			a := anchor(b, p)
			s.capsule(vec{a.X + 1, 0}, vec{a.X + 1, a.Y + 40}, 2.4, paint.Accent)
		case "parallettes":
			a := b.arm.end
			s.rect(a.X-6, 0, a.X+6, 2, paint.Frame)
			s.capsule(vec{a.X, 1}, vec{a.X, math.Max(a.Y-handR, 2)}, 2.2, paint.Frame)
		case "sled":
			p := d.place("sled", place{At: "wrist", X: 6})
			a := anchor(b, p)
			s.rect(a.X, 0, a.X+24, 9, paint.Iron)
			if d.tmpl != nil && d.tmpl.Hook != "" {
				// towed: the strap runs from the sled's near end to the hook
				st.tow = vec{a.X + 24, 6}
				if a.X > b.hip.X {
					st.tow.X = a.X
				}
				continue
			}
			s.capsule(vec{a.X + 2, 8}, vec{a.X, a.Y}, 2.6, paint.Iron)
		case "landmine":
			st.pivot = anchor(b, d.place("landmine", place{At: "front", X: 20}))
			st.landmine = true
			s.rect(st.pivot.X-4, 0, st.pivot.X+4, 3, paint.Iron)
		case "leverage machine", "smith machine":
			p := d.place("machine", place{At: "hip", X: -16})
			a := anchor(b, p)
			top := math.Max(b.head.Y+18, 100)
			if e == "smith machine" {
				x := b.arm.end.X
				s.rect(x-10, 0, x-7, top, paint.Frame)
				s.rect(x+7, 0, x+10, top, paint.Frame)
				continue
			}
			s.rect(a.X-3, 0, a.X+3, top, paint.Frame)
			s.rect(a.X-12, 0, a.X+22, 3, paint.Frame)
			s.rect(a.X-3, top-3, a.X+24, top, paint.Frame)
			s.rect(a.X+1, 4, a.X+6, 22, paint.Iron)
		case "rowing machine":
			seat := vec{b.hip.X, b.hip.Y - torsoW/2}
			st.flywheel = vec{b.leg.end.X + 26, 14}
			s.rect(seat.X-30, 2, st.flywheel.X, 5, paint.Frame)
			s.rect(seat.X-7, 5, seat.X+7, math.Max(seat.Y, 7), paint.Iron)
			s.circle(st.flywheel, 10, paint.Frame)
			s.capsule(vec{b.leg.end.X + 3, 4}, vec{b.leg.end.X + 5, 16}, 3, paint.Iron)
		case "ski erg":
			st.flywheel = vec{b.hip.X + 34, 112}
			s.rect(st.flywheel.X-3, 0, st.flywheel.X+5, 116, paint.Frame)
			s.rect(st.flywheel.X-14, 0, st.flywheel.X+14, 3, paint.Frame)
		case "stationary bike":
			seat := vec{b.hip.X - 1, b.hip.Y - torsoW/2}
			crank := vec{b.hip.X + 8, 18}
			bar := b.arm.end
			if p := d.place("bike", place{}); p.At != "" {
				// a recumbent: the crank where the template places it,
				// a backrest along the torso, the handles at the hands
				crank = anchor(b, p)
				back := b.shoulder.sub(b.hip)
				n := vec{back.Y, -back.X}.mul(torsoW / 2 / math.Max(1, back.lenv()))
				if n.X > 0 {
					n = n.mul(-1)
				}
				s.capsule(b.hip.add(n).add(back.mul(0.1)), b.hip.add(n).add(back.mul(0.85)), 3.4, paint.Iron)
				s.rect(seat.X-12, seat.Y-3, seat.X+9, seat.Y, paint.Iron)
				s.capsule(vec{seat.X, seat.Y - 2}, vec{seat.X, 3}, 3.2, paint.Frame)
				s.capsule(vec{seat.X, 8}, crank, 3.2, paint.Frame)
				s.capsule(vec{bar.X, bar.Y - 3}, vec{bar.X, seat.Y - 3}, 2.4, paint.Frame)
				s.rect(seat.X-22, 0, crank.X+12, 3, paint.Frame)
				s.ring(crank, 9, 7, paint.Frame)
				s.circle(bar, 2.6, paint.Iron)
				continue
			}
			s.rect(seat.X-8, seat.Y-3, seat.X+7, seat.Y, paint.Iron)
			s.capsule(vec{seat.X, seat.Y - 2}, crank, 3.2, paint.Frame)
			s.capsule(crank, vec{bar.X - 3, bar.Y - 3}, 3.2, paint.Frame)
			s.capsule(vec{crank.X + 8, 0}, vec{crank.X + 8, crank.Y}, 3.2, paint.Frame)
			s.rect(seat.X-14, 0, crank.X+22, 3, paint.Frame)
			s.ring(crank, 9, 7, paint.Frame)
			s.circle(vec{bar.X, bar.Y}, 2.6, paint.Iron)
		case "treadmill", "elliptical trainer", "stair climber":
			x := b.leg.end.X
			if e == "stair climber" {
				for i := 0; i < 3; i++ {
					fx := x - 20 + float64(i)*13
					s.rect(fx-4, 0, fx+13, float64(i+1)*8-6, paint.Frame)
				}
			} else {
				s.rect(x-40, 0, x+34, 4, paint.Iron)
			}
			s.capsule(vec{x + 34, 2}, vec{x + 28, 80}, 3.4, paint.Frame)
			s.capsule(vec{x + 28, 80}, vec{x + 16, 80}, 3, paint.Frame)
		case "tyre":
			a := b.arm.end
			if p := d.place("tyre", place{}); p.At != "" && d.tmpl != nil && d.tmpl.Hook != "" {
				// towed: it lies flat where the template places it, the
				// strap running from its near end to the hook
				a = anchor(b, p)
				s.rect(a.X-2, 0, a.X+34, 13, paint.Iron)
				s.rect(a.X+2, 4, a.X+30, 9, paint.Frame)
				st.tow = vec{a.X + 32, 8}
				continue
			}
			if d.tmpl != nil && d.tmpl.Hook != "" {
				// lifted: it tips up about its far edge to follow the hook
				st.tyre, st.lip = vec{a.X + liftedTyreLen - 2, 0}, a.Y
				continue
			}
			s.rect(a.X-2, 0, a.X+34, 13, paint.Iron)
			s.rect(a.X+2, 4, a.X+30, 9, paint.Frame)
		case "battle ropes":
			st.ropeEnd = vec{b.hip.X + 72, 5}
			s.rect(st.ropeEnd.X-2, 0, st.ropeEnd.X+3, 9, paint.Iron)
		}
	}
	if p := d.place("stairs", place{}); p.At != "" { // a flight of steps rising ahead
		a := anchor(b, p)
		for i := 0; i < 5; i++ {
			s.rect(a.X+float64(i)*13, 0, a.X+float64(i+1)*13, float64(i+1)*8, paint.Frame)
		}
	}
	d.floorBarEnd(b, s)
	if d.floorBall() { // on the floor under where the template places it
		a := anchor(b, d.tmpl.Props["ball"])
		s.circle(vec{a.X, 7}, 7, paint.Accent)
	}
	d.platePile(b, s)
	d.seatPad(b, s)
	d.wallPanel(b, s)
	d.armPad(b, &st.pad)
	return st
}

// inHands reports whether the hands hold e, rather than its lying on the
// floor where the template places it (a barbell, a medicine ball, a
// sandbag) or riding a landmine's sleeve (its barbell).
func (d Demo) inHands(e string) bool {
	switch e {
	case "barbell":
		return !d.floorBar() && !d.hasEquip("landmine")
	case "medicine ball":
		return !d.floorBall()
	case "sandbag":
		return !d.floorSandbag()
	}
	return true
}

// floorBall reports whether the medicine ball lies on the floor where the
// template places a `ball` (side view) rather than in the hands.
func (d Demo) floorBall() bool {
	if d.tmpl == nil || d.front() || !d.hasEquip("medicine ball") {
		return false
	}
	_, ok := d.tmpl.Props["ball"]
	return ok
}

// floorSandbag reports whether the sandbag lies on the floor in front of
// the near hand, held by a handle (side view), where the template places
// a `sandbag`, rather than in the hands.
func (d Demo) floorSandbag() bool {
	if d.tmpl == nil || d.front() || !d.hasEquip("sandbag") {
		return false
	}
	_, ok := d.tmpl.Props["sandbag"]
	return ok
}

// floorBarEnd draws the barbell lying on the floor where the template
// places it, seen end on (in the side and the front view alike).
func (d Demo) floorBarEnd(b *body, s *scene) {
	if !d.floorBar() {
		return
	}
	a := anchor(b, d.tmpl.Props["bar"])
	s.circle(vec{a.X, 10}, 10, paint.Iron)
	s.circle(vec{a.X, 10}, 2, paint.Frame)
}

// floorBar reports whether the barbell lies on the floor where the
// template places a `bar` (without a pull-up bar, in the side or front
// view) rather than in the hands.
func (d Demo) floorBar() bool {
	if d.tmpl == nil || d.tmpl.View == "end" || !d.hasEquip("barbell") || d.hasEquip("pull-up bar") {
		return false
	}
	_, ok := d.tmpl.Props["bar"]
	return ok
}

// armPad draws a sloped pad under the near upper arm of the first frame
// where the data places a `pad` prop (a preacher bench): w long (default
// the upper arm) from the elbow towards the shoulder, on a post to the
// floor under its low end. It is drawn over the body, under the near arm.
func (d Demo) armPad(b *body, s *scene) {
	p := d.place("pad", place{})
	if p.At == "" {
		return
	}
	l := b.arm
	u := l.root.sub(l.mid)
	u = u.mul(1 / math.Max(1e-6, u.lenv()))
	n := vec{u.Y, -u.X} // the underside of an arm reaching forward
	if n.Y > 0 {
		n = n.mul(-1)
	}
	off := vec{p.X, p.Y}
	a := l.mid.add(n.mul(upperArmW / 2)).add(off).sub(u.mul(2))
	c := a.add(u.mul(orDefault(p.W, upperArm)))
	s.poly(paint.Frame, a, c, c.add(n.mul(4)), a.add(n.mul(4)))
	lo := a.add(n.mul(4))
	if c.Y < a.Y {
		lo = c.add(n.mul(4))
	}
	if lo.Y > 2 {
		s.capsule(lo, vec{lo.X, 0}, 2.6, paint.Iron)
	}
}

// wallPanel draws a wall seen edge on where the data places a `wall` prop:
// a panel w thick (default 5) standing on the floor, h high (default 110),
// centred on its anchor.
func (d Demo) wallPanel(b *body, s *scene) {
	p := d.place("wall", place{})
	if p.At == "" {
		return
	}
	a := anchor(b, p)
	w := orDefault(p.W, 5)
	s.rect(a.X-w/2, 0, a.X+w/2, orDefault(p.H, 110), paint.Frame)
}

// seatPad draws the seat of a machine or cable station where the data
// places a `seat` prop (at: seat, under the pelvis): a pad w wide on a
// post, whatever the equipment, so that a seated figure does not sit on air.
func (d Demo) seatPad(b *body, s *scene) {
	p := d.place("seat", place{})
	if p.At == "" || d.hasEquip("bench") || d.hasEquip("stability ball") || d.hasEquip("plyo box") {
		return // the record's own bench, ball or box is the seat
	}
	a := anchor(b, p)
	w := orDefault(p.W, 16)
	s.rect(a.X-w/2, a.Y-3.5, a.X+w/2, a.Y, paint.Frame)
	if a.Y > 5 {
		s.capsule(vec{a.X, a.Y - 3.5}, vec{a.X, 0}, 3, paint.Iron)
		s.rect(a.X-8, 0, a.X+8, 2.5, paint.Iron)
	}
}

// platePile draws the weight plates stood on (a deficit, a low step) where
// the data places a `plate` prop; the record's weight plate is then drawn
// underfoot rather than in the hand (its rule drops the held one). Its
// height is h, or the anchor's height when placed at a joint.
func (d Demo) platePile(b *body, s *scene) {
	p := d.place("plate", place{})
	if p.At == "" || p.At == "hands" { // held, not stood on (frontHeld)
		return
	}
	a := anchor(b, p)
	w, h := orDefault(p.W, 20), p.H
	if h == 0 {
		h = math.Max(a.Y, 2)
	}
	for y := 0.0; y < h; y += 2 {
		c := paint.Iron
		if int(y/2)%2 == 1 {
			c = paint.Frame
		}
		s.rect(a.X-w/2, y, a.X+w/2, math.Min(y+2, h), c)
	}
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// behind lists the held loads drawn behind the figure.
var behind = map[string]bool{"barbell": true, "smith machine": true, "ez barbell": true, "trap bar": true}

// trapBarRail draws the near side of a trap bar's hexagonal frame: a level
// rail through the near hand (its handle), running in front of and behind
// the figure standing inside the frame; the plates are drawn behind.
func trapBarRail(s *scene, b *body) {
	h := b.arm.tip
	y := (b.arm.tip.Y + b.arm2.tip.Y) / 2
	x0, x1 := h.X-17, h.X+17
	s.capsule(vec{x0, y}, vec{x0 + 6, h.Y}, 2.4, paint.Iron)
	s.capsule(vec{x0 + 6, h.Y}, vec{x1 - 6, h.Y}, 2.4, paint.Iron)
	s.capsule(vec{x1 - 6, h.Y}, vec{x1, y}, 2.4, paint.Iron)
}

// held draws what one hand holds; fwd is the forearm's direction.
func held(s *scene, e string, hand vec, fwd vec, near bool) {
	switch e {
	case "barbell", "smith machine":
		s.circle(hand, 10, paint.Iron)
		s.circle(hand, 2, paint.Frame)
	case "ez barbell":
		s.circle(hand, 8.5, paint.Iron)
		s.circle(hand, 1.8, paint.Frame)
	case "trap bar": // the plates on the sleeves, their axis through the handles
		s.circle(hand, 10, paint.Iron)
		s.circle(hand, 2, paint.Frame)
	case "dumbbell":
		s.circle(hand, 4.6, paint.Iron)
	case "kettlebell":
		c := hand.add(vec{0, -6.5})
		s.ring(hand.add(vec{0, -2.4}), 3.4, 1.8, paint.Iron)
		s.circle(c, 5.2, paint.Iron)
	case "medicine ball":
		if near {
			s.circle(hand.add(fwd.mul(5)), 7, paint.Accent)
		}
	case "weight plate":
		if near {
			s.circle(hand, 8.5, paint.Iron)
			s.circle(hand, 2, paint.Frame)
		}
	case "sandbag":
		if near {
			s.capsule(hand.add(vec{-6, 3}), hand.add(vec{7, 3}), 10, paint.Frame)
		}
	case "atlas stone":
		if near {
			s.circle(hand.add(fwd.mul(8)), 11, paint.Frame)
		}
	case "ab wheel":
		if near {
			s.ring(hand, 5, 2.2, paint.Iron)
		}
	}
}

// heldRadius is how far a held item reaches below the hand, for grounding.
func (d Demo) heldRadius() float64 {
	r := 0.0
	for _, e := range d.equip {
		if e == "barbell" && d.floorBar() {
			continue
		}
		switch e {
		case "barbell", "smith machine":
			r = math.Max(r, 10)
		case "ez barbell", "trap bar", "weight plate":
			r = math.Max(r, 8.5)
		case "kettlebell":
			r = math.Max(r, 11.7)
		case "dumbbell", "ab wheel":
			r = math.Max(r, 5)
		case "sandbag":
			if d.front() && d.single { // gripped by its top in one hand
				r = math.Max(r, 11.7)
			}
		}
	}
	return r
}

// hooks returns where the template's cable, band or straps pull on the
// near and far side: the hands, or the ankles or the hips it names.
func (d Demo) hooks(b *body) (vec, vec) {
	if d.tmpl != nil {
		switch d.tmpl.Hook {
		case "ankle":
			return b.leg.end, b.leg2.end
		case "hip":
			return b.hip, b.hip
		case "elbow":
			return forearmMid(b.arm), forearmMid(b.arm2)
		}
	}
	return b.arm.tip, b.arm2.tip
}

func (d Demo) frameScene(b *body, st statics, i, n int) scene {
	var s scene
	forearm := func(l limb) vec { return dir(l.a2) }
	hook, hook2 := d.hooks(b)
	elbowBall := st.ballR > 0 && d.tmpl != nil && d.tmpl.Hook == "elbow"
	backBall := st.ballR > 0 && d.tmpl != nil && d.tmpl.Hook == "hip"
	passBall := st.ballR > 0 && d.tmpl != nil && d.tmpl.Hook == "pass"
	handBall := st.ballR > 0 && d.tmpl != nil && d.tmpl.Hook == "wrist"
	u := float64(i) / float64(n)
	far := func() {
		if passBall { // between the near and far limbs: in the hands, handed to the feet about a quarter of the loop and back about three quarters
			const d = 0.06 // half the hand-over
			w := math.Max(0, math.Min(1, math.Min(u-0.25+d, 0.75+d-u)/(2*d)))
			s.circle(b.arm.tip.lerp(b.leg.end, w), st.ballR, paint.Accent)
		}
		if elbowBall { // behind the figure, the forearms resting on it
			s.circle(vec{hook.X + 1, st.ballR}, st.ballR, paint.Accent)
		}
		if backBall { // between the lower back and the wall behind it
			s.circle(hook.add(vec{-torsoW/2 - st.ballR, 10}), st.ballR, paint.Accent)
		}
		// straps and bar plates hang behind the figure so the tinted
		// muscles stay visible
		for _, e := range d.equip {
			switch e {
			case "gymnastic rings":
				s.capsule(st.strap, hook.add(vec{0, 3}), 1.2, paint.Frame)
			case "suspension trainer":
				s.capsule(st.strap, hook.add(vec{0, 2}), 1.4, paint.Iron)
				if d.tmpl != nil && d.tmpl.Hook == "ankle" { // a cradle on each foot
					s.capsule(st.strap, hook2.add(vec{farOffsetX * b.side(), 2 + farOffsetY}), 1.4, paint.Iron)
				}
			}
		}
		for _, e := range d.equip {
			if behind[e] && d.inHands(e) {
				held(&s, e, b.arm.tip, forearm(b.arm), true)
			}
		}
		if d.single {
			return
		}
		o := vec{farOffsetX * b.side(), farOffsetY}
		for _, e := range d.equip {
			if !behind[e] && d.inHands(e) {
				held(&s, e, b.arm2.tip.add(o), forearm(b.arm2), false)
			}
		}
	}
	if d.floorSandbag() { // dragged along the floor by its handles
		h := b.arm.tip
		s.capsule(vec{h.X + 5, 7}, vec{h.X + 24, 7}, 7, paint.Frame)
		s.capsule(h, vec{h.X + 6, 12}, 1.4, paint.Iron)
	}
	figure(&s, b, d.tint, far)
	for _, e := range d.equip {
		if !behind[e] && d.inHands(e) {
			if e == "dumbbell" && d.tmpl != nil && d.tmpl.lever {
				heldLever(&s, b.arm.tip, dir(b.arm.a2+b.side()*b.wr))
			} else if e == "weight plate" && d.tmpl != nil && d.tmpl.lever {
				wristRoller(&s, b.arm.tip, b.side()*b.wr)
			} else {
				held(&s, e, b.arm.tip, forearm(b.arm), true)
			}
		}
		if e == "trap bar" {
			trapBarRail(&s, b)
		}
	}
	s = append(s, st.pad...)
	nearArm(&s, b, d.tint)
	hand := b.arm.tip
	for _, e := range d.equip {
		switch e {
		case "cable":
			s.capsule(st.pulley, hook, 1.2, paint.Iron)
			s.capsule(hook.add(vec{0, -2}), hook.add(vec{0, 2}), 2.2, paint.Iron)
		case "resistance band":
			s.capsule(st.band, hook, 1.5, paint.Accent)
		case "gymnastic rings":
			s.ring(hook, 3.6, 2.2, paint.Iron)
		case "suspension trainer":
			s.capsule(hook.add(vec{-2.5, 0}), hook.add(vec{2.5, 0}), 2, paint.Accent)
		case "landmine":
			// the hands hold the sleeve's end; the plates sit on it just
			// below them, towards the pivot
			u := hand.sub(st.pivot).mul(1 / math.Max(1, hand.sub(st.pivot).lenv()))
			s.capsule(st.pivot, hand.add(u.mul(3)), 2.2, paint.Iron)
			c := hand.sub(u.mul(11))
			s.circle(c, 9, paint.Iron)
			s.circle(c, 2, paint.Frame)
		case "stability ball":
			if handBall { // pressed ahead of the hand, along the forearm
				s.circle(hook.add(dir(b.arm.a2).mul(st.ballR+handR*0.6)), st.ballR, paint.Accent)
			} else if st.ballR > 0 && !elbowBall && !backBall && !passBall {
				s.circle(vec{hook.X + 1, st.ballR}, st.ballR, paint.Accent)
			}
		case "tyre":
			if st.tyre != (vec{}) {
				liftedTyre(&s, st.tyre, hook.sub(vec{0, st.lip}))
			} else if st.tow != (vec{}) {
				s.capsule(st.tow, hook, 1.6, paint.Iron)
			}
		case "sled":
			if st.tow != (vec{}) {
				s.capsule(st.tow, hook, 1.6, paint.Iron)
			}
		case "rowing machine", "ski erg":
			s.capsule(st.flywheel, hand, 1.1, paint.Iron)
		case "battle ropes":
			var prev vec
			const segs = 14
			for k := 0; k <= segs; k++ {
				t := float64(k) / segs
				p := hand.lerp(st.ropeEnd, t)
				p.Y += 6 * (1 - t) * math.Sin(2*math.Pi*(2*t-u))
				if k > 0 {
					s.capsule(prev, p, 2, paint.Iron)
				}
				prev = p
			}
		case "jump rope":
			// once a loop, turning forwards: from under the feet up
			// behind the body, over the head and down in front
			phi := 2 * math.Pi * u
			c := b.hip.add(vec{0, 8})
			r := vec{c.X - 36*math.Sin(phi), c.Y - 62*math.Cos(phi)}
			if r.Y < 0.6 {
				r.Y = 0.6
			}
			// the loop seen a little obliquely: an ellipse from the hand
			// to the rope's far point, a sixteenth of its length wide
			// on each side, so it reads as a rope and not as a stick
			v := r.sub(hand)
			n := vec{-v.Y, v.X}.mul(0.06)
			var prev vec
			for k := 0; k <= 16; k++ {
				th := 2 * math.Pi * float64(k) / 16
				a := hand.add(v.mul((1 - math.Cos(th)) / 2)).add(n.mul(math.Sin(th)))
				if a.Y < 0.6 {
					a.Y = 0.6
				}
				if k > 0 {
					s.capsule(prev, a, 1.3, paint.Accent)
				}
				prev = a
			}
		}
	}
	return s
}

// forearmMid is the middle of a limb's forearm (or shank).
func forearmMid(l limb) vec { return l.mid.lerp(l.end, 0.5) }

func (a vec) lenv() float64 { return math.Hypot(a.X, a.Y) }

// liftedTyreLen is the diameter of a tyre big enough to flip.
const liftedTyreLen = 56.0

// liftedTyre draws a tyre tipped up about its far edge pivot so that its
// near edge rises towards the hook (the hands under its lip, measured from
// where they hold it flat), from flat on the floor to upright.
func liftedTyre(s *scene, pivot, hook vec) {
	const l, w = liftedTyreLen, 13.0
	a := math.Atan2(math.Max(hook.Y, 0), pivot.X-hook.X)
	a = math.Max(0, math.Min(math.Pi/2, a))
	d := vec{-math.Cos(a), math.Sin(a)} // from the pivot towards the near edge
	n := vec{d.Y, -d.X}                 // across the tread, upwards when flat
	if n.Y < 0 {
		n = n.mul(-1)
	}
	at := func(u, v float64) vec { return pivot.add(d.mul(u)).add(n.mul(v)) }
	s.poly(paint.Iron, at(0, 0), at(l, 0), at(l, w), at(0, w))
	s.poly(paint.Frame, at(4, 4), at(l-4, 4), at(l-4, w-4), at(4, w-4))
}

// heldLever draws a dumbbell held by one end (a template whose keys set
// wr): its handle runs from the hand along u to the weight, square to it,
// so the angle at the wrist shows; a light edge keeps it visible over the
// body.
func heldLever(s *scene, hand, u vec) {
	end := hand.add(u.mul(12))
	n := vec{-u.Y, u.X}
	for _, e := range []struct {
		w float64
		c color.RGBA
	}{{2.4, paint.Background}, {0, paint.Iron}} {
		s.capsule(hand.add(u.mul(handR)), end, 1.6+e.w, e.c)
		s.capsule(end.sub(n.mul(4.5)), end.add(n.mul(4.5)), 4.4+e.w, e.c)
	}
}

// wristRoller draws a wrist roller held in the hands, seen end on, turned
// turn degrees (+ the top away from the figure): its cord winds round the
// handle by as much, raising the plate from near the floor towards the
// hands; it hangs off the handle's front, or its back when turned the
// other way (a reverse wrist roller).
func wristRoller(s *scene, hand vec, turn float64) {
	const r = 2.4
	cord := math.Max(6, hand.Y-25-math.Abs(turn)/360*2*math.Pi*r)
	top := hand.add(vec{r * sign(turn), 0})
	plate := top.add(vec{0, -cord - 8.5})
	s.capsule(top, plate, 0.7, paint.Iron)
	s.circle(plate, 8.5, paint.Iron)
	s.circle(plate, 2, paint.Frame)
	s.circle(hand, r+1.2, paint.Iron)
	// a light spoke on the handle's end shows it turn
	s.capsule(hand, hand.add(dir(90+turn).mul(r)), 0.8, paint.Background)
}
