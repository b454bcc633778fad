package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/exercisedb/exercisedb/catalog/media/publish"
)

// publishCmd uploads a rendered media set to an S3-compatible bucket, file
// by file, skipping what is there already (names are content addresses).
func publishCmd(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mediagen publish", flag.ContinueOnError)
	fs.SetOutput(stdout)
	dir := fs.String("dir", "", "rendered `directory` (mediagen render -out) to upload (required)")
	endpoint := fs.String("endpoint", "", "object store `host:port`, e.g. 127.0.0.1:8333 (required)")
	bucket := fs.String("bucket", "media", "bucket `name`, created if missing")
	prefix := fs.String("prefix", "", "key `prefix` inside the bucket")
	secure := fs.Bool("secure", false, "speak HTTPS to the object store")
	region := fs.String("region", "", "bucket `region`, if the store needs one")
	if err := fs.Parse(args); err != nil {
		return helpOr(err)
	}
	if *dir == "" || *endpoint == "" {
		return fmt.Errorf("publish: -dir and -endpoint are required (mediagen publish -h)")
	}
	log := slog.New(slog.NewTextHandler(stdout, nil))
	stats, err := publish.Publish(ctx, *dir, publish.Target{
		Endpoint: *endpoint, Secure: *secure, Bucket: *bucket, Prefix: *prefix, Region: *region,
		// Credentials come from the environment only: flags show in ps.
		AccessKey: getenv("S3_ACCESS_KEY"), SecretKey: getenv("S3_SECRET_KEY"),
	}, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "published %s to %s/%s%s: %d uploaded (%d bytes), %d already there\n",
		*dir, *endpoint, *bucket, "/"+*prefix, stats.Uploaded, stats.Bytes, stats.Skipped)
	return nil
}
