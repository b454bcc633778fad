package demo

import (
	"fmt"
	"math"
	"sort"
)

// The skeleton is a side view of a figure facing +x, y up, in logical units
// (a standing figure is about 96 units tall). Angles are in degrees. A
// segment's absolute angle a points along dir(a) = (sin a, -cos a): 0 is
// straight down, 90 forward, 180 up.
const (
	torsoLen   = 29.0
	neckLen    = 4.5
	headR      = 6.8
	upperArm   = 16.0
	foreArm    = 14.5
	thighLen   = 24.0
	shankLen   = 23.0
	footLen    = 9.0
	torsoW     = 13.0
	upperArmW  = 6.2
	foreArmW   = 5.2
	thighW     = 9.0
	shankW     = 7.0
	footW      = 4.2
	handR      = 2.7
	farOffsetX = -1.6
	farOffsetY = 1.3
)

// Field indexes of a pose. Limb fields come in near/far pairs; a far value
// that a template never sets follows the near one.
const (
	fTrunk = iota // torso lean from vertical, + forward (top towards +x)
	fHead         // head nod relative to the torso, + chin down
	fSh           // near shoulder flexion: upper arm from the torso's down line, + forward
	fEl           // near elbow flexion, + forearm forward
	fHip          // near hip flexion: thigh from the torso's down line, + forward
	fKn           // near knee flexion, + shank backward
	fAn           // near ankle plantar flexion, + toes down
	fSh2
	fEl2
	fHip2
	fKn2
	fAn2
	fFwd // front view only: near arm turned about a vertical axis through the shoulder, towards the viewer
	fFwd2
	fHfwd // front view only: near thigh flexed towards the viewer (a seated figure's thighs)
	fHfwd2
	fKfwd // front view only: near shank pointing towards the viewer (knees up in front of a seated figure), negative away from it (a knee on the floor)
	fKfwd2
	fEfwd // front view only: near forearm pointing towards the viewer (a 90/90 shoulder rotation)
	fEfwd2
	fBow  // front view only: the torso bowed forward towards the viewer (a bent-over figure seen from the front)
	fOpen // end view only: near leg turned out about the hip, + away from the midline (a knee falling open, a straddle)
	fOpen2
	fTurn // side view only: the figure turned about its vertical axis, 180 facing -x
	fPro  // side view only: the shoulder blades protracted, both arm roots moved this far along the chest's forward normal (- retracted)
	fElev // side view only: the shoulder blades elevated, both arm roots moved this far up the torso (- depressed)
	fTuck // side view only: the head glided straight back this far (a chin tuck; - pushed forward)
	fWr   // the near hand's dumbbell held by one end: the angle of its weighted end (heldLever); a wrist roller's turn (wristRoller)
	fLift // height of the lowest point above the ground (ground mode) or of the pinned joint above its first position
	fDx   // horizontal shift of the anchor
	numFields
)

var fieldNames = [numFields]string{"trunk", "head", "sh", "el", "hip", "kn", "an", "sh2", "el2", "hip2", "kn2", "an2", "fwd", "fwd2", "hfwd", "hfwd2", "kfwd", "kfwd2", "efwd", "efwd2", "bow", "open", "open2", "turn", "pro", "elev", "tuck", "wr", "lift", "dx"}

var fieldIndex = func() map[string]int {
	m := map[string]int{}
	for i, n := range fieldNames {
		m[n] = i
	}
	return m
}()

// farOf maps a far field to its near field.
var farOf = map[int]int{fSh2: fSh, fEl2: fEl, fHip2: fHip, fKn2: fKn, fAn2: fAn, fFwd2: fFwd, fHfwd2: fHfwd, fKfwd2: fKfwd, fEfwd2: fEfwd, fOpen2: fOpen}

// pose is a full set of joint values; NaN means "not set" (far limbs follow
// the near ones).
type pose [numFields]float64

func unsetPose() pose {
	var p pose
	for i := range p {
		p[i] = math.NaN()
	}
	return p
}

// overlay returns p with the values of m set.
func (p pose) overlay(m map[string]float64) (pose, error) {
	for k, v := range m {
		i, ok := fieldIndex[k]
		if !ok {
			return p, fmt.Errorf("unknown pose field %q", k)
		}
		p[i] = v
	}
	return p, nil
}

