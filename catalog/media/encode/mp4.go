package encode

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
)

// ErrNoFFmpeg means the MP4 encoder is not installed: H.264 is encoded by
// Debian's ffmpeg (libx264) in a separate process.
var ErrNoFFmpeg = errors.New("encode: ffmpeg is not installed (needed for MP4)")

// FFmpeg is the command that encodes MP4s; tests may point it elsewhere.
var FFmpeg = "ffmpeg"

// Video is frames converted for the H.264 encoder: planar YUV 4:2:0, a
// third of the bytes of RGBA, so that a caller can keep many videos for
// one ffmpeg process (MP4s) and draw each frame into the same image.
type Video struct {
	w, h, n int
	yuv     []byte
}

// NewVideo starts a video of w×h frames (an even size, which H.264's
// 4:2:0 needs), with room for n.
func NewVideo(w, h, n int) (*Video, error) {
	if w <= 0 || h <= 0 || w%2 != 0 || h%2 != 0 {
		return nil, fmt.Errorf("encode: %dx%d: MP4 frames need an even size", w, h)
	}
	return &Video{w: w, h: h, yuv: make([]byte, 0, max(n, 1)*frameSize(w, h))}, nil
}

func frameSize(w, h int) int { return w*h + 2*(w/2)*(h/2) }

// Add converts and appends a frame of the video's size.
func (v *Video) Add(f *image.RGBA) error {
	if f.Bounds().Dx() != v.w || f.Bounds().Dy() != v.h {
		return fmt.Errorf("encode: a %v frame in a %dx%d video", f.Bounds().Size(), v.w, v.h)
	}
	size := frameSize(v.w, v.h)
	v.yuv = slices.Grow(v.yuv, size)[:len(v.yuv)+size]
	yuv420(v.yuv[v.n*size:], f)
	v.n++
	return nil
}

