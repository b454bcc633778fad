package systemtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/medialink"
)

// mediaJSON is a record's media as the API writes them.
type mediaJSON struct {
	MuscleMap  string `json:"muscleMap"`
	Poster     string `json:"poster"`
	Renditions []struct {
		Height int    `json:"height"`
		Type   string `json:"type"`
		URL    string `json:"url"`
	} `json:"renditions"`
}

type mediaRecord struct {
	ID       string     `json:"exerciseId"`
	ImageURL string     `json:"imageUrl"`
	Media    *mediaJSON `json:"media"`
}

// mediaPath is the path of one of the gateway's media URLs.
func mediaPath(t *testing.T, url string) string {
	t.Helper()
	p, ok := strings.CutPrefix(url, "http://media.test/media/")
	if !ok {
		t.Fatalf("media URL %q is not under the gateway's /media/", url)
	}
	return "/media/" + p
}

func list(t *testing.T, s *system, r request) []mediaRecord {
	t.Helper()
	resp, body := s.do(t, r)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", r.path, resp.StatusCode, body)
	}
	var out struct{ Data []mediaRecord }
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Data
}

// TestMediaListedByPlan checks include=media: the product's kind at each
// height the plan allows, smallest first, a muscle map and a poster; and
// imageUrl at 360 pixels on every plan.
func TestMediaListedByPlan(t *testing.T) {
	s := start(t, options{media: true})
	tests := []struct {
		name, key, host, path string
		heights               []int
		contentType, ext      string
		base                  string
	}{
		{"Basic: 180 only", "key_basic", "", "/api/v1/exercises/bodyparts?bodyParts=back&limit=2&include=media", []int{180}, "image/gif", ".gif", "http://media.test/media/"},
		{"Pro: the default, up to 360", "key_pro", "", "/api/v1/exercises?limit=2&include=media", []int{180, 360}, "image/gif", ".gif", "http://media.test/media/"},
		{"Mega: up to 720", "key_mega", "", "/api/v1/exercises?limit=2&include=MEDIA,tips", []int{180, 360, 720}, "image/gif", ".gif", "http://media.test/media/"},
		{"video from a published set", "key_video", "video.example.test", "/api/v1/exercises?limit=2&include=media", []int{180, 360, 720}, "video/mp4", ".mp4", "https://cdn.example.test/media/exercises/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			records := list(t, s, request{path: tt.path, keyID: tt.key, host: tt.host})
			if len(records) != 2 {
				t.Fatalf("%d records, want 2", len(records))
			}
			for _, x := range records {
				if !strings.HasPrefix(x.ImageURL, tt.base) || !strings.HasSuffix(x.ImageURL, "/360"+tt.ext) {
					t.Errorf("%s: imageUrl %q, want %s…/360%s", x.ID, x.ImageURL, tt.base, tt.ext)
				}
				if x.Media == nil {
					t.Fatalf("%s: no media", x.ID)
				}
				var heights []int
				for _, r := range x.Media.Renditions {
					heights = append(heights, r.Height)
					if r.Type != tt.contentType || !strings.HasSuffix(r.URL, fmt.Sprintf("/%d%s", r.Height, tt.ext)) || !strings.HasPrefix(r.URL, tt.base) {
						t.Errorf("%s: rendition %+v, want %s at %s…/%d%s", x.ID, r, tt.contentType, tt.base, r.Height, tt.ext)
					}
				}
				if !slices.Equal(heights, tt.heights) {
					t.Errorf("%s: heights %v, want %v", x.ID, heights, tt.heights)
				}
				if !strings.HasSuffix(x.Media.MuscleMap, "/muscles.svg") || !strings.HasSuffix(x.Media.Poster, "/poster.png") {
					t.Errorf("%s: muscle map %q, poster %q", x.ID, x.Media.MuscleMap, x.Media.Poster)
				}
			}
		})
	}
	t.Run("no include, no media", func(t *testing.T) {
		for _, x := range list(t, s, request{path: "/api/v1/exercises?limit=2", keyID: "key_pro"}) {
			if x.Media != nil || x.ImageURL == "" {
				t.Errorf("%s: media %v, imageUrl %q; want none and an imageUrl", x.ID, x.Media, x.ImageURL)
			}
		}
	})
	t.Run("one exercise has its media always", func(t *testing.T) {
		id := list(t, s, request{path: "/api/v1/exercises?limit=1", keyID: "key_pro"})[0].ID
		resp, body := s.do(t, request{path: "/api/v1/exercises/" + id, keyID: "key_pro"})
		var out struct{ Data mediaRecord }
		if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != http.StatusOK || out.Data.Media == nil {
			t.Fatalf("GET /api/v1/exercises/%s: %d, media %v, %v", id, resp.StatusCode, out.Data.Media, err)
		}
	})
	t.Run("an unknown include names media among the values", func(t *testing.T) {
		resp, body := s.do(t, request{path: "/api/v1/exercises?include=pictures", keyID: "key_pro"})
		if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte("pictures")) || !bytes.Contains(body, []byte("media")) {
			t.Errorf("include=pictures: %d %s", resp.StatusCode, body)
		}
	})
}

