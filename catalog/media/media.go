// Package media renders the catalogue's pictures: for each exercise a
// demonstration (an animated figure, as GIF or MP4, at 180, 360 and 720
// pixels high), a poster (a PNG still) and a muscle map (SVG); for each
// exercise type an icon. Rendering is a pure function of the record, the
// file asked for and the renderer's version, so a file is named by a
// digest of those (its content address) before it is ever drawn.
package media

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/media/demo"
	"github.com/exercisedb/exercisedb/catalog/media/musclemap"
)

// Version names this package's layout and encoders; with the versions of
// the drawings it enters every digest, so bumping any of them renames
// every file.
const Version = "2"

// Heights are the heights, in pixels, at which demonstrations are made.
var Heights = []int{180, 360, 720}

// PosterHeight is the height of a poster.
const PosterHeight = 360

// Format is a kind of file.
type Format uint8

// The formats.
const (
	GIF Format = iota + 1
	MP4
	PNG
	SVG
)

// ContentType returns the format's media type.
func (f Format) ContentType() string {
	switch f {
	case GIF:
		return "image/gif"
	case MP4:
		return "video/mp4"
	case PNG:
		return "image/png"
	case SVG:
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

// File is one of a subject's files.
type File struct {
	Format Format
	Height int // of a GIF, MP4 or PNG
}

// The names of the files that are not demonstrations.
const (
	PosterName    = "poster.png"
	MuscleMapName = "muscles.svg"
)

// Name returns the file's name: "360.gif", "720.mp4", "poster.png",
// "muscles.svg".
func (f File) Name() string {
	switch f.Format {
	case GIF:
		return strconv.Itoa(f.Height) + ".gif"
	case MP4:
		return strconv.Itoa(f.Height) + ".mp4"
	case PNG:
		return PosterName
	case SVG:
		return MuscleMapName
	}
	return ""
}

// ErrFileName means a file name is not one of a subject's files.
var ErrFileName = fmt.Errorf("not a media file name: want <height>.gif or <height>.mp4 (height %s), %s or %s",
	heightList(), PosterName, MuscleMapName)

func heightList() string {
	s := make([]string, len(Heights))
	for i, h := range Heights {
		s[i] = strconv.Itoa(h)
	}
	return strings.Join(s, ", ")
}

// ParseFile reads a file name written by File.Name.
func ParseFile(name string) (File, error) {
	switch name {
	case PosterName:
		return File{Format: PNG, Height: PosterHeight}, nil
	case MuscleMapName:
		return File{Format: SVG}, nil
	}
	h, ext, ok := strings.Cut(name, ".")
	if !ok {
		return File{}, ErrFileName
	}
	var f File
	switch ext {
	case "gif":
		f.Format = GIF
	case "mp4":
		f.Format = MP4
	default:
		return File{}, ErrFileName
	}
	for _, allowed := range Heights {
		if h == strconv.Itoa(allowed) {
			f.Height = allowed
			return f, nil
		}
	}
	return File{}, ErrFileName
}

// Subject is what one media key's files are drawn from.
type Subject struct {
	Key    string
	Digest string
	Demo   demo.Demo
	// Target and Secondary are the muscles the map highlights; an
	// exercise type has no map.
	Target, Secondary []string
	HasMap            bool
}

// Has reports whether f is one of the subject's files.
func (s *Subject) Has(f File) bool { return f.Format != SVG || s.HasMap }

// Library holds the subjects of one catalogue by media key.
type Library struct {
	byKey map[string]*Subject
	keys  []string // sorted
}

// NewLibrary resolves the media of a catalogue's exercises and exercise
// types. Records without a media key have none.
func NewLibrary(exercises iter.Seq[*exercise.Exercise], types []exercise.ExerciseType) *Library {
	l := &Library{byKey: map[string]*Subject{}}
	for x := range exercises {
		if x.MediaKey == "" {
			continue
		}
		d := demo.For(demo.Input{
			Name: x.Name, Family: x.Family, Pattern: x.Pattern,
			Equipments: x.Equipments, TargetMuscles: x.TargetMuscles,
			SecondaryMuscles: x.SecondaryMuscles, ExerciseTypes: x.ExerciseTypes,
		})
		l.add(&Subject{Key: x.MediaKey, Demo: d, Target: x.TargetMuscles, Secondary: x.SecondaryMuscles, HasMap: true})
	}
	for _, t := range types {
		if t.MediaKey == "" {
			continue
		}
		l.add(&Subject{Key: t.MediaKey, Demo: demo.Icon(t.Name)})
	}
	return l
}

func (l *Library) add(s *Subject) {
	h := sha256.New()
	// Every input of every file, each field ended so that no two
	// different subjects write the same stream.
	for _, part := range [][]string{
		{Version, demo.Version, demo.DataDigest(), musclemap.Version, musclemap.DataDigest()},
		{s.Key, s.Demo.Fingerprint(), strconv.FormatBool(s.HasMap)},
		s.Target, s.Secondary,
	} {
		for _, p := range part {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	s.Digest = hex.EncodeToString(h.Sum(nil)[:8])
	if _, dup := l.byKey[s.Key]; !dup {
		i, _ := slices.BinarySearch(l.keys, s.Key)
		l.keys = slices.Insert(l.keys, i, s.Key)
	}
	l.byKey[s.Key] = s
}

// Digest returns the digest of a media key's files, "" for a key without
// media.
func (l *Library) Digest(key string) string {
	if s, ok := l.byKey[key]; ok {
		return s.Digest
	}
	return ""
}

// Subject returns the subject of key if its digest is digest: a digest of
// another catalogue or renderer names files this library cannot draw.
func (l *Library) Subject(key, digest string) (*Subject, bool) {
	s, ok := l.byKey[key]
	if !ok || s.Digest != digest {
		return nil, false
	}
	return s, true
}

// Subjects returns every subject, in media key order.
func (l *Library) Subjects() iter.Seq[*Subject] {
	return func(yield func(*Subject) bool) {
		for _, k := range l.keys {
			if !yield(l.byKey[k]) {
				return
			}
		}
	}
}

// Path is where a file lives in a published media set, and after the
// signature in the gateway's own media URLs: "<key>/<digest>/<file>".
func Path(key, digest string, f File) string {
	return key + "/" + digest + "/" + f.Name()
}

// Files lists every file of a subject, demonstrations by height.
func (s *Subject) Files() []File {
	var out []File
	for _, format := range []Format{GIF, MP4} {
		for _, h := range Heights {
			out = append(out, File{Format: format, Height: h})
		}
	}
	out = append(out, File{Format: PNG, Height: PosterHeight})
	if s.HasMap {
		out = append(out, File{Format: SVG})
	}
	return out
}
