package encode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// ErrNoFFmpeg means the MP4 encoder is not installed: H.264 is encoded by
// Debian's ffmpeg (libx264) in a separate process.
var ErrNoFFmpeg = errors.New("encode: ffmpeg is not installed (needed for MP4)")

// FFmpeg is the command that encodes MP4s; tests may point it elsewhere.
var FFmpeg = "ffmpeg"

// MP4 encodes frames as H.264 in an MP4 (yuv420p, the moov atom first so a
// player starts before the whole file arrives), fps frames a second. The
// frames' size must be even. x264 runs single-threaded and ffmpeg writes no
// time or version metadata, so one ffmpeg build gives the same bytes for
// the same frames.
func MP4(ctx context.Context, frames []*image.RGBA, fps int) ([]byte, error) {
	path, err := exec.LookPath(FFmpeg)
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	if len(frames) == 0 {
		return nil, errors.New("encode: no frames")
	}
	b := frames[0].Bounds()
	if b.Dx()%2 != 0 || b.Dy()%2 != 0 {
		return nil, fmt.Errorf("encode: %dx%d: MP4 frames need an even size", b.Dx(), b.Dy())
	}
	// faststart rewrites the file to move the index to the front, which
	// needs a seekable output: a temporary file, not a pipe.
	dir, err := os.MkdirTemp("", "exercisedb-mp4-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out.mp4")
	var in bytes.Buffer
	in.Grow(len(frames) * len(frames[0].Pix))
	for _, f := range frames {
		in.Write(f.Pix)
	}
	// A still is shown for one second, long enough for any player.
	if len(frames) == 1 {
		for range fps - 1 {
			in.Write(frames[0].Pix)
		}
	}
	cmd := exec.CommandContext(ctx, path,
		"-hide_banner", "-loglevel", "error", "-nostdin",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", b.Dx(), b.Dy()),
		"-r", strconv.Itoa(fps), "-i", "-",
		"-c:v", "libx264", "-preset", "slow", "-crf", "30", "-tune", "animation",
		"-pix_fmt", "yuv420p", "-threads", "1", "-x264-params", "threads=1",
		"-movflags", "+faststart", "-map_metadata", "-1",
		"-fflags", "+bitexact", "-flags:v", "+bitexact",
		"-an", "-y", out)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("encode: ffmpeg: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return os.ReadFile(out)
}
