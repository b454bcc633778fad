package media

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/exercisedb/exercisedb/catalog/media/demo"
	"github.com/exercisedb/exercisedb/catalog/media/encode"
	"github.com/exercisedb/exercisedb/catalog/media/musclemap"
	"github.com/exercisedb/exercisedb/catalog/media/paint"
	"github.com/exercisedb/exercisedb/pkg/bytecache"
)

// ErrUnsupported means a format's encoder is not installed here.
var ErrUnsupported = errors.New("media: the encoder of this format is not installed")

// Draw renders one file of a subject. It is pure: the same subject, file
// and versions give the same bytes (an MP4's, for one ffmpeg build).
func Draw(ctx context.Context, s *Subject, f File) ([]byte, error) {
	if !s.Has(f) {
		return nil, ErrFileName
	}
	var out []byte
	err := DrawSet(ctx, s, []File{f}, func(_ File, b []byte) error {
		out = b
		return nil
	})
	return out, err
}

// DrawSet renders several files of a subject, drawing the frames of each
// height once for all the formats that need them and encoding its MP4s in
// one ffmpeg process, and hands each file to emit as it is made. The bytes
// are Draw's.
func DrawSet(ctx context.Context, s *Subject, files []File, emit func(File, []byte) error) error {
	return DrawSets(ctx, []Job{{Subject: s, Files: files}}, func(_ *Subject, f File, b []byte) error { return emit(f, b) })
}

// Job is files of a subject to render.
type Job struct {
	Subject *Subject
	Files   []File
}

// DrawSets renders the files of several subjects as DrawSet does, with the
// MP4s of all of them in one ffmpeg process: starting ffmpeg costs about
// as much as encoding a subject's videos, and each video has its own
// encoder in it, so the bytes are still Draw's. Each frame is encoded as
// it is drawn, so a subject holds one frame of RGBA at a time; the videos
// are held converted (a third of the size) until ffmpeg runs.
func DrawSets(ctx context.Context, jobs []Job, emit func(*Subject, File, []byte) error) error {
	var (
		videos []*encode.Video
		owners []*Subject
		names  []File
	)
	for _, j := range jobs {
		s := j.Subject
		byHeight := map[int][]File{}
		var heights []int
		for _, f := range j.Files {
			if !s.Has(f) {
				continue
			}
			if f.Format == SVG {
				if err := emit(s, f, musclemap.SVG(s.Target, s.Secondary)); err != nil {
					return err
				}
				continue
			}
			if _, seen := byHeight[f.Height]; !seen {
				heights = append(heights, f.Height)
			}
			byHeight[f.Height] = append(byHeight[f.Height], f)
		}
		for _, h := range heights {
			if err := ctx.Err(); err != nil {
				return err
			}
			made, err := drawHeight(s, h, byHeight[h])
			if err != nil {
				return err
			}
			for i, f := range byHeight[h] {
				if v := made[i].video; v != nil {
					videos, owners, names = append(videos, v), append(owners, s), append(names, f)
					continue
				}
				if err := emit(s, f, made[i].bytes); err != nil {
					return err
				}
			}
		}
	}
	if len(videos) == 0 {
		return nil
	}
	out, err := encode.MP4s(ctx, videos, demo.FPS)
	if errors.Is(err, encode.ErrNoFFmpeg) {
		return ErrUnsupported
	}
	if err != nil {
		return fmt.Errorf("%s: %w", Path(owners[0].Key, owners[0].Digest, names[0]), err)
	}
	for i, f := range names {
		if err := emit(owners[i], f, out[i]); err != nil {
			return err
		}
	}
	return nil
}

// made is one file drawn at a height: its bytes, or an MP4's video still
// to encode.
type made struct {
	bytes []byte
	video *encode.Video
}