// MP4s encodes each video as H.264 in an MP4 (yuv420p, the index first
// so that a player starts before the whole file arrives), fps frames a
// second, all in one ffmpeg process with an encoder per video: starting
// ffmpeg costs about as much as encoding a small video. x264 runs
// single-threaded and ffmpeg writes no time or version metadata, so one
// ffmpeg build gives the same bytes for the same frames, whatever else the
// process encodes. There are no B-frames: they cost a sixth of the
// encoding for a few per cent of the size, and every decoder shows the
// frames as they arrive.
func MP4s(ctx context.Context, videos []*Video, fps int) ([][]byte, error) {
	path, err := exec.LookPath(FFmpeg)
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	// faststart rewrites the file to move the index to the front, which
	// needs a seekable output: temporary files, not pipes.
	dir, err := os.MkdirTemp("", "exercisedb-mp4-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-filter_threads", "1"}
	var (
		inputs  []*os.File // the read ends, passed to ffmpeg as fd 3, 4, …
		writers []*os.File
	)
	defer func() {
		for _, f := range append(inputs, writers...) {
			f.Close()
		}
	}()
	for i, v := range videos {
		if v.n == 0 {
			return nil, errors.New("encode: no frames")
		}
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		inputs, writers = append(inputs, r), append(writers, w)
		args = append(args, "-threads", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", fmt.Sprintf("%dx%d", v.w, v.h),
			"-r", strconv.Itoa(fps), "-i", "pipe:"+strconv.Itoa(3+i))
	}
	for i := range videos {
		args = append(args, "-map", strconv.Itoa(i)+":v",
			"-c:v", "libx264", "-preset", "veryfast", "-crf", "30", "-tune", "animation", "-bf", "0",
			"-threads", "1", "-x264-params", "threads=1",
			"-movflags", "+faststart", "-map_metadata", "-1",
			"-fflags", "+bitexact", "-flags:v", "+bitexact", "-an",
			filepath.Join(dir, strconv.Itoa(i)+".mp4"))
	}
	cmd := exec.CommandContext(ctx, path, append(args, "-y")...)
	cmd.ExtraFiles = inputs
	cmd.Env = ffmpegEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for _, r := range inputs {
		r.Close() // ffmpeg holds them now
	}
	inputs = nil
	// ffmpeg reads its inputs in turn, a frame at a time: feed each from
	// its own goroutine, or the first full pipe would stall the others.
	errs := make(chan error, len(videos))
	for i, v := range videos {
		w := writers[i]
		go func() {
			errs <- writeVideo(w, v, fps)
		}()
	}
	var writeErr error
	for range videos {
		if err := <-errs; err != nil && writeErr == nil {
			writeErr = err
		}
	}
	writers = nil
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("encode: ffmpeg: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if writeErr != nil {
		return nil, fmt.Errorf("encode: writing frames to ffmpeg: %w", writeErr)
	}
	out := make([][]byte, len(videos))
	for i := range videos {
		if out[i], err = os.ReadFile(filepath.Join(dir, strconv.Itoa(i)+".mp4")); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mallocTunables make glibc's malloc, in ffmpeg, back its heap with
// transparent huge pages, keep one arena and keep freed memory instead of
// returning it: x264's frame buffers and each frame read from a pipe
// otherwise fault in 4 KiB at a time, which costs ffmpeg as much CPU as
// the encoding itself. They change nothing in the output.
const mallocTunables = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1:" +
	"glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"

// ffmpegEnv is this process's environment with mallocTunables, unless the
// caller set GLIBC_TUNABLES itself.
func ffmpegEnv() []string {
	env := os.Environ()
	if _, set := os.LookupEnv("GLIBC_TUNABLES"); !set {
		env = append(env, "GLIBC_TUNABLES="+mallocTunables)
	}
	return env
}

// writeVideo writes v to w and closes it. A still is shown for one second,
// long enough for any player. Converting in Go rather than in ffmpeg sends
// it less than half the bytes and spares it a scaler: the process's cost
// is most of a video's.
func writeVideo(w io.WriteCloser, v *Video, fps int) error {
	defer w.Close()
	if v.n > 1 {
		_, err := w.Write(v.yuv)
		return err
	}
	for range fps {
		if _, err := w.Write(v.yuv); err != nil {
			return err
		}
	}
	return nil
}

// yuv420 writes img (even width and height) to dst, its size, as planar YUV 4:2:0 in
// BT.601 limited range, what players assume of H.264 without colour
// metadata: full-resolution luma, then each chroma plane averaged over
// 2×2 pixels. It runs for every pixel of every video, so it reads each 2×2
// block once, reuses the values of a block equal to the one before, and
// slices every row to its length first so that the compiler drops the
// bounds checks.
func yuv420(dst []byte, img *image.RGBA) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	ySize, cw := w*h, w/2
	cSize := cw * (h / 2)
	y, cb, cr := dst[:ySize], dst[ySize:ySize+cSize], dst[ySize+cSize:ySize+2*cSize]
	for row := 0; row < h; row += 2 {
		p0 := img.Pix[row*img.Stride:][:4*w]
		p1 := img.Pix[(row+1)*img.Stride:][:4*w]
		y0 := y[row*w:][:w]
		y1 := y[(row+1)*w:][:w]
		cbRow := cb[(row/2)*cw:][:cw]
		crRow := cr[(row/2)*cw:][:cw]
		// a block like the one before it (the flat background, most of
		// a frame) takes its values
		var last0, last1 uint64
		var yl0, yl1, yl2, yl3, cbl, crl uint8
		for i := range cbRow {
			a, b := p0[8*i:8*i+8], p1[8*i:8*i+8]
			ya, yb := y0[2*i:2*i+2], y1[2*i:2*i+2]
			if u0, u1 := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b); i == 0 || u0 != last0 || u1 != last1 {
				last0, last1 = u0, u1
				r0, g0, b0 := int32(a[0]), int32(a[1]), int32(a[2])
				r1, g1, b1 := int32(a[4]), int32(a[5]), int32(a[6])
				r2, g2, b2 := int32(b[0]), int32(b[1]), int32(b[2])
				r3, g3, b3 := int32(b[4]), int32(b[5]), int32(b[6])
				yl0, yl1, yl2, yl3 = luma(r0, g0, b0), luma(r1, g1, b1), luma(r2, g2, b2), luma(r3, g3, b3)
				r, g, bl := (r0+r1+r2+r3+2)/4, (g0+g1+g2+g3+2)/4, (b0+b1+b2+b3+2)/4
				cbl = uint8((-38*r-74*g+112*bl+128)>>8 + 128)
				crl = uint8((112*r-94*g-18*bl+128)>>8 + 128)
			}
			ya[0], ya[1], yb[0], yb[1] = yl0, yl1, yl2, yl3
			cbRow[i], crRow[i] = cbl, crl
		}
	}
}

func luma(r, g, b int32) uint8 { return uint8((66*r+129*g+25*b+128)>>8 + 16) }
