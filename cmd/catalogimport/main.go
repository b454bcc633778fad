// Command catalogimport converts open exercise datasets into the catalogue
// file format, mapping their vocabularies onto the embedded catalogue's and
// reporting what it could not map; its coverage subcommand says how many of
// a dataset's names the catalogue already holds. docs/importers.md
// describes the mapping and the report.
//
//	catalogimport -from free-exercise-db -in exercises.json -out out.json [-report report.json]
//	catalogimport -from wger -in wger-dir -out out.json [-difficulty intermediate] [-lang en]
//	catalogimport coverage [-from free-exercise-db] -in exercises.json [-data catalogue.json] [-top 40]
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var usage usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		os.Exit(2) // the flag package has printed the problem and the usage
	default:
		fmt.Fprintln(os.Stderr, "catalogimport:", err)
		os.Exit(1)
	}
}
