// Package musclemap draws the catalogue's muscle map: the front and the back
// view of one neutral adult body, side by side, with a flat region for every
// muscle of the catalogue's muscle vocabulary. Target muscles are filled in
// paint.Target, secondary muscles in paint.Secondary, every other muscle in
// the neutral Muscle tone, on a paint.Skin silhouette outlined in paint.Body.
//
// The artwork is data, not code: regions.yaml (embedded) holds the
// silhouette and every muscle's outline, drawn for this package. SVG and
// Draw render the same data, rounded to the same precision, so the vector
// and the raster pictures cannot disagree.
//
// Deep muscles (those marked deep in the data: subscapularis, pectoralis
// minor, supraspinatus, internal obliques, transverse abdominis, quadratus
// lumborum, gluteus minimus) lie under others, so they have a region where
// they lie under the surface, drawn over the superficial muscles only when
// they are highlighted: a coach reads them as "that area". A deep muscle
// that is not highlighted is not drawn, so the superficial muscle above it
// shows whole, in the neutral tone.
package musclemap

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// Version names the artwork; bump it whenever any output could change.
const Version = "musclemap-1"

// Muscle is the neutral tone of muscles that are neither targets nor
// secondaries.
var Muscle = paint.Muscle

// View geometry, in logical units: each view is viewW × viewH, the front
// view on the left, the back view to its right.
const (
	viewW = 100
	viewH = 220
)

// Stroke widths, in logical units.
const (
	outlineWidth = 1.1 // silhouette outline, paint.Body
	seamWidth    = 0.7 // seams between muscles, paint.Skin
)

// Size returns the map's aspect: width and height in logical units (so
// callers can lay it out).
func Size() (w, h float32) { return 2 * viewW, viewH }

// Muscles lists the muscles the map has a region for, in the data's order.
func Muscles() []string {
	out := make([]string, len(art.muscles))
	for i, m := range art.muscles {
		out[i] = m.name
	}
	return out
}

// tone is a muscle's highlight.
type tone uint8

const (
	neutral tone = iota
	secondary
	target
)

// tones returns each muscle's highlight; a muscle named in both lists is a
// target. Unknown names are ignored.
func tones(targetNames, secondaryNames []string) []tone {
	t := make([]tone, len(art.muscles))
	for _, n := range secondaryNames {
		if i, ok := art.index[n]; ok {
			t[i] = secondary
		}
	}
	for _, n := range targetNames {
		if i, ok := art.index[n]; ok {
			t[i] = target
		}
	}
	return t
}

func (t tone) colour() color.RGBA {
	switch t {
	case target:
		return paint.Target
	case secondary:
		return paint.Secondary
	}
	return Muscle
}

// visible reports whether muscle i is drawn with highlight t.
func visible(i int, t tone) bool { return !art.muscles[i].deep || t != neutral }

// Draw paints the map on c, its top-left corner at logical (x, y), scaled so
// that it is h logical units high.
func Draw(c *paint.Canvas, x, y, h float32, target, secondary []string) {
	k := float64(h) / viewH
	t := tones(target, secondary)
	for v := range 2 {
		f := xf{dx: float64(v * viewW), x: float64(x), y: float64(y), k: k}
		var sil paint.Path
		f.appendPath(&sil, art.silhouette)
		c.Fill(sil, paint.Skin)
		for i, m := range art.muscles {
			if m.view != v || !visible(i, t[i]) {
				continue
			}
			var fill, seam paint.Path
			for _, o := range m.outlines {
				f.appendPath(&fill, o)
				f.appendStroke(&seam, o, seamWidth)
			}
			c.Fill(fill, t[i].colour())
			c.Fill(seam, paint.Skin)
		}
		var line paint.Path
		f.appendStroke(&line, art.silhouette, outlineWidth)
		c.Fill(line, paint.Body)
	}
}

func hexColour(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// SVG returns the map (front and back views side by side, a viewBox, no
// external references, no scripts, deterministic bytes) with targets and
// secondaries highlighted. Unknown names are ignored.
//
// Each view is a group (the back view translated by the view width); the
// muscles' left sides are drawn once and mirrored by a <use> of their group.
// The groups' ids are derived from Version and the highlights, so that two
// different maps inlined in one HTML page cannot mix their groups up.
func SVG(target, secondary []string) []byte {
	t := tones(target, secondary)
	key := []byte(Version)
	for _, x := range t {
		key = append(key, byte('0'+x))
	}
	sum := sha256.Sum256(key)
	idBase := "mm" + hex.EncodeToString(sum[:4])
	var b strings.Builder
	w, h := Size()
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="%g" height="%g">`, w, h, w, h)
	b.WriteString("<title>Muscle map, front and back</title>")
	for v, id := range []string{idBase + "f", idBase + "b"} {
		if v == 0 {
			b.WriteString(`<g>`)
		} else {
			fmt.Fprintf(&b, `<g transform="translate(%d)">`, v*viewW)
		}
		b.WriteString(`<path fill="` + hexColour(paint.Skin) + `" d="`)
		art.silhouette.appendSVG(&b, 0)
		b.WriteString(`"/>`)
		fmt.Fprintf(&b, `<g id="%s" stroke="%s" stroke-width="%g" stroke-linejoin="round" stroke-linecap="round">`, id, hexColour(paint.Skin), seamWidth)
		for i, m := range art.muscles {
			if m.view != v || !visible(i, t[i]) {
				continue
			}
			b.WriteString(`<path fill="` + hexColour(t[i].colour()) + `" d="`)
			for _, o := range m.outlines[:m.left] {
				o.appendSVG(&b, 0)
			}
			b.WriteString(`"><title>` + m.name + `</title></path>`)
		}
		fmt.Fprintf(&b, `</g><use href="#%s" transform="matrix(-1 0 0 1 %d 0)"/>`, id, viewW)
		fmt.Fprintf(&b, `<path fill="none" stroke="%s" stroke-width="%g" stroke-linejoin="round" d="`, hexColour(paint.Body), outlineWidth)
		art.silhouette.appendSVG(&b, 0)
		b.WriteString(`"/></g>`)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}
