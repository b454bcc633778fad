package publish

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// server is an in-process S3 server (gofakes3 on memory) that records the
// object uploads it is sent.
type server struct {
	t      Target
	client *minio.Client

	mu   sync.Mutex
	puts map[string]http.Header // object path ("bucket/key") → request headers
	// onPut, if set, runs before an object upload is served.
	onPut func(path string)
}

func newServer(t *testing.T) *server {
	t.Helper()
	s := &server{puts: map[string]http.Header{}}
	faker := gofakes3.New(s3mem.New())
	h := faker.Server()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An object upload: PUT /bucket/key (a bucket's creation, PUT
		// /bucket or /bucket/, has no key).
		p := strings.TrimPrefix(r.URL.Path, "/")
		if _, key, _ := strings.Cut(p, "/"); r.Method == http.MethodPut && key != "" {
			s.mu.Lock()
			s.puts[p] = r.Header.Clone()
			onPut := s.onPut
			s.mu.Unlock()
			if onPut != nil {
				onPut(p)
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.t = Target{
		Endpoint:  strings.TrimPrefix(ts.URL, "http://"),
		Bucket:    "media",
		AccessKey: "test",
		SecretKey: "testsecret",
	}
	c, err := minio.New(s.t.Endpoint, &minio.Options{Creds: credentials.NewStaticV4("test", "testsecret", "")})
	if err != nil {
		t.Fatal(err)
	}
	s.client = c
	return s
}

// uploads returns the object paths uploaded so far, sorted, and forgets them.
func (s *server) uploads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := slices.Sorted(maps.Keys(s.puts))
	s.puts = map[string]http.Header{}
	return got
}

// header returns the headers of the last upload of an object.
func (s *server) header(path string) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.puts[path]
}

// objects returns every key in a bucket with its size.
func (s *server) objects(t *testing.T, bucket string) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	for obj := range s.client.ListObjectsIter(t.Context(), bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		got[obj.Key] = obj.Size
	}
	return got
}

// writeTree writes files (slash-separated path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// set is a small media set: one exercise and one type, every kind of file.
var set = map[string]string{
	"exercises/humnn3ws/dfddc405f51c37fa/360.gif":     "GIF89a 360",
	"exercises/humnn3ws/dfddc405f51c37fa/360.mp4":     "mp4 360 of humnn3ws",
	"exercises/humnn3ws/dfddc405f51c37fa/poster.png":  "\x89PNG poster",
	"exercises/humnn3ws/dfddc405f51c37fa/muscles.svg": "<svg/>",
	"types/strength/ab12cd34ef56ab78/360.mp4":         "mp4 360 of strength",
}

var wantType = map[string]string{
	".gif": "image/gif",
	".mp4": "video/mp4",
	".png": "image/png",
	".svg": "image/svg+xml",
}

