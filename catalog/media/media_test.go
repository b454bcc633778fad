package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/media/encode"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

func embedded(t testing.TB) (*exercise.Catalogue, *Library) {
	t.Helper()
	c, err := exercise.Load(bytes.Clone(dataset.Default()))
	if err != nil {
		t.Fatal(err)
	}
	return c, NewLibrary(c.All(), c.Vocabularies().ExerciseTypes)
}

// needFFmpeg skips a test without ffmpeg, unless EXERCISEDB_FFMPEG_TESTS
// says it must run (CI installs ffmpeg).
func needFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("EXERCISEDB_FFMPEG_TESTS") != "" {
			t.Fatal("ffmpeg is not installed (apt-get install ffmpeg)")
		}
		t.Skip("ffmpeg is not installed; EXERCISEDB_FFMPEG_TESTS=1 makes this a failure")
	}
}

// ffmpegVersion is the first line of ffmpeg -version: MP4 bytes are the
// same for one ffmpeg build, not across builds.
func ffmpegVersion(t *testing.T) string {
	out, err := exec.Command("ffmpeg", "-version").Output()
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

// goldenKeys are the subjects whose files have golden hashes: a barbell,
// a body-weight and a machine exercise, and an exercise type's icon.
var goldenKeys = []string{"exercises/humnn3ws", "exercises/j6ufo4ym", "types/strength"}

// TestGoldenHashes holds the files of a few subjects to the hashes in
// testdata/golden.txt: rendering is a pure function of the data and the
// renderer's versions, so a change of bytes must come with a change of
// version (and of digest). MP4 hashes hold for the ffmpeg build the file
// names.
func TestGoldenHashes(t *testing.T) {
	_, lib := embedded(t)
	hasFFmpeg := true
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		hasFFmpeg = false
	}
	var got strings.Builder
	version := ""
	if hasFFmpeg {
		version = ffmpegVersion(t)
	}
	fmt.Fprintf(&got, "ffmpeg: %s\n", version)
	for _, key := range goldenKeys {
		s, ok := lib.Subject(key, lib.Digest(key))
		if !ok {
			t.Fatalf("no subject %s", key)
		}
		for _, f := range s.Files() {
			if f.Format == MP4 && !hasFFmpeg {
				continue
			}
			b, err := Draw(context.Background(), s, f)
			if err != nil {
				t.Fatalf("%s: %v", Path(s.Key, s.Digest, f), err)
			}
			sum := sha256.Sum256(b)
			fmt.Fprintf(&got, "%s %s\n", Path(s.Key, s.Digest, f), hex.EncodeToString(sum[:]))
		}
	}
	if *update {
		if err := os.WriteFile("testdata/golden.txt", []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")
	sameFFmpeg := strings.TrimPrefix(wantLines[0], "ffmpeg: ") == version
	gotLines := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(got.String()), "\n")[1:] {
		gotLines[l] = true
	}
	for _, l := range wantLines[1:] {
		if strings.Contains(l, ".mp4 ") && !sameFFmpeg {
			continue // another ffmpeg build encodes other bytes
		}
		if !gotLines[l] {
			t.Errorf("golden %q not rendered (go test -update rewrites testdata/golden.txt, with a new version)", l)
		}
	}
}

// TestDeterministic renders files twice, through Draw and through
// DrawSets (two subjects' videos in one ffmpeg): the same bytes, so that a
// file's name can stand for its content however the set was rendered.
func TestDeterministic(t *testing.T) {
	needFFmpeg(t)
	_, lib := embedded(t)
	var jobs []Job
	for _, key := range goldenKeys[:2] {
		s, _ := lib.Subject(key, lib.Digest(key))
		jobs = append(jobs, Job{Subject: s, Files: s.Files()})
	}
	set := map[string][]byte{}
	if err := DrawSets(context.Background(), jobs, func(s *Subject, f File, b []byte) error {
		set[Path(s.Key, s.Digest, f)] = b
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		for _, f := range j.Files {
			b, err := Draw(context.Background(), j.Subject, f)
			if err != nil {
				t.Fatal(err)
			}
			p := Path(j.Subject.Key, j.Subject.Digest, f)
			if !bytes.Equal(b, set[p]) {
				t.Errorf("%s: Draw and DrawSets differ (%d and %d bytes)", p, len(b), len(set[p]))
			}
		}
	}
}

// TestMP4ShowsTheFrames decodes every frame of a demonstration's MP4,
// rendered as a media set is (DrawSets), and compares it with the frame
// drawn: an encoder fed the wrong bytes still makes a valid, deterministic
// file, so only looking at the pictures catches it.
func TestMP4ShowsTheFrames(t *testing.T) {
	needFFmpeg(t)
	_, lib := embedded(t)
	s, _ := lib.Subject(goldenKeys[0], lib.Digest(goldenKeys[0]))
	const h = 180
	var video []byte
	if err := DrawSets(context.Background(), []Job{{Subject: s, Files: []File{{Format: MP4, Height: h}}}}, func(_ *Subject, _ File, b []byte) error {
		video = b
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v.mp4")
	if err := os.WriteFile(path, video, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	frames := s.Frames(h)
	size := h * h * 3
	if len(raw) != len(frames)*size {
		t.Fatalf("decoded %d bytes, want %d frames of %d", len(raw), len(frames), size)
	}
	for i, f := range frames {
		var diff int
		for p := range h * h {
			for c := range 3 {
				d := int(raw[i*size+3*p+c]) - int(f.Pix[4*p+c])
				diff += max(d, -d)
			}
		}
		// H.264 at this quality moves a pixel a few levels on average
		if mean := float64(diff) / float64(size); mean > 6 {
			t.Errorf("frame %d: decoded pixels differ from the drawing by %.1f levels on average", i, mean)
		}
	}
}

// TestSizeBudgets renders a fixed sample of records and holds the median
// sizes to the budgets: a 360 pixel GIF at most 150 KB, an MP4 at most
// 60 KB, so that a page of twenty-five loads quickly on a phone.
func TestSizeBudgets(t *testing.T) {
	needFFmpeg(t)
	c, lib := embedded(t)
	var gifs, mp4s []int
	i := 0
	for x := range c.All() {
		i++
		if i%50 != 0 { // every fiftieth record: about forty, across the families
			continue
		}
		s, _ := lib.Subject(x.MediaKey, lib.Digest(x.MediaKey))
		files := []File{{Format: GIF, Height: 360}, {Format: MP4, Height: 360}}
		if err := DrawSet(context.Background(), s, files, func(f File, b []byte) error {
			if f.Format == GIF {
				gifs = append(gifs, len(b))
			} else {
				mp4s = append(mp4s, len(b))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name   string
		sizes  []int
		budget int
	}{{"360.gif", gifs, 150_000}, {"360.mp4", mp4s, 60_000}} {
		slices.Sort(tt.sizes)
		median := tt.sizes[len(tt.sizes)/2]
		t.Logf("%s: median %d bytes over %d records (largest %d)", tt.name, median, len(tt.sizes), tt.sizes[len(tt.sizes)-1])
		if median > tt.budget {
			t.Errorf("%s: median %d bytes, over the budget of %d", tt.name, median, tt.budget)
		}
	}
}

// TestDigests checks what a digest stands for: the same data give the
// same digest, other muscles another, and a lookup needs the current one.
func TestDigests(t *testing.T) {
	c, lib := embedded(t)
	_, again := embedded(t)
	x, err := c.Exercise("humnn3ws")
	if err != nil {
		t.Fatal(err)
	}
	if lib.Digest(x.MediaKey) == "" || lib.Digest(x.MediaKey) != again.Digest(x.MediaKey) {
		t.Fatalf("digests %q and %q of one record", lib.Digest(x.MediaKey), again.Digest(x.MediaKey))
	}
	changed := x
	changed.SecondaryMuscles = []string{"biceps brachii"}
	other := NewLibrary(func(yield func(*exercise.Exercise) bool) { yield(&changed) }, nil)
	if other.Digest(x.MediaKey) == lib.Digest(x.MediaKey) {
		t.Error("other secondary muscles, same digest")
	}
	if _, ok := lib.Subject(x.MediaKey, other.Digest(x.MediaKey)); ok {
		t.Error("Subject found a record under a digest that is not its own")
	}
	for _, ty := range c.Vocabularies().ExerciseTypes {
		s, ok := lib.Subject(ty.MediaKey, lib.Digest(ty.MediaKey))
		if !ok || s.Has(File{Format: SVG}) {
			t.Errorf("type %s: subject %v; want one without a muscle map", ty.Name, ok)
		}
	}
}

func TestParseFile(t *testing.T) {
	for _, name := range []string{"180.gif", "360.gif", "720.gif", "180.mp4", "360.mp4", "720.mp4", "poster.png", "muscles.svg"} {
		f, err := ParseFile(name)
		if err != nil || f.Name() != name {
			t.Errorf("ParseFile(%q) = %v, %v; its Name %q", name, f, err, f.Name())
		}
	}
	for _, name := range []string{"", "360", "1080.gif", "360.png", "0360.gif", "+360.gif", "360.gif.gif", "poster.svg", "../360.gif"} {
		if _, err := ParseFile(name); err == nil {
			t.Errorf("ParseFile(%q) succeeded", name)
		}
	}
}

// TestRendererReadsRenderedSet gives a renderer a directory rendered
// beforehand and no ffmpeg: the MP4 found there is served as it is, and
// one that is not there cannot be made.
func TestRendererReadsRenderedSet(t *testing.T) {
	_, lib := embedded(t)
	s, _ := lib.Subject("exercises/humnn3ws", lib.Digest("exercises/humnn3ws"))
	dir := t.TempDir()
	have := File{Format: MP4, Height: 360}
	path := filepath.Join(dir, filepath.FromSlash(Path(s.Key, s.Digest, have)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("rendered beforehand"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := encode.FFmpeg
	encode.FFmpeg = "no-such-ffmpeg"
	defer func() { encode.FFmpeg = old }()
	r := NewRenderer(10, 1<<20, dir)
	if b, err := r.Render(context.Background(), s, have); err != nil || string(b) != "rendered beforehand" {
		t.Errorf("Render(%s) = %q, %v; want the file of the directory", have.Name(), b, err)
	}
	if _, err := r.Render(context.Background(), s, File{Format: MP4, Height: 720}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Render(720.mp4), neither in the directory nor encodable: %v, want ErrUnsupported", err)
	}
	if b, err := r.Render(context.Background(), s, File{Format: GIF, Height: 180}); err != nil || !bytes.HasPrefix(b, []byte("GIF89a")) {
		t.Errorf("Render(180.gif), not in the directory: %v; want it drawn", err)
	}
}
