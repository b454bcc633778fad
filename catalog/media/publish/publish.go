// Package publish uploads a rendered media set to an S3-compatible object
// store, from which a CDN serves it to the products whose media.base_url
// points there.
//
// A media set is a directory laid out as <dir>/<media key>/<digest>/<file>.
// Its paths are content-addressed: the bytes at a path never change, so an
// object that is already in the bucket with the file's size is the file,
// and publishing the next catalogue version uploads only what is new.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"golang.org/x/sync/errgroup"
)

// Target is an S3-compatible bucket.
type Target struct {
	Endpoint string // host:port, e.g. 127.0.0.1:8333
	Secure   bool   // https
	Bucket   string
	// Prefix is a key prefix inside the bucket: "" or a folder such as
	// "media/" (a missing trailing slash is added, a leading one dropped).
	Prefix               string
	AccessKey, SecretKey string // both empty: anonymous requests
	Region               string // optional
}

// Stats counts what a Publish did.
type Stats struct {
	Uploaded, Skipped int   // files
	Bytes             int64 // bytes uploaded
}

// CacheControl is the Cache-Control of every published object: a path's
// content never changes.
const CacheControl = "public, max-age=31536000, immutable"

// parallel is how many uploads are in flight at once.
const parallel = 4

// contentTypes are the media types of the files a media set holds.
var contentTypes = map[string]string{
	".gif": "image/gif",
	".mp4": "video/mp4",
	".png": "image/png",
	".svg": "image/svg+xml",
}

// ContentType returns the media type of a file by its extension.
func ContentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// file is one file of the set.
type file struct {
	abs  string // path on disk
	rel  string // slash-separated path under dir
	size int64
}

// Publish uploads every file under dir to the target under the same
// relative path (slash-separated, after t.Prefix), skipping objects that
// are already present with the same size. Objects get a Content-Type by
// extension and Cache-Control CacheControl. A few uploads run in
// parallel; the bucket is created if missing. Cancelling ctx stops the
// uploads not yet begun and aborts those in flight.
func Publish(ctx context.Context, dir string, t Target, log *slog.Logger) (Stats, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if t.Endpoint == "" || t.Bucket == "" {
		return Stats{}, errors.New("publish: target: endpoint and bucket are required")
	}
	prefix := strings.TrimPrefix(t.Prefix, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}

	files, err := walk(ctx, dir)
	if err != nil {
		return Stats{}, err
	}

	client, err := minio.New(t.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(t.AccessKey, t.SecretKey, ""),
		Secure: t.Secure,
		Region: t.Region,
	})
	if err != nil {
		return Stats{}, fmt.Errorf("publish: client for %s: %w", t.Endpoint, err)
	}
	where := t.Bucket + "/" + prefix
	if err := ensureBucket(ctx, client, t); err != nil {
		return Stats{}, canceled(ctx, err)
	}
	present, err := list(ctx, client, t.Bucket, prefix)
	if err != nil {
		return Stats{}, canceled(ctx, err)
	}

	var (
		st Stats
		mu sync.Mutex
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for _, f := range files {
		key := prefix + f.rel
		if size, ok := present[key]; ok {
			if size == f.size {
				st.Skipped++
				continue
			}
			// Content-addressed paths should not change: say so, and
			// replace the object with the file.
			log.Warn("media publish: object differs in size from its file; uploading again",
				"key", key, "object_bytes", size, "file_bytes", f.size)
		}
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			if err := upload(gctx, client, t.Bucket, key, f); err != nil {
				return err
			}
			log.Debug("media publish: uploaded", "key", key, "bytes", f.size)
			mu.Lock()
			st.Uploaded++
			st.Bytes += f.size
			mu.Unlock()
			return nil
		})
	}
	err = g.Wait()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		log.Warn("media publish: stopped", "target", where, "uploaded", st.Uploaded, "skipped", st.Skipped, "error", err)
		return st, canceled(ctx, err)
	}
	log.Info("media publish: done", "dir", dir, "target", where, "uploaded", st.Uploaded, "skipped", st.Skipped, "bytes", st.Bytes)
	return st, nil
}

// canceled makes err wrap the context's error when ctx was cancelled, so
// that errors.Is(err, context.Canceled) holds whichever request saw it.
func canceled(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", err, cerr)
	}
	return err
}

// walk lists the regular files under dir (following symbolic links to
// files), in lexical order.
func walk(ctx context.Context, dir string) ([]file, error) {
	var files []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("publish: read %s: %w", p, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := os.Stat(p) // follows a link
		if err != nil {
			return fmt.Errorf("publish: stat %s: %w", p, err)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return fmt.Errorf("publish: path of %s: %w", p, err)
		}
		files = append(files, file{abs: p, rel: filepath.ToSlash(rel), size: info.Size()})
		return nil
	})
	return files, err
}

// ensureBucket creates the bucket if it does not exist.
func ensureBucket(ctx context.Context, c *minio.Client, t Target) error {
	ok, err := c.BucketExists(ctx, t.Bucket)
	if err != nil {
		return fmt.Errorf("publish: check bucket %s: %w", t.Bucket, err)
	}
	if ok {
		return nil
	}
	err = c.MakeBucket(ctx, t.Bucket, minio.MakeBucketOptions{Region: t.Region})
	if err != nil {
		// Another publisher may have made it meanwhile.
		if code := minio.ToErrorResponse(err).Code; code == minio.BucketAlreadyOwnedByYou || code == minio.BucketAlreadyExists {
			return nil
		}
		return fmt.Errorf("publish: create bucket %s: %w", t.Bucket, err)
	}
	return nil
}

// list returns the size of every object under prefix, by key.
func list(ctx context.Context, c *minio.Client, bucket, prefix string) (map[string]int64, error) {
	present := map[string]int64{}
	for obj := range c.ListObjectsIter(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("publish: list bucket %s under %q: %w", bucket, prefix, obj.Err)
		}
		present[obj.Key] = obj.Size
	}
	return present, nil
}

// upload puts one file.
func upload(ctx context.Context, c *minio.Client, bucket, key string, f file) error {
	r, err := os.Open(f.abs)
	if err != nil {
		return fmt.Errorf("publish: open %s: %w", f.abs, err)
	}
	defer r.Close()
	_, err = c.PutObject(ctx, bucket, key, r, f.size, minio.PutObjectOptions{
		ContentType:  ContentType(f.rel),
		CacheControl: CacheControl,
	})
	if err != nil {
		return fmt.Errorf("publish: upload %s to %s/%s: %w", f.abs, bucket, key, err)
	}
	return nil
}
