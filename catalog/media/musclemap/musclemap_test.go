package musclemap

import (
	"bytes"
	"crypto/sha256"
	"encoding/xml"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

var (
	update = flag.Bool("update", false, "rewrite the golden hashes in testdata")
	render = flag.String("render", "", "write sample PNGs and SVGs to this directory")
)

// samples are a few exercises' highlights, for the goldens and the renders.
var samples = []struct {
	name              string
	target, secondary []string
}{
	{"chest", []string{"pectoralis major"}, []string{"anterior deltoid", "triceps brachii", "pectoralis minor"}},
	{"back", []string{"latissimus dorsi", "middle trapezius", "rhomboids"}, []string{"biceps brachii", "posterior deltoid", "teres major", "lower trapezius", "brachialis"}},
	{"legs", []string{"quadriceps", "gluteus maximus"}, []string{"hamstrings", "adductors", "erector spinae", "soleus"}},
	{"calf", []string{"gastrocnemius"}, []string{"soleus"}},
}

func vocabulary(t *testing.T) []string {
	t.Helper()
	f, err := exercise.Decode(bytes.NewReader(dataset.Default()))
	if err != nil {
		t.Fatal(err)
	}
	return exercise.Names(f.Vocabularies.Muscles)
}

func TestEveryVocabularyMuscleHasARegion(t *testing.T) {
	vocab := vocabulary(t)
	have := Muscles()
	for _, m := range vocab {
		if !slices.Contains(have, m) {
			t.Errorf("muscle %q of the vocabulary has no region in regions.yaml", m)
		}
	}
	for _, m := range have {
		if !slices.Contains(vocab, m) {
			t.Errorf("regions.yaml has a region for %q, not in the vocabulary", m)
		}
	}
	if len(have) != len(vocab) {
		t.Errorf("%d regions for %d vocabulary muscles", len(have), len(vocab))
	}
}

func TestLoadRejects(t *testing.T) {
	good := string(regionsYAML)
	for name, data := range map[string]string{
		"unknown field": strings.Replace(good, "    view: front\n", "    view: front\n    colour: red\n", 1),
		"duplicate":     good + "  - name: soleus\n    view: back\n    shapes: [M 40 190 L 41 195 L 40 196 Z]\n",
		"bad view":      strings.Replace(good, "view: back", "view: side", 1),
		"right side":    good + "  - name: extra\n    view: back\n    shapes: [M 40 190 L 61 195 L 40 196 Z]\n",
		"open shape":    good + "  - name: extra\n    view: back\n    shapes: [M 40 190 L 41 195 L 40 196]\n",
		"bad command":   good + "  - name: extra\n    view: back\n    shapes: [M 40 190 Q 41 195 L 40 196 Z]\n",
		"outside view":  good + "  - name: extra\n    view: back\n    shapes: [M 40 190 L 41 295 L 40 196 Z]\n",
	} {
		if _, err := load([]byte(data)); err == nil {
			t.Errorf("%s: load succeeded", name)
		}
	}
	if _, err := load(regionsYAML); err != nil {
		t.Fatal(err)
	}
}

// inside reports whether p is inside the polygon poly (even-odd).
func inside(poly []pt, p pt) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

// distToPolyline is the distance from p to the closed polyline poly.
func distToPolyline(poly []pt, p pt) float64 {
	d := math.Inf(1)
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		dx, dy := b.X-a.X, b.Y-a.Y
		l := dx*dx + dy*dy
		u := 0.0
		if l > 0 {
			u = max(0, min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/l))
		}
		d = min(d, math.Hypot(p.X-a.X-u*dx, p.Y-a.Y-u*dy))
	}
	return d
}

