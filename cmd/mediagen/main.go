// Command mediagen makes the catalogue's media outside the services: it
// renders the whole media set into a directory (render), uploads it to an
// S3-compatible object store (publish), and draws a contact sheet of
// records for a person to review (sheet).
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/media"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout)
	stop()
	if err != nil && !errors.Is(err, errHelp) {
		fmt.Fprintln(os.Stderr, "mediagen:", err)
		os.Exit(1)
	}
}

var errHelp = errors.New("help printed")

const usage = `Usage: mediagen <command> [flags]

Commands:
  render   render every media file of the catalogue into a directory
  sheet    draw a contact sheet (PNG) of records' demonstrations and muscle maps
  publish  upload a rendered directory to an S3-compatible object store

mediagen <command> -h lists the command's flags.
`

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return errHelp
	}
	switch args[0] {
	case "render":
		return render(ctx, args[1:], stdout)
	case "sheet":
		return sheet(args[1:], stdout)
	case "publish":
		return publishCmd(ctx, args[1:], getenv, stdout)
	}
	return fmt.Errorf("unknown command %q (mediagen -h lists them)", args[0])
}

// library loads the catalogue (the embedded one unless path names a file)
// and resolves its media.
func library(path string) (*exercise.Catalogue, *media.Library, error) {
	data := dataset.Default()
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, nil, err
		}
	}
	c, err := exercise.Load(bytes.Clone(data))
	if err != nil {
		return nil, nil, err
	}
	return c, media.NewLibrary(c.All(), c.Vocabularies().ExerciseTypes), nil
}
