package main

import (
	"flag"
	"fmt"
	"image"
	"image/draw"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/media"
	"github.com/exercisedb/exercisedb/catalog/media/encode"
	"github.com/exercisedb/exercisedb/catalog/media/musclemap"
	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// A contact sheet's cell shows one record: three moments of its
// demonstration (the first frame, a third of the way, the poster frame),
// its muscle map, and its name under them, marked "(still)" when it has no
// true demonstration yet.
const (
	sheetFrames = 3
	labelHeight = 18
	cellGap     = 8
)

func sheet(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mediagen sheet", flag.ContinueOnError)
	fs.SetOutput(stdout)
	out := fs.String("out", "sheet.png", "PNG `file` to write")
	data := fs.String("data", "", "catalogue `file`; empty: the embedded catalogue")
	n := fs.Int("n", 24, "how many records, picked at random")
	seed := fs.Uint64("seed", 1, "seed of the random pick: the same seed picks the same records")
	ids := fs.String("ids", "", "comma-separated exercise `ids` to show instead of a random pick")
	height := fs.Int("height", 160, "height of each picture in `pixels`")
	cols := fs.Int("cols", 2, "records per row")
	if err := fs.Parse(args); err != nil {
		return helpOr(err)
	}
	c, lib, err := library(*data)
	if err != nil {
		return err
	}
	var xs []*exercise.Exercise
	if *ids != "" {
		for _, id := range strings.Split(*ids, ",") {
			x, err := c.Exercise(strings.TrimSpace(id))
			if err != nil {
				return fmt.Errorf("sheet: -ids: %q: %w", id, err)
			}
			xs = append(xs, &x)
		}
	} else {
		for x := range c.All() {
			xs = append(xs, x)
		}
		r := rand.New(rand.NewPCG(*seed, 0))
		r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		xs = xs[:min(*n, len(xs))]
	}
	img, still := contactSheet(lib, xs, *height, max(*cols, 1))
	b, err := encode.PNG(img)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d records, %d of them a still pose\n", *out, len(xs), still)
	return nil
}

// contactSheet draws xs in rows of cols cells, pictures h pixels high, and
// says how many records show a still pose.
func contactSheet(lib *media.Library, xs []*exercise.Exercise, h, cols int) (*image.RGBA, int) {
	mw, mh := musclemap.Size()
	mapW := int(float32(h) * mw / mh)
	cellW := sheetFrames*h + mapW + cellGap
	cellH := h + labelHeight + cellGap
	rows := (len(xs) + cols - 1) / cols
	img := paint.New(cols*cellW+cellGap, max(rows, 1)*cellH+cellGap, 1, paint.Ground).Image()
	still := 0
	for i, x := range xs {
		s, _ := lib.Subject(x.MediaKey, lib.Digest(x.MediaKey))
		if s == nil {
			continue
		}
		ox, oy := cellGap+(i%cols)*cellW, cellGap+(i/cols)*cellH
		frames := s.Frames(h)
		picks := []int{0, len(frames) / 3, s.Demo.PosterFrame()}
		if !s.Demo.Faithful() {
			still++
			picks = picks[:1]
		}
		for j, k := range picks {
			r := image.Rect(ox+j*h, oy, ox+(j+1)*h, oy+h)
			draw.Draw(img, r, frames[min(k, len(frames)-1)], image.Point{}, draw.Src)
		}
		bg := image.Rect(ox+sheetFrames*h, oy, ox+sheetFrames*h+mapW, oy+h)
		draw.Draw(img, bg, image.NewUniform(paint.Background), image.Point{}, draw.Src)
		musclemap.Draw(paint.On(img, 1, 0, 0), float32(bg.Min.X), float32(oy), float32(h), s.Target, s.Secondary)
		label := x.Name
		if !s.Demo.Faithful() {
			label += " (still)"
		}
		d := font.Drawer{Dst: img, Src: image.NewUniform(paint.Body), Face: basicfont.Face7x13,
			Dot: fixed.P(ox+2, oy+h+labelHeight-5)}
		d.DrawString(fit(label, (cellW-cellGap)/7))
	}
	return img, still
}

// fit cuts s to n characters.
func fit(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:max(n-3, 0)] + "..."
}
