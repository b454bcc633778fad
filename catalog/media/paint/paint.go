// Package paint draws the catalogue's pictures: filled, anti-aliased shapes
// (paths, circles, thick rounded strokes) on an RGBA canvas whose logical
// units are scaled to pixels, in the house colours of palette.go. It is the
// one place that rasterizes, so every picture shares its edges and colours,
// and it is deterministic: the same calls give the same pixels.
package paint

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/vector"
)

// Point is a position in logical units: x to the right, y down.
type Point struct{ X, Y float32 }

// Canvas is an image with a logical coordinate system: a logical point
// (x, y) lands on pixel (x*Scale + OffsetX, y*Scale + OffsetY).
type Canvas struct {
	img              *image.RGBA
	Scale            float32
	OffsetX, OffsetY float32
	r                vector.Rasterizer
}

// New returns a w×h pixel canvas filled with bg, scaled by scale pixels per
// logical unit.
func New(w, h int, scale float32, bg color.RGBA) *Canvas {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	return &Canvas{img: img, Scale: scale}
}

// On returns a canvas drawing on img, scaled by scale pixels per logical
// unit, from the pixel offset (ox, oy).
func On(img *image.RGBA, scale, ox, oy float32) *Canvas {
	return &Canvas{img: img, Scale: scale, OffsetX: ox, OffsetY: oy}
}

// Image returns the pixels drawn so far (not a copy).
func (c *Canvas) Image() *image.RGBA { return c.img }

// Path is an outline in logical units, made of closed sub-paths.
type Path struct{ ops []op }

type opKind uint8

const (
	opMove opKind = iota
	opLine
	opCube
	opClose
)

type op struct {
	kind opKind
	p    [3]Point
}

// MoveTo starts a sub-path at p.
func (p *Path) MoveTo(pt Point) { p.ops = append(p.ops, op{kind: opMove, p: [3]Point{pt}}) }

// LineTo adds a straight segment to pt.
func (p *Path) LineTo(pt Point) { p.ops = append(p.ops, op{kind: opLine, p: [3]Point{pt}}) }

// CubeTo adds a cubic Bézier segment with control points c1, c2 ending at pt.
func (p *Path) CubeTo(c1, c2, pt Point) {
	p.ops = append(p.ops, op{kind: opCube, p: [3]Point{c1, c2, pt}})
}

// Close closes the current sub-path.
func (p *Path) Close() { p.ops = append(p.ops, op{kind: opClose}) }

// Polygon returns the closed path through pts.
func Polygon(pts ...Point) Path {
	var p Path
	for i, pt := range pts {
		if i == 0 {
			p.MoveTo(pt)
		} else {
			p.LineTo(pt)
		}
	}
	p.Close()
	return p
}

// kappa places the control points of a cubic Bézier quarter circle.
const kappa = 0.5522847498

// Ellipse returns the path of an axis-aligned ellipse centred on c.
func Ellipse(c Point, rx, ry float32) Path {
	var p Path
	kx, ky := rx*kappa, ry*kappa
	p.MoveTo(Point{c.X + rx, c.Y})
	p.CubeTo(Point{c.X + rx, c.Y + ky}, Point{c.X + kx, c.Y + ry}, Point{c.X, c.Y + ry})
	p.CubeTo(Point{c.X - kx, c.Y + ry}, Point{c.X - rx, c.Y + ky}, Point{c.X - rx, c.Y})
	p.CubeTo(Point{c.X - rx, c.Y - ky}, Point{c.X - kx, c.Y - ry}, Point{c.X, c.Y - ry})
	p.CubeTo(Point{c.X + kx, c.Y - ry}, Point{c.X + rx, c.Y - ky}, Point{c.X + rx, c.Y})
	p.Close()
	return p
}

