package musclemap

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // for regions.yaml
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed regions.yaml
var regionsYAML []byte

// file is the layout of regions.yaml.
type file struct {
	Silhouette string   `yaml:"silhouette"`
	Muscles    []region `yaml:"muscles"`
}

type region struct {
	Name   string   `yaml:"name"`
	View   string   `yaml:"view"`
	Deep   bool     `yaml:"deep"`
	Shapes []string `yaml:"shapes"`
}

// muscle is a decoded region: outlines hold the drawn shapes, left side and
// its mirror image.
type muscle struct {
	name     string
	view     int // 0 front, 1 back
	deep     bool
	outlines []outline
	left     int // outlines[:left] are the data's shapes, the rest mirrors
}

type artwork struct {
	silhouette outline
	muscles    []muscle
	index      map[string]int
}

var art = mustLoad(regionsYAML)

func mustLoad(data []byte) *artwork {
	a, err := load(data)
	if err != nil {
		panic("musclemap: regions.yaml: " + err.Error())
	}
	return a
}

// load decodes and validates the regions: known fields only, every muscle
// once, a known view, well-formed shapes inside the view.
func load(data []byte) (*artwork, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if err := dec.Decode(new(any)); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	a := &artwork{index: map[string]int{}}
	half, err := parseOutline(f.Silhouette, false)
	if err != nil {
		return nil, fmt.Errorf("silhouette: %w", err)
	}
	end := half.segs[len(half.segs)-1].end()
	if half.start.X != viewW/2 || end.X != viewW/2 {
		return nil, errors.New("silhouette: the left half must start and end on the midline x=50")
	}
	a.silhouette = half.join(half.mirror().reverse())
	if len(f.Muscles) == 0 {
		return nil, errors.New("no muscles")
	}
	for _, r := range f.Muscles {
		if r.Name == "" || strings.Trim(r.Name, "abcdefghijklmnopqrstuvwxyz ") != "" {
			return nil, fmt.Errorf("muscle %q: name must be lower-case letters and spaces", r.Name)
		}
		if _, dup := a.index[r.Name]; dup {
			return nil, fmt.Errorf("muscle %q: listed twice", r.Name)
		}
		m := muscle{name: r.Name, deep: r.Deep}
		switch r.View {
		case "front":
			m.view = 0
		case "back":
			m.view = 1
		default:
			return nil, fmt.Errorf("muscle %q: view %q, want front or back", r.Name, r.View)
		}
		if len(r.Shapes) == 0 {
			return nil, fmt.Errorf("muscle %q: no shapes", r.Name)
		}
		for i, s := range r.Shapes {
			o, err := parseOutline(s, true)
			if err != nil {
				return nil, fmt.Errorf("muscle %q: shape %d: %w", r.Name, i+1, err)
			}
			if len(o.segs) < 2 {
				return nil, fmt.Errorf("muscle %q: shape %d: fewer than 3 points", r.Name, i+1)
			}
			for _, p := range o.points() {
				if p.X > viewW/2 {
					return nil, fmt.Errorf("muscle %q: shape %d: point (%g, %g) right of the midline; draw the left side only", r.Name, i+1, p.X, p.Y)
				}
			}
			m.outlines = append(m.outlines, o)
		}
		m.left = len(m.outlines)
		for _, o := range m.outlines[:m.left] {
			m.outlines = append(m.outlines, o.mirror())
		}
		a.index[r.Name] = len(a.muscles)
		a.muscles = append(a.muscles, m)
	}
	return a, nil
}

// DataDigest is a hash of regions.yaml: it enters the names of media files
// beside Version, so that an edit of the artwork renames them.
var DataDigest = sync.OnceValue(func() string {
	sum := sha256.Sum256(regionsYAML)
	return hex.EncodeToString(sum[:8])
})
