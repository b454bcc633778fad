package encode

import (
	"bytes"
	"image"
	"image/png"
)

// PNG encodes a still, best compression: stills are made once and served
// many times.
func PNG(img *image.RGBA) ([]byte, error) {
	// The house colours fit a palette, which makes the file about a
	// quarter of the RGBA one.
	p := quantizer{}.paletted(img, nil)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
