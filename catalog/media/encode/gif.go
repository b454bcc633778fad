// Package encode turns drawn frames into the files the catalogue serves:
// looping GIFs, PNG stills and H.264 MP4s. Every encoder is deterministic,
// so the same frames always give the same bytes.
package encode

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// palette holds the house colours, the anti-aliased blends of each with the
// background and with each other, and a transparent entry that later frames
// use for the pixels they leave unchanged. Drawings use the house colours
// only, so nearest-colour mapping loses nothing a viewer would see and
// needs no dithering, whose noise would cost bytes in every frame.
var palette = func() color.Palette {
	p := color.Palette{color.RGBA{}} // index 0: transparent
	seen := map[color.RGBA]bool{}
	add := func(c color.RGBA) {
		if !seen[c] {
			seen[c] = true
			p = append(p, c)
		}
	}
	for _, c := range paint.Colours {
		add(c)
	}
	ink := paint.Colours[1:]
	for _, c := range ink {
		for k := 1; k < 8; k++ {
			add(mix(paint.Background, c, float64(k)/8))
		}
	}
	for i, a := range ink {
		for _, b := range ink[i+1:] {
			for k := 1; k < 4; k++ {
				add(mix(a, b, float64(k)/4))
			}
		}
	}
	return p
}()

const transparent = 0

func mix(a, b color.RGBA, t float64) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 0xFF}
}

// quantizer maps RGBA pixels to palette indexes, remembering each colour
// it has seen: a drawing has few distinct colours. Each GIF has its own,
// so that encoders running at once share nothing.
type quantizer map[uint32]uint8

// paletted maps src into dst if dst has its bounds, else into a new image.
func (q quantizer) paletted(src *image.RGBA, dst *image.Paletted) *image.Paletted {
	b := src.Bounds()
	if dst == nil || dst.Rect != b {
		dst = image.NewPaletted(b, palette)
	}
	var lastRGBA uint32 = 1 // no opaque pixel has this value
	var last uint8
	for y := range b.Dy() {
		row := src.Pix[y*src.Stride : y*src.Stride+b.Dx()*4]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+b.Dx()]
		for x := range out {
			p := row[x*4 : x*4+4 : x*4+4]
			v := uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
			if v != lastRGBA {
				i, ok := q[v]
				if !ok {
					i = uint8(nearest(color.RGBA{p[0], p[1], p[2], 0xFF}))
					q[v] = i
				}
				lastRGBA, last = v, i
			}
			out[x] = last
		}
	}
	return dst
}

// nearest is the opaque palette entry closest to c (squared RGB distance,
// weighted towards green as the eye is).
func nearest(c color.RGBA) int {
	best, bestD := 1, int(^uint(0)>>1)
	for i, pc := range palette[1:] {
		p := pc.(color.RGBA)
		dr, dg, db := int(c.R)-int(p.R), int(c.G)-int(p.G), int(c.B)-int(p.B)
		d := 2*dr*dr + 4*dg*dg + 3*db*db
		if d < bestD {
			best, bestD = i+1, d
		}
	}
	return best
}

// GIF encodes an animated GIF that loops forever, a frame at a time: it
// keeps the palette form of the last frame only, and of each later frame
// just the rectangle that changed, with the unchanged pixels in it
// transparent.
type GIF struct {
	g     gif.GIF
	delay int
	prev  *image.Paletted
	spare *image.Paletted // a frame's storage for the next (never the first's, which the GIF holds)
	quant quantizer
}

// NewGIF starts a GIF showing each frame delay hundredths of a second.
func NewGIF(delay int) *GIF { return &GIF{delay: delay, quant: quantizer{}} }

// Add appends a frame; the GIF keeps nothing of f itself.
func (e *GIF) Add(f *image.RGBA) {
	cur := e.quant.paletted(f, e.spare)
	img := cur
	e.spare = nil
	if e.prev != nil {
		img = delta(e.prev, cur)
		if e.prev != e.g.Image[0] {
			e.spare = e.prev
		}
	}
	e.g.Image = append(e.g.Image, img)
	e.g.Delay = append(e.g.Delay, e.delay)
	e.g.Disposal = append(e.g.Disposal, gif.DisposalNone)
	e.prev = cur
}

// Encode returns the file. A single frame is a still, shown once.
func (e *GIF) Encode() ([]byte, error) {
	if len(e.g.Image) == 1 {
		e.g.LoopCount = -1
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &e.g); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// delta returns the part of cur that differs from prev: the bounding
// rectangle of the changed pixels, the others in it transparent. A frame
// identical to the one before becomes a single transparent pixel.
func delta(prev, cur *image.Paletted) *image.Paletted {
	b := cur.Bounds()
	minX, minY, maxX, maxY := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		o := (y - b.Min.Y) * cur.Stride
		pr, cr := prev.Pix[o:o+b.Dx()], cur.Pix[o:o+b.Dx()]
		if bytes.Equal(pr, cr) {
			continue
		}
		minY, maxY = min(minY, y), max(maxY, y)
		for x := range cr {
			if pr[x] != cr[x] {
				minX, maxX = min(minX, x+b.Min.X), max(maxX, x+b.Min.X)
			}
		}
	}
	if maxX < minX {
		minX, minY, maxX, maxY = b.Min.X, b.Min.Y, b.Min.X, b.Min.Y
	}
	r := image.Rect(minX, minY, maxX+1, maxY+1)
	out := image.NewPaletted(r, palette)
	for y := range r.Dy() {
		o := (r.Min.Y-b.Min.Y+y)*cur.Stride + r.Min.X - b.Min.X
		pr, cr := prev.Pix[o:o+r.Dx()], cur.Pix[o:o+r.Dx()]
		dst := out.Pix[y*out.Stride:][:len(cr)]
		for x, c := range cr {
			if c == pr[x] {
				c = transparent
			}
			dst[x] = c
		}
	}
	return out
}