// Every muscle lies on the body: no point of its outline is outside the
// silhouette by more than the outline's half width.
func TestRegionsInsideSilhouette(t *testing.T) {
	sil := art.silhouette.flatten(16)
	for _, m := range art.muscles {
		for _, o := range m.outlines {
			for _, p := range o.flatten(16) {
				if !inside(sil, p) && distToPolyline(sil, p) > outlineWidth/2 {
					t.Errorf("%s: point (%.1f, %.1f) is outside the body", m.name, p.X, p.Y)
					break
				}
			}
		}
	}
}

func TestSVG(t *testing.T) {
	for _, s := range samples {
		a, b := SVG(s.target, s.secondary), SVG(s.target, s.secondary)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: SVG is not deterministic", s.name)
		}
		d := xml.NewDecoder(bytes.NewReader(a))
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG is not XML: %v", s.name, err)
			}
			if e, ok := tok.(xml.StartElement); ok {
				if e.Name.Local == "script" || e.Name.Local == "image" {
					t.Errorf("%s: SVG has a <%s>", s.name, e.Name.Local)
				}
				for _, at := range e.Attr {
					if (at.Name.Local == "href" && !strings.HasPrefix(at.Value, "#")) || strings.HasPrefix(at.Name.Local, "on") {
						t.Errorf("%s: SVG has attribute %s", s.name, at.Name.Local)
					}
				}
			}
		}
		if len(a) > 15000 {
			t.Errorf("%s: SVG is %d bytes", s.name, len(a))
		}
	}
	if !bytes.Equal(SVG(nil, []string{"no such muscle"}), SVG(nil, nil)) {
		t.Error("an unknown name changed the SVG")
	}
	golden(t, "svg-chest.sha256", SVG(samples[0].target, samples[0].secondary))
	golden(t, "svg-legs.sha256", SVG(samples[2].target, samples[2].secondary))
}

// golden compares the sha256 of data with testdata/name, or rewrites it
// with -update.
func golden(t *testing.T, name string, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	got := fmt.Sprintf("%x", sum[:]) + "\n"
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: sha256 %s, want %s (Version %s; bump it and run go test -update if the change is intended)",
			name, strings.TrimSpace(got), strings.TrimSpace(string(want)), Version)
	}
}

// raster draws the map h pixels high.
func raster(h int, target, secondary []string) *paint.Canvas {
	w, vh := Size()
	k := float32(h) / vh
	c := paint.New(int(math.Ceil(float64(w*k))), h, 1, paint.Background)
	Draw(c, 0, 0, float32(h), target, secondary)
	return c
}

// Highlighting a muscle turns its region to the Target colour: for every
// muscle and every shape (both sides), the pixels well inside the shape
// (more than one unit from its edge, clear of the seams) become
// paint.Target, at least three quarters of them (muscles drawn later may
// overlap an edge), the centroid's among them, so no region is hidden under
// another.
func TestDrawHighlightsEveryMuscle(t *testing.T) {
	const h = 880 // four pixels per unit
	k := float64(h) / viewH
	for _, m := range art.muscles {
		img := raster(h, []string{m.name}, nil).Image()
		base := raster(h, nil, nil).Image()
		for si, o := range m.outlines {
			poly := o.flatten(16)
			var cx, cy, area float64
			total, hit := 0, 0
			minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for i, a := range poly {
				b := poly[(i+1)%len(poly)]
				cr := a.X*b.Y - b.X*a.Y
				area += cr
				cx += (a.X + b.X) * cr
				cy += (a.Y + b.Y) * cr
				minX, maxX = min(minX, a.X), max(maxX, a.X)
				minY, maxY = min(minY, a.Y), max(maxY, a.Y)
			}
			cx, cy = cx/(3*area), cy/(3*area)
			dx := float64(m.view * viewW)
			for py := int(minY * k); py <= int(maxY*k)+1; py++ {
				for px := int((minX + dx) * k); px <= int((maxX+dx)*k)+1; px++ {
					p := pt{(float64(px)+0.5)/k - dx, (float64(py) + 0.5) / k}
					if !inside(poly, p) || distToPolyline(poly, p) < 1 {
						continue
					}
					total++
					if img.RGBAAt(px, py) == paint.Target {
						hit++
					} else if base.RGBAAt(px, py) == paint.Target {
						t.Fatalf("pixel (%d, %d) is Target with nothing highlighted", px, py)
					}
				}
			}
			if total < 4 || float64(hit) < 0.75*float64(total) {
				t.Errorf("%s shape %d: %d of %d inner pixels are Target", m.name, si+1, hit, total)
			}
			if inside(poly, pt{cx, cy}) && distToPolyline(poly, pt{cx, cy}) > 1 {
				px, py := int((cx+dx)*k), int(cy*k)
				if got := img.RGBAAt(px, py); got != paint.Target {
					t.Errorf("%s shape %d: centroid pixel (%d, %d) is %v, want Target", m.name, si+1, px, py, got)
				}
			}
		}
	}
}

