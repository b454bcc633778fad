package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/importer"
)

// usageError is a command-line error the flag package has already reported.
type usageError struct{ error }

// run imports a dataset, or with the coverage subcommand measures how many
// of its names the catalogue holds. The import report and status lines go
// to stderr; stdout carries the coverage listing, or the catalogue file
// with -out -.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var err error
	if len(args) > 0 && args[0] == "coverage" {
		err = runCoverage(ctx, args[1:], stdout, stderr)
	} else {
		err = runImport(ctx, args, stdout, stderr)
	}
	if errors.Is(err, flag.ErrHelp) {
		return nil // -h: the usage is printed
	}
	return err
}

type importConfig struct {
	from, in, out, report, data, difficulty, lang string
}

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg importConfig
	fs := flag.NewFlagSet("catalogimport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: catalogimport -from %s -in path -out file.json [flags]\n", strings.Join(importer.Sources, "|"))
		fmt.Fprintf(fs.Output(), "       catalogimport coverage -in path [flags]   (catalogimport coverage -h for its flags)\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.from, "from", "", "source dataset: "+strings.Join(importer.Sources, " or "))
	fs.StringVar(&cfg.in, "in", "", "input: free-exercise-db's exercises.json `file`, or the `directory` of wger's exports")
	fs.StringVar(&cfg.out, "out", "", "catalogue `file` to write (- for stdout)")
	fs.StringVar(&cfg.report, "report", "", "also write the report as JSON to this `file`")
	fs.StringVar(&cfg.data, "data", "", "catalogue `file` whose vocabularies to map onto (default: the embedded catalogue)")
	fs.StringVar(&cfg.difficulty, "difficulty", importer.DefaultDifficulty, "`difficulty` for records whose source has none (all of wger)")
	fs.StringVar(&cfg.lang, "lang", importer.DefaultLanguage, "wger: short `name` of the language whose translations name the exercises")
	if err := parse(fs, args); err != nil {
		return err
	}
	var missing []string
	for _, f := range []struct{ name, value string }{{"-from", cfg.from}, {"-in", cfg.in}, {"-out", cfg.out}} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return usage(fs, fmt.Errorf("missing %s", strings.Join(missing, ", ")))
	}

	f, err := catalogue(cfg.data)
	if err != nil {
		return err
	}
	out, rep, err := importer.Import(cfg.from, cfg.in, importer.Options{
		Vocabularies: &f.Vocabularies, Difficulty: cfg.difficulty, Language: cfg.lang,
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := rep.WriteText(stderr); err != nil {
		return err
	}
	if cfg.report != "" {
		if err := writeJSON(cfg.report, rep); err != nil {
			return err
		}
	}
	if len(out.Exercises) == 0 {
		return fmt.Errorf("%s: no record could be imported; %s not written", cfg.in, cfg.out)
	}
	var buf bytes.Buffer
	if err := exercise.Encode(&buf, out); err != nil {
		return err
	}
	// The catalog must load what we write: check with its own loader.
	c, err := exercise.Load(buf.Bytes())
	if err != nil {
		return fmt.Errorf("the imported catalogue does not load (a bug of the importer): %w", err)
	}
	if cfg.out == "-" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(cfg.out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s written: %d exercises, catalogue version %s\n", cfg.out, c.Len(), c.Version())
	return nil
}

type coverageConfig struct {
	from, in, data, lang, report string
	top                          int
}

func runCoverage(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg coverageConfig
	fs := flag.NewFlagSet("catalogimport coverage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: catalogimport coverage -in path [flags]\n")
		fmt.Fprintf(fs.Output(), "How many of a dataset's names the catalogue holds, under exercise.SearchKey and under the looser key of docs/importers.md.\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.from, "from", importer.FreeExerciseDB, "source dataset: "+strings.Join(importer.Sources, " or "))
	fs.StringVar(&cfg.in, "in", "", "input: free-exercise-db's exercises.json `file`, or the `directory` of wger's exports")
	fs.StringVar(&cfg.data, "data", "", "catalogue `file` to compare with (default: the embedded catalogue)")
	fs.StringVar(&cfg.lang, "lang", importer.DefaultLanguage, "wger: short `name` of the language of the names")
	fs.StringVar(&cfg.report, "report", "", "also write the figures and lists as JSON to this `file`")
	fs.IntVar(&cfg.top, "top", 40, "print the `n` most common words of the unmatched names (0: all)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if cfg.in == "" {
		return usage(fs, errors.New("missing -in"))
	}
	f, err := catalogue(cfg.data)
	if err != nil {
		return err
	}
	names, err := importer.ReadNames(cfg.from, cfg.in, cfg.lang)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cov := importer.MeasureCoverage(names, f)
	if cfg.report != "" {
		if err := writeJSON(cfg.report, cov); err != nil {
			return err
		}
	}
	return cov.WriteText(stdout, cfg.from, cfg.top)
}

// parse parses the flags, refusing positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usage(fs, fmt.Errorf("unexpected arguments: %q", fs.Args()))
	}
	return nil
}

func usage(fs *flag.FlagSet, err error) error {
	fmt.Fprintln(fs.Output(), err)
	fs.Usage()
	return usageError{err}
}

// catalogue decodes the catalogue file at path, or the embedded one.
func catalogue(path string) (*exercise.File, error) {
	data := dataset.Default()
	name := "embedded catalogue"
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		name = path
	}
	f, err := exercise.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
