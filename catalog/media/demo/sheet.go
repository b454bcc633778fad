package demo

import (
	"image"
	"image/draw"

	"github.com/exercisedb/exercisedb/catalog/media/paint"
)

// ContactSheet lays out the poster frames of demos in a grid of cols
// columns, each cell×cell pixels, for review. Labels are not drawn (the
// caller keeps them in order); a thin frame separates the cells.
func ContactSheet(demos []Demo, labels []string, cols, cell int) *image.RGBA {
	if cols < 1 {
		cols = 1
	}
	rows := (len(demos) + cols - 1) / cols
	img := image.NewRGBA(image.Rect(0, 0, cols*cell, max(rows, 1)*cell))
	fill(img, paint.Frame)
	for i, d := range demos {
		fr := d.Frames(cell - 2)
		f := fr[d.PosterFrame()]
		x, y := (i%cols)*cell+1, (i/cols)*cell+1
		draw.Draw(img, image.Rect(x, y, x+cell-2, y+cell-2), f, image.Point{}, draw.Src)
	}
	_ = labels
	return img
}

// FilmStrip lays out every frame of one demo in a row, for review.
func FilmStrip(d Demo, cell, every int) *image.RGBA {
	fr := d.Frames(cell - 2)
	if every < 1 {
		every = 1
	}
	n := (len(fr) + every - 1) / every
	img := image.NewRGBA(image.Rect(0, 0, n*cell, cell))
	fill(img, paint.Frame)
	for i := 0; i < n; i++ {
		x := i*cell + 1
		draw.Draw(img, image.Rect(x, 1, x+cell-2, cell-1), fr[i*every], image.Point{}, draw.Src)
	}
	return img
}
