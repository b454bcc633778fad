package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/exercisedb/exercisedb/catalog/dataset/source"
)

// regenerate is the command that brings catalogue.json up to date, quoted
// in the -check failure message.
const regenerate = "go generate ./catalog/dataset (or go run ./cmd/cataloguegen)"

// usageError is a command-line error the flag package has already reported.
type usageError struct{ error }

// config is the parsed command line.
type config struct {
	source, out  string
	check, stats bool
	// changelog and since: see changelog.go.
	changelog, since string
	// lint, only and show: see lint.go.
	lint, show, sameRecords bool
	only                    string
}

// run generates the catalogue, or checks it with -check. Status messages go
// to stderr, so that stdout carries only the -stats tables.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if cfg.lint {
		return lint(cfg, stdout, stderr)
	}
	f, data, err := source.Generate(os.DirFS(cfg.source))
	if err != nil {
		return fmt.Errorf("source %s:\n%w", cfg.source, err)
	}
	// Generation is fast; the context only matters before touching disk.
	if err := ctx.Err(); err != nil {
		return err
	}
	logPath := changelogPath(cfg)
	if cfg.check {
		err = check(cfg.out, data)
		if err == nil {
			err = checkChangelog(logPath, data)
		}
	} else {
		err = write(ctx, cfg, logPath, data, stderr)
	}
	if err != nil {
		return err
	}
	status := "written"
	if cfg.check {
		status = "is up to date"
	}
	fmt.Fprintf(stderr, "%s %s: %d exercises\n", cfg.out, status, len(f.Exercises))
	if cfg.stats {
		return writeStats(stdout, f)
	}
	return nil
}

// write writes the catalogue and records it in its changelog, the
// changelog first: if it cannot be brought up to date, the catalogue is
// left as it was.
func write(ctx context.Context, cfg config, logPath string, data []byte, stderr io.Writer) error {
	log, err := updateChangelog(ctx, cfg, logPath, data, stderr)
	if err != nil {
		return err
	}
	if err := os.WriteFile(logPath, log, 0o644); err != nil {
		return err
	}
	return os.WriteFile(cfg.out, data, 0o644)
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("cataloguegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.source, "source", "catalog/dataset/source", "source `directory` (vocabularies.yaml, families/)")
	fs.StringVar(&cfg.out, "out", "catalog/dataset/catalogue.json", "generated catalogue `file`")
	fs.StringVar(&cfg.changelog, "changelog", "", "changelog `file` of the catalogue (default: changelog.json beside -out)")
	fs.StringVar(&cfg.since, "since", "", "the catalogue `file` the new one follows, for the changelog (default: -out as last committed, else as on disk)")
	fs.BoolVar(&cfg.check, "check", false, "do not write; fail if the file differs from what the source generates")
	fs.BoolVar(&cfg.stats, "stats", false, "print the record counts as Markdown tables on stdout")
	fs.BoolVar(&cfg.lint, "lint", false, "do not write; report content problems (families still without content allowed)")
	fs.StringVar(&cfg.only, "only", "", "with -lint: only these family `files` (comma-separated base names, e.g. chest.yaml)")
	fs.BoolVar(&cfg.show, "show", false, "with -lint: print the rendered records on stdout")
	fs.BoolVar(&cfg.sameRecords, "same-records", false, "with -lint: fail if a record's interface fields differ from the -out file's")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, usageError{err}
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments: %q", fs.Args())
		fmt.Fprintln(stderr, err)
		fs.Usage()
		return cfg, usageError{err}
	}
	return cfg, nil
}

// check compares the file at path with want, naming the first line that
// differs so that a reviewer sees where the two part.
func check(path string, want []byte) error {
	got, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist; generate it with: %s", path, regenerate)
	}
	if err != nil {
		return err
	}
	if bytes.Equal(got, want) {
		return nil
	}
	return fmt.Errorf("%s is stale: line %d differs from what the source generates; regenerate it with: %s",
		path, firstDiffLine(got, want), regenerate)
}

// firstDiffLine returns the 1-based number of the first line at which a and
// b differ; they are assumed to differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return bytes.Count(a[:i], []byte("\n")) + 1
}
