package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/dataset/source"
	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// lint builds the source as far as it is written (families without content
// are allowed), prints the content problems of the family files named in
// only (base names such as chest.yaml; empty: all), and with show the
// rendered records of those files. It writes nothing to disk. It fails if
// there is any problem, so an author can run it until it passes.
func lint(cfg config, stdout, stderr io.Writer) error {
	var only func(string) bool
	if cfg.only != "" {
		names := strings.Split(cfg.only, ",")
		only = func(file string) bool { return slices.Contains(names, path.Base(file)) }
	}
	// Only the named files are read, so that one author's half-written
	// file does not stop another's lint.
	src, err := source.ReadOnly(os.DirFS(cfg.source), only)
	if err != nil {
		return fmt.Errorf("source %s:\n%w", cfg.source, err)
	}
	f, err := src.BuildPartial()
	if err != nil {
		return fmt.Errorf("source %s:\n%w", cfg.source, err)
	}
	if cfg.sameRecords {
		if err := sameRecords(cfg.out, f, stderr); err != nil {
			return err
		}
	}
	if cfg.show {
		k := 0
		for _, fam := range src.Families {
			for _, v := range fam.Variants {
				if only == nil || only(v.Pos.File) {
					printRecord(stdout, v.Pos.String(), &f.Exercises[k])
				}
				k++
			}
		}
	}
	problems := source.Lint(src, f.Exercises, only)
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	fmt.Fprintf(stderr, "%d problems; boilerplate rate (steps used by more than %d records): %.1f%%\n",
		len(problems), source.MaxStepRepeats, 100*source.BoilerplateRate(f.Exercises))
	if len(problems) > 0 {
		return fmt.Errorf("%d content problems", len(problems))
	}
	return nil
}

// printRecord writes a record's content as a reviewer reads it.
func printRecord(w io.Writer, pos string, x *exercise.Exercise) {
	fmt.Fprintf(w, "## %s (%s) %s\n", x.Name, x.ID, pos)
	fmt.Fprintf(w, "family %q, pattern %q, %s; equipments: %s; targets: %s\n",
		x.Family, x.Pattern, x.Difficulty, strings.Join(x.Equipments, ", "), strings.Join(x.TargetMuscles, ", "))
	if len(x.Aliases) > 0 {
		fmt.Fprintf(w, "aliases: %s\n", strings.Join(x.Aliases, "; "))
	}
	fmt.Fprintf(w, "%s\n", x.Description)
	for i, s := range x.Instructions {
		fmt.Fprintf(w, "  %d. %s\n", i+1, s)
	}
	for _, s := range x.Tips {
		fmt.Fprintf(w, "  - %s\n", s)
	}
	fmt.Fprintln(w)
}

// sameRecords reports the records of f whose interface fields differ from
// those of the same id in the catalogue file at path: moving a variant
// between families must not change what the API lists.
func sameRecords(path string, f *exercise.File, stderr io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	old, err := exercise.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	byID := make(map[string]exercise.Exercise, len(old.Exercises))
	for _, x := range old.Exercises {
		byID[x.ID] = x
	}
	n := 0
	for _, x := range f.Exercises {
		o, ok := byID[x.ID]
		seed := func(x exercise.Exercise) string {
			return fmt.Sprint(x.Name, x.BodyParts, x.Equipments, x.ExerciseTypes, x.Difficulty, x.TargetMuscles, x.SecondaryMuscles, x.MediaKey)
		}
		switch {
		case !ok:
			fmt.Fprintf(stderr, "%q (%s): not in %s\n", x.Name, x.ID, path)
			n++
		case seed(o) != seed(x):
			fmt.Fprintf(stderr, "%q (%s): interface fields changed:\n  was %s\n  now %s\n", x.Name, x.ID, seed(o), seed(x))
			n++
		}
	}
	if n > 0 {
		return fmt.Errorf("%d records differ from %s", n, path)
	}
	return nil
}
