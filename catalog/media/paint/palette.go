package paint

import "image/color"

// The house colours. Every picture is drawn in these alone (with the
// anti-aliased blends between them and the background), so a GIF's palette
// can hold them all and each product shows one visual language.
var (
	// Background of every picture.
	Background = color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
	// Ground is the floor line under a figure.
	Ground = color.RGBA{0xC9, 0xCF, 0xD8, 0xFF}
	// Body is the figure's near side and the muscle map's outline.
	Body = color.RGBA{0x3A, 0x44, 0x52, 0xFF}
	// BodyFar is the figure's far limbs, lighter so the side view reads in
	// depth.
	BodyFar = color.RGBA{0x8A, 0x94, 0xA3, 0xFF}
	// Skin is the neutral fill of the muscle map's body.
	Skin = color.RGBA{0xE3, 0xE7, 0xEC, 0xFF}
	// Muscle is the muscle map's muscles that an exercise does not work: a
	// blend of Skin and BodyFar, half of each.
	Muscle = color.RGBA{0xB7, 0xBE, 0xC8, 0xFF}
	// Target marks the muscles an exercise mainly works.
	Target = color.RGBA{0xE4, 0x57, 0x2E, 0xFF}
	// Secondary marks the muscles it also engages: a lighter tint of Target.
	Secondary = color.RGBA{0xF4, 0xA6, 0x8C, 0xFF}
	// Iron is bars, plates, dumbbells and kettlebells.
	Iron = color.RGBA{0x1F, 0x29, 0x33, 0xFF}
	// Frame is benches, boxes, racks and machine outlines.
	Frame = color.RGBA{0xB3, 0xBC, 0xC8, 0xFF}
	// Accent is soft implements: bands, balls, ropes.
	Accent = color.RGBA{0x2E, 0x86, 0xAB, 0xFF}
)

// Colours lists the house colours, background first.
var Colours = []color.RGBA{Background, Ground, Body, BodyFar, Skin, Muscle, Target, Secondary, Iron, Frame, Accent}
