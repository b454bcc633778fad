package systemtest

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/exercisedb/exercisedb/gateway/medialink"
)

// TestMediaInBrowser loads a page of an app's kind in Chromium: <img> tags
// for the GIFs, posters and muscle maps of a page of exercises and the
// exercise types' icons, and <video> tags for their MP4s, all from the
// gateway's /media on another origin, without a key. Every image must
// decode and every video load its first frame.
func TestMediaInBrowser(t *testing.T) {
	browser := chromiumPath(t)
	needFFmpegForVideo(t)
	s := start(t, options{media: true})
	own := func(url string) string { return strings.Replace(url, "http://media.test", s.gateway.URL, 1) }
	records := list(t, s, request{path: "/api/v1/exercises?limit=8&include=media", keyID: "key_mega"})
	signer := medialink.NewSigner([]byte(testMediaSecret), s.gateway.URL)
	var imgs, videos []string
	for _, x := range records {
		imgs = append(imgs, own(x.ImageURL), own(x.Media.Poster), own(x.Media.MuscleMap))
		videos = append(videos, signer.URL("", medialink.Ref{Key: "exercises/" + x.ID, Digest: digestOf(t, x.ImageURL), File: "360.mp4"}))
	}
	resp, body := s.do(t, request{path: "/api/v1/exercisetypes", keyID: "key_mega"})
	var types struct{ Data []struct{ ImageURL string } }
	if err := json.Unmarshal(body, &types); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("exercise types: %d %s", resp.StatusCode, body)
	}
	for _, ty := range types.Data {
		imgs = append(imgs, own(ty.ImageURL))
	}
	var page strings.Builder
	page.WriteString("<!doctype html><title>media</title>\n")
	for _, u := range imgs {
		fmt.Fprintf(&page, "<img src=\"%s\" height=120>\n", html.EscapeString(u))
	}
	for _, u := range videos {
		fmt.Fprintf(&page, "<video src=\"%s\" muted autoplay loop playsinline preload=auto height=120></video>\n", html.EscapeString(u))
	}
	page.WriteString(`<script>
window.check = async () => {
  const imgs = await Promise.all([...document.images].map(i =>
    i.decode().then(() => ({src: i.src, width: i.naturalWidth}), e => ({src: i.src, error: String(e)}))));
  const videos = await Promise.all([...document.querySelectorAll('video')].map(v => new Promise(done => {
    const report = () => done({src: v.src, width: v.videoWidth, height: v.videoHeight});
    const fail = () => done({src: v.src, error: 'media error ' + (v.error && v.error.code)});
    if (v.readyState >= 2) return report();
    if (v.error) return fail();
    v.addEventListener('loadeddata', report);
    v.addEventListener('error', fail);
  })));
  return JSON.stringify({imgs, videos});
};
</script>`)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page.String()))
	}))
	defer app.Close()

	ctx, cancel := chromedp.NewContext(browserContext(t, browser, chromedp.Flag("autoplay-policy", "no-user-gesture-required")))
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(app.URL)); err != nil {
		t.Fatal(err)
	}
	result, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.check()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Imgs []struct {
			Src   string
			Width int
			Error string
		}
		Videos []struct {
			Src           string
			Width, Height int
			Error         string
		}
	}
	if err := json.Unmarshal([]byte(result), &got); err != nil {
		t.Fatalf("%v: %s", err, result)
	}
	if len(got.Imgs) != len(imgs) || len(got.Videos) != len(videos) {
		t.Fatalf("the page reports %d images and %d videos, want %d and %d", len(got.Imgs), len(got.Videos), len(imgs), len(videos))
	}
	for _, i := range got.Imgs {
		if i.Error != "" || i.Width == 0 {
			t.Errorf("image %s did not decode: %s (width %d)", i.Src, i.Error, i.Width)
		}
	}
	for _, v := range got.Videos {
		if v.Error != "" || v.Height != 360 {
			t.Errorf("video %s did not load: %s (%dx%d)", v.Src, v.Error, v.Width, v.Height)
		}
	}
}

// needFFmpegForVideo skips without ffmpeg, which the catalog needs to make
// MP4s, unless EXERCISEDB_FFMPEG_TESTS requires it.
func needFFmpegForVideo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("EXERCISEDB_FFMPEG_TESTS") != "" {
			t.Fatal("ffmpeg is not installed (apt-get install ffmpeg)")
		}
		t.Skip("ffmpeg is not installed; EXERCISEDB_FFMPEG_TESTS=1 makes this a failure")
	}
}
