package musclemap

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// pt is a point in view units (one view is viewW × viewH).
type pt struct{ X, Y float64 }

// seg is one segment of an outline: a line to p[0] (cubic false) or a cubic
// Bézier curve with control points p[0], p[1] to p[2] (cubic true).
type seg struct {
	cubic bool
	p     [3]pt
}

func (s seg) end() pt {
	if s.cubic {
		return s.p[2]
	}
	return s.p[0]
}

// outline is one subpath: a start point and segments. Shapes are closed;
// the silhouette half is open (it is closed by its mirror image).
type outline struct {
	start pt
	segs  []seg
}

// parseOutline reads the data's path syntax, a strict subset of SVG's:
// absolute commands M (once, first), L and C, and a final Z when closed is
// true. Every coordinate must lie in the view.
func parseOutline(s string, closed bool) (outline, error) {
	toks := strings.Fields(strings.ReplaceAll(s, ",", " "))
	var o outline
	i := 0
	num := func() (float64, error) {
		if i >= len(toks) {
			return 0, fmt.Errorf("path ends inside a command")
		}
		v, err := strconv.ParseFloat(toks[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("bad number %q", toks[i])
		}
		i++
		return v, nil
	}
	point := func() (pt, error) {
		x, err := num()
		if err != nil {
			return pt{}, err
		}
		y, err := num()
		if err != nil {
			return pt{}, err
		}
		if x < 0 || x > viewW || y < 0 || y > viewH {
			return pt{}, fmt.Errorf("point (%g, %g) is outside the %g×%g view", x, y, float64(viewW), float64(viewH))
		}
		return pt{x, y}, nil
	}
	if len(toks) == 0 || toks[0] != "M" {
		return o, fmt.Errorf("path must start with M")
	}
	i = 1
	var err error
	if o.start, err = point(); err != nil {
		return o, err
	}
	sawZ := false
	for i < len(toks) {
		if sawZ {
			return o, fmt.Errorf("z must be the last command")
		}
		cmd := toks[i]
		i++
		switch cmd {
		case "L":
			p, err := point()
			if err != nil {
				return o, err
			}
			o.segs = append(o.segs, seg{p: [3]pt{p}})
		case "C":
			var s seg
			s.cubic = true
			for k := range 3 {
				if s.p[k], err = point(); err != nil {
					return o, err
				}
			}
			o.segs = append(o.segs, s)
		case "Z":
			sawZ = true
		default:
			return o, fmt.Errorf("unknown command %q (want L, C or Z)", cmd)
		}
	}
	if sawZ != closed {
		if closed {
			return o, fmt.Errorf("shape must end with Z")
		}
		return o, fmt.Errorf("silhouette must not end with Z")
	}
	if len(o.segs) < 2 {
		return o, fmt.Errorf("path has fewer than 2 segments")
	}
	return o, nil
}

// points returns every point of o, control points included.
func (o outline) points() []pt {
	out := []pt{o.start}
	for _, s := range o.segs {
		n := 1
		if s.cubic {
			n = 3
		}
		out = append(out, s.p[:n]...)
	}
	return out
}

// mirror returns o reflected about the view's vertical midline.
func (o outline) mirror() outline {
	m := func(p pt) pt { return pt{viewW - p.X, p.Y} }
	r := outline{start: m(o.start), segs: make([]seg, len(o.segs))}
	for i, s := range o.segs {
		r.segs[i] = seg{cubic: s.cubic, p: [3]pt{m(s.p[0]), m(s.p[1]), m(s.p[2])}}
	}
	return r
}

// reverse returns o traversed the other way.
func (o outline) reverse() outline {
	n := len(o.segs)
	if n == 0 {
		return o
	}
	r := outline{start: o.segs[n-1].end()}
	for i := n - 1; i >= 0; i-- {
		from := o.start
		if i > 0 {
			from = o.segs[i-1].end()
		}
		s := o.segs[i]
		if s.cubic {
			r.segs = append(r.segs, seg{cubic: true, p: [3]pt{s.p[1], s.p[0], from}})
		} else {
			r.segs = append(r.segs, seg{p: [3]pt{from}})
		}
	}
	return r
}

// join returns o followed by the segments of p (whose start is o's end).
func (o outline) join(p outline) outline {
	r := outline{start: o.start, segs: append(append([]seg(nil), o.segs...), p.segs...)}
	return r
}

// flatten returns the outline as a polyline (the closing edge implied),
// cubics split into n pieces.
func (o outline) flatten(n int) []pt {
	out := []pt{o.start}
	cur := o.start
	for _, s := range o.segs {
		if !s.cubic {
			out = append(out, s.p[0])
		} else {
			for k := 1; k <= n; k++ {
				t := float64(k) / float64(n)
				u := 1 - t
				out = append(out, pt{
					u*u*u*cur.X + 3*u*u*t*s.p[0].X + 3*u*t*t*s.p[1].X + t*t*t*s.p[2].X,
					u*u*u*cur.Y + 3*u*u*t*s.p[0].Y + 3*u*t*t*s.p[1].Y + t*t*t*s.p[2].Y,
				})
			}
		}
		cur = s.end()
	}
	return out
}

// round1 rounds to one decimal, the precision of the SVG and of the raster,
// so both draw exactly the same geometry.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// svgNum formats v (already rounded) compactly: "12", "12.5", "-.5".
func svgNum(v float64) string {
	s := strconv.FormatFloat(round1(v), 'f', -1, 64)
	if strings.HasPrefix(s, "0.") {
		s = s[1:]
	} else if strings.HasPrefix(s, "-0.") {
		s = "-" + s[2:]
	}
	return s
}

// appendSVG writes o as SVG path data, offset by dx, closing it.
func (o outline) appendSVG(b *strings.Builder, dx float64) {
	p := func(q pt) {
		b.WriteString(svgNum(q.X + dx))
		b.WriteByte(' ')
		b.WriteString(svgNum(q.Y))
	}
	b.WriteByte('M')
	p(o.start)
	last := byte('M')
	for _, s := range o.segs {
		if s.cubic {
			if last != 'C' {
				b.WriteByte('C')
			} else {
				b.WriteByte(' ')
			}
			p(s.p[0])
			b.WriteByte(' ')
			p(s.p[1])
			b.WriteByte(' ')
			p(s.p[2])
			last = 'C'
		} else {
			if last != 'L' {
				b.WriteByte('L')
			} else {
				b.WriteByte(' ')
			}
			p(s.p[0])
			last = 'L'
		}
	}
	b.WriteByte('Z')
}

// xf maps view units to the caller's logical units.
type xf struct{ dx, x, y, k float64 }

func (t xf) pt(p pt) paint.Point {
	return paint.Point{X: float32(t.x + (round1(p.X)+t.dx)*t.k), Y: float32(t.y + round1(p.Y)*t.k)}
}

// appendPath adds o, closed, to p.
func (t xf) appendPath(p *paint.Path, o outline) {
	p.MoveTo(t.pt(o.start))
	for _, s := range o.segs {
		if s.cubic {
			p.CubeTo(t.pt(s.p[0]), t.pt(s.p[1]), t.pt(s.p[2]))
		} else {
			p.LineTo(t.pt(s.p[0]))
		}
	}
	p.Close()
}

// appendStroke adds to p the outline of o stroked with width w (view
// units), round caps and joins: a disc at every vertex of the flattened
// outline and a quadrilateral along every edge, all wound the same way so
// that the rasterizer's accumulation treats their overlaps as a union, as
// an SVG stroke does.
func (t xf) appendStroke(p *paint.Path, o outline, w float64) {
	pts := o.flatten(8)
	pts = append(pts, pts[0])
	r := w / 2 * t.k
	for i := range len(pts) - 1 {
		a, b := t.pt(pts[i]), t.pt(pts[i+1])
		disc(p, a, float32(r))
		dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
		l := math.Hypot(dx, dy)
		if l < 1e-6 {
			continue
		}
		nx, ny := float32(-dy/l*r), float32(dx/l*r)
		p.MoveTo(paint.Point{X: a.X + nx, Y: a.Y + ny})
		p.LineTo(paint.Point{X: a.X - nx, Y: a.Y - ny})
		p.LineTo(paint.Point{X: b.X - nx, Y: b.Y - ny})
		p.LineTo(paint.Point{X: b.X + nx, Y: b.Y + ny})
		p.Close()
	}
}

// disc adds a circle wound like paint.Ellipse (and like the quadrilaterals
// of appendStroke).
func disc(p *paint.Path, c paint.Point, r float32) {
	const kappa = 0.5522847498
	k := r * kappa
	p.MoveTo(paint.Point{X: c.X + r, Y: c.Y})
	p.CubeTo(paint.Point{X: c.X + r, Y: c.Y + k}, paint.Point{X: c.X + k, Y: c.Y + r}, paint.Point{X: c.X, Y: c.Y + r})
	p.CubeTo(paint.Point{X: c.X - k, Y: c.Y + r}, paint.Point{X: c.X - r, Y: c.Y + k}, paint.Point{X: c.X - r, Y: c.Y})
	p.CubeTo(paint.Point{X: c.X - r, Y: c.Y - k}, paint.Point{X: c.X - k, Y: c.Y - r}, paint.Point{X: c.X, Y: c.Y - r})
	p.CubeTo(paint.Point{X: c.X + k, Y: c.Y - r}, paint.Point{X: c.X + r, Y: c.Y - k}, paint.Point{X: c.X + r, Y: c.Y})
	p.Close()
}