// Capsule returns the outline of a stroke from a to b, w wide, with round
// ends: a pictogram's limb.
func Capsule(a, b Point, w float32) Path {
	r := w / 2
	dx, dy := b.X-a.X, b.Y-a.Y
	l := float32(math.Hypot(float64(dx), float64(dy)))
	if l < 1e-4 {
		return Ellipse(a, r, r)
	}
	// Unit vector along the stroke and its normal.
	ux, uy := dx/l, dy/l
	nx, ny := -uy, ux
	var p Path
	p.MoveTo(Point{a.X + nx*r, a.Y + ny*r})
	p.LineTo(Point{b.X + nx*r, b.Y + ny*r})
	// Half circle around b, from +n through +u to -n, as two quarters.
	arc := func(c Point, sx, sy, ex, ey float32) {
		// Quarter from direction s to direction e (both unit, orthogonal).
		p.CubeTo(
			Point{c.X + (sx+ex*kappa)*r, c.Y + (sy+ey*kappa)*r},
			Point{c.X + (ex+sx*kappa)*r, c.Y + (ey+sy*kappa)*r},
			Point{c.X + ex*r, c.Y + ey*r})
	}
	arc(b, nx, ny, ux, uy)
	arc(b, ux, uy, -nx, -ny)
	p.LineTo(Point{a.X - nx*r, a.Y - ny*r})
	arc(a, -nx, -ny, -ux, -uy)
	arc(a, -ux, -uy, nx, ny)
	p.Close()
	return p
}

// Fill paints the inside of p (non-zero winding) in col, anti-aliased.
func (c *Canvas) Fill(p Path, col color.RGBA) {
	if len(p.ops) == 0 {
		return
	}
	// Rasterize only the path's bounding box: the rasterizer's cost grows
	// with its area, and most shapes are small.
	minX, minY := float32(math.MaxFloat32), float32(math.MaxFloat32)
	maxX, maxY := -minX, -minY
	for _, o := range p.ops {
		n := 1
		if o.kind == opCube {
			n = 3
		} else if o.kind == opClose {
			n = 0
		}
		for _, pt := range o.p[:n] {
			x, y := c.px(pt)
			minX, maxX = min(minX, x), max(maxX, x)
			minY, maxY = min(minY, y), max(maxY, y)
		}
	}
	b := image.Rect(int(math.Floor(float64(minX))), int(math.Floor(float64(minY))),
		int(math.Ceil(float64(maxX)))+1, int(math.Ceil(float64(maxY)))+1).Intersect(c.img.Bounds())
	if b.Empty() {
		return
	}
	c.r.Reset(b.Dx(), b.Dy())
	ox, oy := float32(b.Min.X), float32(b.Min.Y)
	open := false
	for _, o := range p.ops {
		switch o.kind {
		case opMove:
			if open {
				c.r.ClosePath()
			}
			x, y := c.px(o.p[0])
			c.r.MoveTo(x-ox, y-oy)
			open = true
		case opLine:
			x, y := c.px(o.p[0])
			c.r.LineTo(x-ox, y-oy)
		case opCube:
			x1, y1 := c.px(o.p[0])
			x2, y2 := c.px(o.p[1])
			x3, y3 := c.px(o.p[2])
			c.r.CubeTo(x1-ox, y1-oy, x2-ox, y2-oy, x3-ox, y3-oy)
		case opClose:
			c.r.ClosePath()
			open = false
		}
	}
	if open {
		c.r.ClosePath()
	}
	c.r.DrawOp = draw.Over
	c.r.Draw(c.img, b, image.NewUniform(col), image.Point{})
}

func (c *Canvas) px(p Point) (float32, float32) {
	return p.X*c.Scale + c.OffsetX, p.Y*c.Scale + c.OffsetY
}

// Circle paints a disc of radius r around p.
func (c *Canvas) Circle(p Point, r float32, col color.RGBA) { c.Fill(Ellipse(p, r, r), col) }

// Stroke paints a straight stroke from a to b, w wide, with round ends.
func (c *Canvas) Stroke(a, b Point, w float32, col color.RGBA) { c.Fill(Capsule(a, b, w), col) }

// Rect paints the axis-aligned rectangle with corners a and b.
func (c *Canvas) Rect(a, b Point, col color.RGBA) {
	c.Fill(Polygon(a, Point{b.X, a.Y}, b, Point{a.X, b.Y}), col)
}