// magic is how each kind of file starts.
var magic = map[string][]byte{
	"image/gif":     []byte("GIF89a"),
	"image/png":     []byte("\x89PNG\r\n\x1a\n"),
	"image/svg+xml": []byte("<svg"),
}

// TestMediaServed fetches every file a record's media list, and an
// exercise type's icon, without a key: the right type and bytes, a strong
// ETag that gives 304, Range, HEAD, and a year of public caching.
func TestMediaServed(t *testing.T) {
	s := start(t, options{media: true})
	x := list(t, s, request{path: "/api/v1/exercises?limit=1&include=media", keyID: "key_mega"})[0]
	urls := map[string]string{x.ImageURL: "image/gif", x.Media.MuscleMap: "image/svg+xml", x.Media.Poster: "image/png"}
	for _, r := range x.Media.Renditions {
		urls[r.URL] = r.Type
	}
	resp, body := s.do(t, request{path: "/api/v1/exercisetypes", keyID: "key_mega"})
	var types struct {
		Data []struct{ Name, ImageURL string }
	}
	if err := json.Unmarshal(body, &types); err != nil || resp.StatusCode != http.StatusOK || len(types.Data) == 0 {
		t.Fatalf("exercise types: %d %s", resp.StatusCode, body)
	}
	for _, ty := range types.Data {
		urls[ty.ImageURL] = "image/gif"
	}
	for url, wantType := range urls {
		path := mediaPath(t, url)
		resp, body := s.do(t, request{path: path, host: "-"})
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
			continue
		}
		if got := resp.Header.Get("Content-Type"); got != wantType || !bytes.HasPrefix(body, magic[wantType]) && !(wantType == "image/svg+xml" && bytes.Contains(body[:200], magic[wantType])) {
			t.Errorf("GET %s: Content-Type %q, starts %q; want %s", path, got, body[:min(8, len(body))], wantType)
		}
		if got := resp.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control %q", path, got)
		}
		etag := resp.Header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) {
			t.Errorf("GET %s: ETag %q, want a strong one", path, etag)
		}
		if r, b := s.do(t, request{path: path, host: "-", headers: map[string]string{"If-None-Match": etag}}); r.StatusCode != http.StatusNotModified || len(b) != 0 {
			t.Errorf("GET %s with If-None-Match: %d, %d bytes; want 304", path, r.StatusCode, len(b))
		}
		r, part := s.do(t, request{path: path, host: "-", headers: map[string]string{"Range": "bytes=0-9"}})
		if r.StatusCode != http.StatusPartialContent || !bytes.Equal(part, body[:10]) || r.Header.Get("Content-Range") != fmt.Sprintf("bytes 0-9/%d", len(body)) {
			t.Errorf("GET %s with Range: %d %q, Content-Range %q", path, r.StatusCode, part, r.Header.Get("Content-Range"))
		}
		if r, b := s.do(t, request{method: http.MethodHead, path: path, host: "-"}); r.StatusCode != http.StatusOK || len(b) != 0 || r.ContentLength != int64(len(body)) {
			t.Errorf("HEAD %s: %d, %d bytes, length %d", path, r.StatusCode, len(b), r.ContentLength)
		}
	}
}

