package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// changelogPath is the changelog the catalogue at out goes with: the -changelog
// flag, or changelog.json beside it.
func changelogPath(cfg config) string {
	if cfg.changelog != "" {
		return cfg.changelog
	}
	return filepath.Join(filepath.Dir(cfg.out), "changelog.json")
}

// updateChangelog records, in the changelog at path, what the catalogue in
// data changed since the previous one: the -since file, else the -out file
// as last committed, else the -out file on disk (none for a first
// catalogue). It returns the changelog to write. A changelog that does
// not hold the previous catalogue's version starts again, with a warning.
func updateChangelog(ctx context.Context, cfg config, path string, data []byte, stderr io.Writer) ([]byte, error) {
	next, err := exercise.Load(data)
	if err != nil {
		return nil, fmt.Errorf("generated catalogue: %w", err)
	}
	prevData, err := previousCatalogue(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var prev *exercise.Catalogue
	if prevData != nil {
		if prev, err = exercise.Load(prevData); err != nil {
			return nil, fmt.Errorf("previous catalogue: %w", err)
		}
	}
	v, err := changelog.Diff(prev, next)
	if err != nil {
		return nil, err
	}
	f, err := readChangelog(path)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = &changelog.File{Format: changelog.Format}, nil
	}
	if err != nil {
		return nil, err
	}
	err = f.Record(v)
	if errors.Is(err, changelog.ErrBrokenChain) {
		// The versions it holds do not lead to the previous catalogue, so
		// none of them can tell a client what to refresh: start again from
		// this one (a client that holds an older version refetches all).
		fmt.Fprintf(stderr, "%s: %v; it now starts at version %s\n", path, err, v.Version)
		f.Versions = nil
		err = f.Record(v)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var buf bytes.Buffer
	if err := changelog.Encode(&buf, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// previousCatalogue is the catalogue a new one is compared with (see
// updateChangelog); nil when there is none.
func previousCatalogue(ctx context.Context, cfg config) ([]byte, error) {
	if cfg.since != "" {
		return os.ReadFile(cfg.since)
	}
	// git show runs where the file is, so that the path is the file's own
	// whatever the working directory; outside a repository, or for a file
	// not yet committed, it fails and the file on disk is the previous one.
	if data, err := exec.CommandContext(ctx, "git", "-C", filepath.Dir(cfg.out), "show", "HEAD:./"+filepath.Base(cfg.out)).Output(); err == nil {
		return data, nil
	}
	data, err := os.ReadFile(cfg.out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

func readChangelog(path string) (*changelog.File, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := changelog.Decode(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// checkChangelog fails unless the changelog at path is well formed and its
// newest version is the catalogue in data. It reads only the two files, so
// that the check gives the same answer wherever it runs.
func checkChangelog(path string, data []byte) error {
	c, err := exercise.Load(data)
	if err != nil {
		return err
	}
	f, err := readChangelog(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist; generate it with: %s", path, regenerate)
	}
	if err != nil {
		return err
	}
	if err := f.Check(c.Version()); err != nil {
		return fmt.Errorf("%s is stale or malformed: %w; regenerate it with: %s", path, err, regenerate)
	}
	return nil
}