func TestPublishUploadsTheTree(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	writeTree(t, dir, set)

	st, err := Publish(t.Context(), dir, s.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Uploaded != len(set) || st.Skipped != 0 {
		t.Errorf("stats = %+v, want %d uploaded, none skipped", st, len(set))
	}
	var total int64
	for _, content := range set {
		total += int64(len(content))
	}
	if st.Bytes != total {
		t.Errorf("bytes = %d, want %d", st.Bytes, total)
	}
	for key, content := range set {
		info, err := s.client.StatObject(t.Context(), "media", key, minio.StatObjectOptions{})
		if err != nil {
			t.Fatalf("stat %s: %v", key, err)
		}
		if want := wantType[filepath.Ext(key)]; info.ContentType != want {
			t.Errorf("%s: Content-Type %q, want %q", key, info.ContentType, want)
		}
		obj, err := s.client.GetObject(t.Context(), "media", key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(obj)
		obj.Close()
		if err != nil {
			t.Fatalf("get %s: %v", key, err)
		}
		if !bytes.Equal(got, []byte(content)) {
			t.Errorf("%s: content %q, want %q", key, got, content)
		}
		// gofakes3 keeps no Cache-Control, so check what was sent.
		h := s.header("media/" + key)
		if got := h.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: uploaded with Cache-Control %q", key, got)
		}
		if want := wantType[filepath.Ext(key)]; h.Get("Content-Type") != want {
			t.Errorf("%s: uploaded with Content-Type %q, want %q", key, h.Get("Content-Type"), want)
		}
	}
	if got := s.objects(t, "media"); len(got) != len(set) {
		t.Errorf("bucket holds %v, want the %d files", got, len(set))
	}
}

func TestPublishAgainSkipsAll(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	writeTree(t, dir, set)
	if _, err := Publish(t.Context(), dir, s.t, nil); err != nil {
		t.Fatal(err)
	}
	s.uploads()

	st, err := Publish(t.Context(), dir, s.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st != (Stats{Skipped: len(set)}) {
		t.Errorf("stats = %+v, want all %d skipped", st, len(set))
	}
	if got := s.uploads(); len(got) != 0 {
		t.Errorf("uploaded again: %v", got)
	}
}

func TestPublishChangedSetUploadsOnlyNewFiles(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	writeTree(t, dir, set)
	if _, err := Publish(t.Context(), dir, s.t, nil); err != nil {
		t.Fatal(err)
	}
	s.uploads()

	// The next catalogue version: humnn3ws redrawn under a new digest, a
	// new exercise; the old paths are still there, unchanged.
	added := map[string]string{
		"exercises/humnn3ws/0123456789abcdef/360.gif": "GIF89a 360 redrawn",
		"exercises/xk2p9q7a/fedcba9876543210/360.mp4": "mp4 of xk2p9q7a",
	}
	writeTree(t, dir, added)
	st, err := Publish(t.Context(), dir, s.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Uploaded != len(added) || st.Skipped != len(set) {
		t.Errorf("stats = %+v, want %d uploaded, %d skipped", st, len(added), len(set))
	}
	var want []string
	for key := range added {
		want = append(want, "media/"+key)
	}
	slices.Sort(want)
	if got := s.uploads(); !slices.Equal(got, want) {
		t.Errorf("uploaded %v, want %v", got, want)
	}
}

func TestPublishReplacesAnObjectOfAnotherSize(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	writeTree(t, dir, set)
	key := "types/strength/ab12cd34ef56ab78/360.mp4"
	if err := s.client.MakeBucket(t.Context(), "media", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.client.PutObject(t.Context(), "media", key, strings.NewReader("truncated"), 9, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	s.uploads()

	st, err := Publish(t.Context(), dir, s.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Uploaded != len(set) {
		t.Errorf("stats = %+v, want all %d uploaded", st, len(set))
	}
	if got := s.objects(t, "media")[key]; got != int64(len(set[key])) {
		t.Errorf("%s: %d bytes, want %d", key, got, len(set[key]))
	}
}

func TestPublishPrefix(t *testing.T) {
	for _, prefix := range []string{"media/", "media", "/v1/media/"} {
		t.Run(prefix, func(t *testing.T) {
			s := newServer(t)
			dir := t.TempDir()
			writeTree(t, dir, set)
			tg := s.t
			tg.Prefix = prefix
			st, err := Publish(t.Context(), dir, tg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Uploaded != len(set) {
				t.Errorf("stats = %+v", st)
			}
			want := strings.Trim(prefix, "/") + "/"
			for key := range s.objects(t, "media") {
				if !strings.HasPrefix(key, want) || set[strings.TrimPrefix(key, want)] == "" {
					t.Errorf("object %q: not a file of the set under %q", key, want)
				}
			}
			// Objects outside the prefix do not count as present.
			if _, err := s.client.PutObject(t.Context(), "media", "elsewhere.txt", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
			st, err = Publish(t.Context(), dir, tg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st != (Stats{Skipped: len(set)}) {
				t.Errorf("again: stats = %+v, want all %d skipped", st, len(set))
			}
		})
	}
}

func TestPublishCreatesTheBucket(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	writeTree(t, dir, set)
	tg := s.t
	tg.Bucket = "fresh-bucket"
	if ok, err := s.client.BucketExists(t.Context(), tg.Bucket); err != nil || ok {
		t.Fatalf("bucket exists before: %v, %v", ok, err)
	}
	if _, err := Publish(t.Context(), dir, tg, nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.client.BucketExists(t.Context(), tg.Bucket); err != nil || !ok {
		t.Fatalf("bucket exists after: %v, %v", ok, err)
	}
	if got := s.objects(t, tg.Bucket); len(got) != len(set) {
		t.Errorf("bucket holds %v", got)
	}
}

func TestPublishEmptyTree(t *testing.T) {
	s := newServer(t)
	st, err := Publish(t.Context(), t.TempDir(), s.t, nil)
	if err != nil || st != (Stats{}) {
		t.Errorf("Publish of nothing = %+v, %v", st, err)
	}
}

func TestPublishMissingDir(t *testing.T) {
	s := newServer(t)
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Publish(t.Context(), missing, s.t, nil)
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("err = %v, want one naming %s", err, missing)
	}
}

func TestPublishErrorNamesTheFile(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"exercises/a/0000000000000000/360.gif": "x"})
	tg := s.t
	tg.Bucket = "Not_A_Valid_Bucket"
	_, err := Publish(t.Context(), dir, tg, nil)
	if err == nil || !strings.Contains(err.Error(), "Not_A_Valid_Bucket") {
		t.Errorf("err = %v, want one naming the bucket", err)
	}

	// A server that refuses uploads: the error names the file and the upload.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>no</Message></Error>`)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		if r.URL.Query().Has("location") {
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><LocationConstraint></LocationConstraint>`)
			return
		}
		if r.Method == http.MethodHead {
			return // the bucket exists
		}
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>media</Name><IsTruncated>false</IsTruncated></ListBucketResult>`)
	}))
	defer refusing.Close()
	tg = Target{Endpoint: strings.TrimPrefix(refusing.URL, "http://"), Bucket: "media", AccessKey: "a", SecretKey: "b"}
	_, err = Publish(t.Context(), dir, tg, nil)
	if err == nil || !strings.Contains(err.Error(), "upload") || !strings.Contains(err.Error(), "360.gif") {
		t.Errorf("err = %v, want one naming the upload of 360.gif", err)
	}
}

// manyFiles is a set of n files.
func manyFiles(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files["exercises/k"+string(rune('a'+i%26))+string(rune('a'+i/26))+"/0123456789abcdef/360.gif"] = "GIF89a"
	}
	return files
}

func TestPublishCancelledContextStops(t *testing.T) {
	t.Run("before", func(t *testing.T) {
		s := newServer(t)
		dir := t.TempDir()
		writeTree(t, dir, set)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		st, err := Publish(ctx, dir, s.t, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if st.Uploaded != 0 || len(s.uploads()) != 0 {
			t.Errorf("uploaded %+v after the context was cancelled", st)
		}
	})
	t.Run("during", func(t *testing.T) {
		s := newServer(t)
		dir := t.TempDir()
		files := manyFiles(10 * parallel)
		writeTree(t, dir, files)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		// The first upload to reach the server cancels the publish: no
		// upload has finished before, and none starts after.
		s.onPut = func(string) { cancel() }
		st, err := Publish(ctx, dir, s.t, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if sent := s.uploads(); len(sent) > parallel || st.Uploaded > parallel {
			t.Errorf("after the cancel: %d uploads sent, %d done; want at most the %d in flight", len(sent), st.Uploaded, parallel)
		}
		if got := s.objects(t, "media"); len(got) > parallel {
			t.Errorf("bucket holds %d objects, want at most %d", len(got), parallel)
		}
	})
}

func TestContentType(t *testing.T) {
	for name, want := range map[string]string{
		"a/b/360.gif": "image/gif", "360.MP4": "video/mp4", "poster.png": "image/png",
		"muscles.svg": "image/svg+xml", "README": "application/octet-stream",
	} {
		if got := ContentType(name); got != want {
			t.Errorf("ContentType(%q) = %q, want %q", name, got, want)
		}
	}
}