// drawHeight draws s once at height h, feeding every frame to the encoder
// of each of files (GIF, MP4 or PNG, all of that height).
func drawHeight(s *Subject, h int, files []File) ([]made, error) {
	out := make([]made, len(files))
	gifs := make([]*encode.GIF, len(files))
	n := s.Demo.FrameCount()
	poster := min(s.Demo.PosterFrame(), n-1)
	for i, f := range files {
		switch f.Format {
		case GIF:
			gifs[i] = encode.NewGIF(100 / demo.FPS)
		case MP4:
			v, err := encode.NewVideo(h, h, n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", Path(s.Key, s.Digest, f), err)
			}
			out[i].video = v
		case PNG:
		default:
			return nil, ErrFileName
		}
	}
	err := s.Draw(h, func(k int, frame *image.RGBA) error {
		for i, f := range files {
			switch {
			case gifs[i] != nil:
				gifs[i].Add(frame)
			case out[i].video != nil:
				if err := out[i].video.Add(frame); err != nil {
					return fmt.Errorf("%s: %w", Path(s.Key, s.Digest, f), err)
				}
			case k == poster:
				b, err := encode.PNG(frame)
				if err != nil {
					return fmt.Errorf("%s: %w", Path(s.Key, s.Digest, f), err)
				}
				out[i].bytes = b
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, g := range gifs {
		if g == nil {
			continue
		}
		b, err := g.Encode()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Path(s.Key, s.Digest, files[i]), err)
		}
		out[i].bytes = b
	}
	return out, nil
}

// Frames draws the demonstration at height h, as the files show it (see
// Draw).
func (s *Subject) Frames(h int) []*image.RGBA {
	return demo.Collect(func(each func(int, *image.RGBA) error) error { return s.Draw(h, each) })
}

// Draw draws the demonstration at height h a frame at a time, as
// demo.Demo.Draw does. A record whose movement has no faithful template
// yet shows a still pose with its muscle map beside it, so that the
// picture still says what the exercise trains.
func (s *Subject) Draw(h int, each func(i int, frame *image.RGBA) error) error {
	inset := !s.Demo.Faithful() && s.HasMap
	return s.Demo.Draw(h, func(i int, f *image.RGBA) error {
		if inset {
			mw, mh := musclemap.Size()
			size := float32(h) * 0.46
			w := size * mw / mh
			margin := float32(h) * 0.03
			musclemap.Draw(paint.On(f, 1, 0, 0), float32(h)-w-margin, margin, size, s.Target, s.Secondary)
		}
		return each(i, f)
	})
}

// Renderer draws files on demand and keeps the latest in memory, bounded
// in entries and bytes. Concurrent requests for one file draw it once, and
// at most one drawing runs per CPU, so a burst of cold files cannot starve
// the catalogue's other calls of more than their share.
type Renderer struct {
	cache *bytecache.Cache[string, []byte]
	group singleflight.Group
	slots chan struct{}
	// dir, if not empty, holds files rendered beforehand (mediagen
	// render), read instead of drawn: a catalog without ffmpeg serves the
	// MP4s found there.
	dir string
}

// NewRenderer returns a renderer whose cache holds at most maxEntries files
// totalling maxBytes, reading the files it finds under dir (if not empty,
// laid out as Path) rather than drawing them.
func NewRenderer(maxEntries int, maxBytes int64, dir string) *Renderer {
	return &Renderer{
		cache: bytecache.New[string, []byte](maxEntries, maxBytes),
		slots: make(chan struct{}, runtime.GOMAXPROCS(0)),
		dir:   dir,
	}
}

// maxDrawing bounds one drawing: a 720 pixel MP4 takes about a second.
const maxDrawing = 2 * time.Minute

// Render returns one file of a subject, from the cache or drawn now.
func (r *Renderer) Render(ctx context.Context, s *Subject, f File) ([]byte, error) {
	key := Path(s.Key, s.Digest, f)
	if b, ok := r.cache.Get(key); ok {
		return b, nil
	}
	ch := r.group.DoChan(key, func() (any, error) {
		// Detached from the first caller: the others wait for the same
		// drawing, which should not end because that caller left; bounded,
		// so that a stuck encoder cannot hold a slot for ever.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), maxDrawing)
		defer cancel()
		r.slots <- struct{}{}
		defer func() { <-r.slots }()
		b, err := r.read(key)
		if b == nil && err == nil {
			b, err = Draw(ctx, s, f)
		}
		if err == nil {
			r.cache.Add(key, b, len(b))
		}
		return b, err
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.([]byte), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// read returns the file at path under the renderer's directory, nil if
// there is none.
func (r *Renderer) read(path string) ([]byte, error) {
	if r.dir == "" || !filepath.IsLocal(path) {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(path)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// CacheStats returns what the cache holds: files, bytes, and its byte bound.
func (r *Renderer) CacheStats() (entries int, bytes, maxBytes int64) {
	return r.cache.Len(), r.cache.Bytes(), r.cache.MaxBytes()
}