// TestMediaForgedURLsRefused alters issued URLs every way a client might:
// each is a 403 in the envelope, and a URL signed for a digest the
// catalogue does not hold is a 404.
func TestMediaForgedURLsRefused(t *testing.T) {
	s := start(t, options{media: true})
	x := list(t, s, request{path: "/api/v1/exercises?limit=1&include=media", keyID: "key_pro"})[0]
	path := mediaPath(t, x.ImageURL) // /media/<sig>/exercises/<id>/<digest>/360.gif
	parts := strings.Split(path, "/")
	sig := parts[2]
	forged := map[string]string{
		"height raised beyond the plan": strings.Replace(path, "/360.gif", "/720.gif", 1),
		"kind changed":                  strings.Replace(path, "/360.gif", "/360.mp4", 1),
		"another file":                  strings.Replace(path, "/360.gif", "/poster.png", 1),
		"another exercise":              strings.Replace(path, x.ID, "zzzzzzzz", 1),
		"signature altered":             strings.Replace(path, sig, strings.Repeat("A", len(sig)), 1),
		"no signature":                  strings.Replace(path, "/"+sig, "", 1),
		"nothing after /media/":         "/media/",
		"a signature alone":             "/media/" + sig,
		"dot segments":                  "/media/" + sig + "/../../api/v1/exercises",
	}
	for name, p := range forged {
		resp, body := s.do(t, request{path: p, host: "-"})
		if name == "dot segments" && resp.StatusCode == http.StatusNotFound {
			continue // the router may refuse the path itself, in the envelope
		}
		var env struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(body, &env); err != nil || resp.StatusCode != http.StatusForbidden || env.Error.Code != "FORBIDDEN" ||
			!strings.Contains(env.Error.Message, "not issued by this gateway") {
			t.Errorf("%s: GET %s: %d %s", name, p, resp.StatusCode, body)
		}
	}
	stale := medialink.NewSigner([]byte(testMediaSecret), "http://media.test").URL("", medialink.Ref{Key: "exercises/" + x.ID, Digest: "0000000000000000", File: "360.gif"})
	resp, body := s.do(t, request{path: mediaPath(t, stale), host: "-"})
	if resp.StatusCode != http.StatusNotFound || !bytes.Contains(body, []byte(`"NOT_FOUND"`)) {
		t.Errorf("a digest the catalogue does not hold: %d %s", resp.StatusCode, body)
	}
	resp, body = s.do(t, request{path: path + "?w=720", host: "-"})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a query on a media URL: %d %s", resp.StatusCode, body)
	}
}

// TestMediaVideo fetches an MP4 through the gateway and reads it with
// ffprobe: H.264, yuv420p, 360 pixels high, its index first (faststart).
// It needs Debian's ffmpeg; CI sets EXERCISEDB_FFMPEG_TESTS so that a
// missing ffmpeg fails rather than skips.
func TestMediaVideo(t *testing.T) {
	needFFmpegForVideo(t) // ffprobe comes with it
	s := start(t, options{media: true})
	x := list(t, s, request{path: "/api/v1/exercises?limit=1&include=media", keyID: "key_mega"})[0]
	// The video product points at a CDN; its files are also the gateway's.
	url := medialink.NewSigner([]byte(testMediaSecret), "http://media.test").URL("", medialink.Ref{Key: "exercises/" + x.ID, Digest: digestOf(t, x.ImageURL), File: "360.mp4"})
	resp, body := s.do(t, request{path: mediaPath(t, url), host: "-"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "video/mp4" {
		t.Fatalf("GET the MP4: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// faststart: the moov box comes before mdat.
	if moov, mdat := bytes.Index(body, []byte("moov")), bytes.Index(body, []byte("mdat")); moov < 0 || mdat < 0 || moov > mdat {
		t.Errorf("moov at %d, mdat at %d: want the index first", moov, mdat)
	}
	f, err := os.CreateTemp(t.TempDir(), "*.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(body); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,pix_fmt,height", "-of", "default=noprint_wrappers=1", f.Name()).CombinedOutput()
	if err != nil {
		t.Fatalf("ffprobe: %v: %s", err, out)
	}
	for _, want := range []string{"codec_name=h264", "pix_fmt=yuv420p", "height=360"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("ffprobe says %q, want %s", out, want)
		}
	}
}

// digestOf reads the digest out of a media URL: …/<digest>/<file>.
func digestOf(t *testing.T, url string) string {
	t.Helper()
	parts := strings.Split(url, "/")
	if len(parts) < 3 {
		t.Fatalf("media URL %q has no digest", url)
	}
	return parts[len(parts)-2]
}
