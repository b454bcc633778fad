package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/exercisedb/exercisedb/catalog/media"
)

// renderSummary is what render reports, and writes as JSON with -json.
type renderSummary struct {
	Subjects int `json:"subjects"`
	// Exercises and Faithful count the exercises and those whose
	// demonstration shows their movement (the others show a still pose
	// beside their muscle map).
	Exercises int     `json:"exercises"`
	Faithful  int     `json:"faithful"`
	Written   int     `json:"written"`
	Skipped   int     `json:"skipped"` // already in the directory: names are content addresses
	Bytes     int64   `json:"bytes"`
	Seconds   float64 `json:"seconds"`
	// MedianBytes is the median size of each kind of file ("360.gif").
	MedianBytes map[string]int `json:"medianBytes"`
}

func render(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mediagen render", flag.ContinueOnError)
	fs.SetOutput(stdout)
	out := fs.String("out", "", "`directory` to write <key>/<digest>/<file> into (required)")
	data := fs.String("data", "", "catalogue `file`; empty: the embedded catalogue")
	formats := fs.String("formats", "gif,mp4,png,svg", "`formats` to render, comma-separated")
	heights := fs.String("heights", "180,360,720", "demonstration `heights` to render, comma-separated (posters are 360)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "subjects rendered at once")
	perProcess := fs.Int("batch", 4, "subjects whose MP4s one ffmpeg process encodes (each holds its frames in memory meanwhile)")
	limit := fs.Int("limit", 0, "render only the first `n` subjects (0: all)")
	jsonOut := fs.String("json", "", "write the summary as JSON to this `file` too")
	if err := fs.Parse(args); err != nil {
		return helpOr(err)
	}
	if *out == "" {
		return fmt.Errorf("render: -out is required")
	}
	if *perProcess < 1 {
		return fmt.Errorf("render: -batch: want at least 1 subject per ffmpeg process")
	}
	want := map[string]bool{}
	for _, f := range strings.Split(*formats, ",") {
		switch f = strings.TrimSpace(f); f {
		case "gif", "mp4", "png", "svg":
			want[f] = true
		default:
			return fmt.Errorf("render: -formats: %q is not gif, mp4, png or svg", f)
		}
	}
	wantHeight := map[int]bool{}
	for _, h := range strings.Split(*heights, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(h))
		if err != nil || !slices.Contains(media.Heights, n) {
			return fmt.Errorf("render: -heights: %q is not one of %v", h, media.Heights)
		}
		wantHeight[n] = true
	}
	_, lib, err := library(*data)
	if err != nil {
		return err
	}
	var subjects []*media.Subject
	for s := range lib.Subjects() {
		subjects = append(subjects, s)
	}
	if *limit > 0 && *limit < len(subjects) {
		subjects = subjects[:*limit]
	}
	start := time.Now()
	sum := renderSummary{Subjects: len(subjects), MedianBytes: map[string]int{}}
	var (
		mu    sync.Mutex
		sizes = map[string][]int{}
	)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(*workers, 1))
	var batch []media.Job
	flush := func() {
		jobs := batch
		batch = nil
		if len(jobs) == 0 {
			return
		}
		g.Go(func() error {
			return media.DrawSets(ctx, jobs, func(s *media.Subject, f media.File, b []byte) error {
				if err := writeFile(filepath.Join(*out, media.Path(s.Key, s.Digest, f)), b); err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				sum.Written++
				sum.Bytes += int64(len(b))
				sizes[f.Name()] = append(sizes[f.Name()], len(b))
				return nil
			})
		})
	}
	for _, s := range subjects {
		if s.HasMap {
			sum.Exercises++
			if s.Demo.Faithful() {
				sum.Faithful++
			}
		}
		var todo []media.File
		for _, f := range s.Files() {
			demonstration := f.Format == media.GIF || f.Format == media.MP4
			if !want[strings.TrimPrefix(filepath.Ext(f.Name()), ".")] || (demonstration && !wantHeight[f.Height]) {
				continue
			}
			if _, err := os.Stat(filepath.Join(*out, media.Path(s.Key, s.Digest, f))); err == nil {
				sum.Skipped++
				continue
			}
			todo = append(todo, f)
		}
		if len(todo) > 0 {
			batch = append(batch, media.Job{Subject: s, Files: todo})
		}
		if len(batch) == *perProcess {
			flush()
		}
	}
	flush()
	if err := g.Wait(); err != nil {
		return err
	}
	sum.Seconds = time.Since(start).Seconds()
	for name, ss := range sizes {
		slices.Sort(ss)
		sum.MedianBytes[name] = ss[len(ss)/2]
	}
	fmt.Fprintf(stdout, "%d subjects (%d exercises, %d with a true demonstration: %.1f%%): %d files written (%d bytes), %d already there, in %.1fs\n",
		sum.Subjects, sum.Exercises, sum.Faithful, 100*float64(sum.Faithful)/float64(max(sum.Exercises, 1)), sum.Written, sum.Bytes, sum.Skipped, sum.Seconds)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range sum.MedianBytes {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		fmt.Fprintf(stdout, "  median %-12s %7d bytes\n", n, sum.MedianBytes[n])
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(sum, "", "  ")
		return os.WriteFile(*jsonOut, append(b, '\n'), 0o644)
	}
	return nil
}

// writeFile writes b to path whole or not at all: a reader (or a publish
// run) never sees half a file under a content address.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// helpOr maps flag.ErrHelp to errHelp (exit 0).
func helpOr(err error) error {
	if err == flag.ErrHelp {
		return errHelp
	}
	return err
}