// Draw paints its flat areas in the palette's colours and Muscle (other
// colours are anti-aliased edges, a minority).
func TestDrawColours(t *testing.T) {
	img := raster(220, samples[0].target, samples[0].secondary).Image()
	allowed := paint.Colours
	counts := map[color.RGBA]int{}
	for i := 0; i < len(img.Pix); i += 4 {
		counts[color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}]++
	}
	for _, c := range []color.RGBA{paint.Skin, paint.Body, paint.Target, paint.Secondary, Muscle} {
		if counts[c] == 0 {
			t.Errorf("colour %v not used", c)
		}
	}
	flat := 0
	for _, c := range allowed {
		flat += counts[c]
	}
	if n := len(img.Pix) / 4; flat < n*3/4 {
		t.Errorf("only %d of %d pixels are palette colours", flat, n)
	}
}

func TestDrawGolden(t *testing.T) {
	c := raster(240, samples[1].target, samples[1].secondary)
	golden(t, "raster-back-240.sha256", c.Image().Pix)
}

// Draw honours the position and the height.
func TestDrawPlacement(t *testing.T) {
	c := paint.New(300, 200, 2, paint.Background)
	Draw(c, 10, 5, 80, nil, nil)
	w, h := Size()
	bx1, by1 := 2*(10+w*80/h), float32(2*(5+80))
	img := c.Image()
	for y := range 200 {
		for x := range 300 {
			fx, fy := float32(x), float32(y)
			if (fx < 20-1 || fy < 10-1 || fx > bx1+1 || fy > by1+1) && img.RGBAAt(x, y) != paint.Background {
				t.Fatalf("pixel (%d, %d) outside the map's box is painted", x, y)
			}
		}
	}
}

// TestRender writes the samples, when asked with -render DIR.
func TestRender(t *testing.T) {
	if *render == "" {
		t.Skip("no -render directory")
	}
	for _, s := range samples {
		for _, h := range []int{120, 480} {
			var b bytes.Buffer
			if err := png.Encode(&b, raster(h, s.target, s.secondary).Image()); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(*render, s.name+"-"+strconv.Itoa(h)+".png")
			if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(*render, s.name+".svg"), SVG(s.target, s.secondary), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var even, odd []string
	for i, m := range Muscles() {
		if i%2 == 0 {
			even = append(even, m)
		} else {
			odd = append(odd, m)
		}
	}
	for _, z := range []struct {
		name string
		x    float32
	}{{"zoom-front", 10}, {"zoom-back", 110}} {
		k := float32(2000.0 / viewH)
		c := paint.New(int(80*k), int(100*k), 1, paint.Background)
		Draw(c, -z.x*k, -22*k, 2000, even, odd)
		var b bytes.Buffer
		if err := png.Encode(&b, c.Image()); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*render, z.name+".png"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, hl := range map[string][2][]string{"plain": {}, "all": {even, odd}} {
		var b bytes.Buffer
		if err := png.Encode(&b, raster(1000, hl[0], hl[1]).Image()); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*render, name+"-1000.png"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