// complete fills unset values: far limbs from near ones, the rest 0.
func (p pose) complete() pose {
	for i := range p {
		if _, far := farOf[i]; far {
			continue
		}
		if math.IsNaN(p[i]) {
			p[i] = 0
		}
	}
	for f, n := range farOf {
		if math.IsNaN(p[f]) {
			p[f] = p[n]
		}
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type vec struct{ X, Y float64 }

func (a vec) add(b vec) vec             { return vec{a.X + b.X, a.Y + b.Y} }
func (a vec) sub(b vec) vec             { return vec{a.X - b.X, a.Y - b.Y} }
func (a vec) mul(s float64) vec         { return vec{a.X * s, a.Y * s} }
func (a vec) lerp(b vec, t float64) vec { return a.add(b.sub(a).mul(t)) }

func dir(deg float64) vec {
	r := deg * math.Pi / 180
	return vec{math.Sin(r), -math.Cos(r)}
}

// limb joints: root (shoulder or hip), middle (elbow or knee), end (wrist
// or ankle), tip (hand or toe), heel (legs only).
type limb struct {
	root, mid, end, tip, heel vec
	a1, a2, a3                float64 // absolute angles of the segments
	behind                    bool    // front view: the arm turned back past the frontal plane (fwd < 0), its hand behind the body
}

// body holds the joint positions of one frame.
type body struct {
	hip, shoulder, neck, head vec
	trunkAbs                  float64 // absolute angle of the torso (hip → shoulder)
	arm, arm2, leg, leg2      limb
	end                       bool    // seen along the body from its feet (front.go)
	back                      bool    // bowed so far that the top of the back faces the viewer (front.go)
	mirrored                  bool    // turned past a quarter turn: facing -x (turn)
	wr                        float64 // the pose's wr: the near hand's lever angle or roller's turn
}

// turn rotates a side-view body about the vertical axis through its hip:
// horizontal offsets shrink by cos(deg), so the figure narrows through a
// quarter turn and faces -x beyond it, while the near and far limbs part
// by the body's width (sin(deg)), so that seen front or back on it shows
// both arms and both legs. The segment angles follow.
func (b *body) turn(deg float64) {
	c := math.Cos(deg * math.Pi / 180)
	sn := math.Sin(deg * math.Pi / 180)
	x0 := b.hip.X
	sx := func(p *vec) { p.X = x0 + (p.X-x0)*c }
	for _, p := range []*vec{&b.shoulder, &b.neck, &b.head} {
		sx(p)
	}
	ang := func(a, b vec) float64 { return math.Atan2(b.X-a.X, -(b.Y-a.Y)) * 180 / math.Pi }
	for i, l := range []*limb{&b.arm, &b.arm2, &b.leg, &b.leg2} {
		w := [4]float64{-shoulderHalf, shoulderHalf, -hipHalf, hipHalf}[i] * sn // as in the front view
		for _, p := range []*vec{&l.root, &l.mid, &l.end, &l.tip, &l.heel} {
			sx(p)
			if p != &l.root {
				p.X += w
			}
		}
		l.a1, l.a2 = ang(l.root, l.mid), ang(l.mid, l.end)
		if l == &b.leg || l == &b.leg2 {
			l.a1, l.a3 = ang(b.hip, l.mid), ang(l.heel, l.tip)
		}
	}
	b.mirrored = c < 0
}

// side is +1 for a figure facing +x and -1 for one turned to face -x.
func (b *body) side() float64 {
	if b.mirrored {
		return -1
	}
	return 1
}

func (b *body) translate(d vec) {
	for _, p := range []*vec{&b.hip, &b.shoulder, &b.neck, &b.head} {
		*p = p.add(d)
	}
	for _, l := range []*limb{&b.arm, &b.arm2, &b.leg, &b.leg2} {
		for _, p := range []*vec{&l.root, &l.mid, &l.end, &l.tip, &l.heel} {
			*p = p.add(d)
		}
	}
}

// lowest returns the lowest y of the body's outline.
func (b *body) lowest() float64 {
	y := b.head.Y - headR
	y = math.Min(y, b.hip.Y-torsoW/2)
	y = math.Min(y, b.shoulder.Y-torsoW/2)
	for _, l := range []*limb{&b.arm, &b.arm2} {
		y = math.Min(y, l.mid.Y-upperArmW/2)
		y = math.Min(y, l.tip.Y-handR)
	}
	for _, l := range []*limb{&b.leg, &b.leg2} {
		y = math.Min(y, l.mid.Y-thighW/2)
		y = math.Min(y, l.end.Y-footW/2)
		y = math.Min(y, l.tip.Y-footW/2)
		y = math.Min(y, l.heel.Y-footW/2)
	}
	return y
}

// pose2body computes the joints of a complete pose with the hip at the origin.
func pose2body(p pose) body {
	var b body
	t := p[fTrunk]
	up := vec{math.Sin(t * math.Pi / 180), math.Cos(t * math.Pi / 180)}
	b.trunkAbs = 180 - t
	b.shoulder = up.mul(torsoLen)
	b.neck = b.shoulder.add(dir(180 - t - p[fHead]*0.5).mul(neckLen))
	b.head = b.neck.add(dir(180 - t - p[fHead]).mul(headR * 0.9))
	if k := p[fTuck]; k != 0 { // the head glides back, the neck leaning back from the shoulders
		back := dir(90 - t).mul(-k)
		b.neck, b.head = b.neck.add(back.mul(0.8)), b.head.add(back)
	}
	// The arm roots follow the shoulder blades: pro along the chest's
	// forward normal, elev up the torso.
	root := b.shoulder.add(dir(90 - t).mul(p[fPro])).add(up.mul(p[fElev]))
	arm := func(sh, el float64) limb {
		var l limb
		l.root = root
		l.a1 = sh - t
		l.mid = l.root.add(dir(l.a1).mul(upperArm))
		l.a2 = l.a1 + el
		l.end = l.mid.add(dir(l.a2).mul(foreArm))
		l.tip = l.end.add(dir(l.a2).mul(2))
		return l
	}
	leg := func(hip, kn, an float64) limb {
		var l limb
		l.a1 = hip - t
		l.mid = dir(l.a1).mul(thighLen)
		l.a2 = l.a1 - kn
		l.end = l.mid.add(dir(l.a2).mul(shankLen))
		l.a3 = l.a2 + 90 - an
		l.tip = l.end.add(dir(l.a3).mul(footLen))
		l.heel = l.end.add(dir(l.a3).mul(-1.5))
		return l
	}
	b.arm = arm(p[fSh], p[fEl])
	b.arm2 = arm(p[fSh2], p[fEl2])
	b.leg = leg(p[fHip], p[fKn], p[fAn])
	b.leg2 = leg(p[fHip2], p[fKn2], p[fAn2])
	return b
}

// joint returns a named joint of the body, for pinning and prop placement.
func (b *body) joint(name string) (vec, bool) {
	switch name {
	case "hip":
		return b.hip, true
	case "shoulder":
		return b.shoulder, true
	case "head":
		return b.head, true
	case "wrist", "hand":
		return b.arm.end, true
	case "elbow":
		return b.arm.mid, true
	case "knee":
		return b.leg.mid, true
	case "ankle":
		return b.leg.end, true
	case "toe":
		return b.leg.tip, true
	case "heel":
		return b.leg.heel, true
	case "wrist2":
		return b.arm2.end, true
	case "knee2":
		return b.leg2.mid, true
	case "ankle2":
		return b.leg2.end, true
	case "toe2":
		return b.leg2.tip, true
	}
	return vec{}, false
}

// solve bends a two-segment limb from root so that its end reaches target.
// bendPos chooses the side of the bend: true when the middle angle is
// positive in the limb's convention (elbow flexion, or knee extension
// direction for legs, see below).
func solve(root, target vec, l1, l2 float64, elbowFirst bool) (a1, a2 float64) {
	d := target.sub(root)
	dist := math.Hypot(d.X, d.Y)
	lo, hi := math.Abs(l1-l2)+1e-3, l1+l2-1e-3
	dist = math.Max(lo, math.Min(hi, dist))
	theta := math.Atan2(d.X, -d.Y) * 180 / math.Pi
	ca := (l1*l1 + dist*dist - l2*l2) / (2 * l1 * dist)
	A := math.Acos(math.Max(-1, math.Min(1, ca))) * 180 / math.Pi
	if elbowFirst {
		a1 = theta - A
	} else {
		a1 = theta + A
	}
	m := root.add(dir(a1).mul(l1))
	e := target.sub(m)
	a2 = math.Atan2(e.X, -e.Y) * 180 / math.Pi
	return a1, a2
}

// reachArm re-aims an arm so its hand is at target.
func reachArm(l *limb, target vec, el float64) {
	a1, a2 := solve(l.root, target, upperArm, foreArm+2, el >= 0)
	l.a1, l.a2 = a1, a2
	l.mid = l.root.add(dir(a1).mul(upperArm))
	l.end = l.mid.add(dir(a2).mul(foreArm))
	l.tip = l.end.add(dir(a2).mul(2))
}

// reachLeg re-aims a leg so its ankle is at target, keeping the foot's
// angle to the shank.
func reachLeg(l *limb, root, target vec, kn float64) {
	rel := l.a3 - l.a2
	a1, a2 := solve(root, target, thighLen, shankLen, kn < 0)
	l.a1, l.a2, l.a3 = a1, a2, a2+rel
	l.mid = root.add(dir(a1).mul(thighLen))
	l.end = l.mid.add(dir(a2).mul(shankLen))
	l.tip = l.end.add(dir(l.a3).mul(footLen))
	l.heel = l.end.add(dir(l.a3).mul(-1.5))
}
