package systemtest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// assetLink finds the assets /docs loads.
var assetLink = regexp.MustCompile(`(?:href|src)="(docs/assets/[^"]+)"`)

// TestAPIReferencePage checks /docs and its assets over HTTP: public, the
// same whatever the Host, a strict Content-Security-Policy, revalidated
// page and immutable assets, gzip when accepted.
func TestAPIReferencePage(t *testing.T) {
	s := start(t, options{compression: true})
	resp, page := s.do(t, request{path: "/docs", host: "-", headers: map[string]string{"Accept-Encoding": "identity"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /docs: %d %s", resp.StatusCode, page)
	}
	for k, want := range map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"Cache-Control":          "public, no-cache",
		"X-Content-Type-Options": "nosniff",
		"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
			"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("/docs: %s = %q, want %q", k, got, want)
		}
	}
	etag := resp.Header.Get("ETag")
	if r, b := s.do(t, request{path: "/docs", host: "-", headers: map[string]string{"If-None-Match": etag, "Accept-Encoding": "identity"}}); r.StatusCode != http.StatusNotModified || len(b) != 0 {
		t.Errorf("If-None-Match: %d, %d bytes, want 304", r.StatusCode, len(b))
	}
	// A forged Host or X-Gateway-Host and a wrong key change nothing.
	if r, b := s.do(t, request{path: "/docs", host: "evil.example", keyID: "exdb_wrong",
		headers: map[string]string{"Host": "evil.example", "Accept-Encoding": "identity"}}); r.StatusCode != http.StatusOK || string(b) != string(page) {
		t.Errorf("GET /docs with a forged Host: %d, same page %v", r.StatusCode, string(b) == string(page))
	}
	if r, b := s.do(t, request{method: http.MethodHead, path: "/docs", host: "-"}); r.StatusCode != http.StatusOK || len(b) != 0 {
		t.Errorf("HEAD /docs: %d, %d bytes", r.StatusCode, len(b))
	}

	links := assetLink.FindAllStringSubmatch(string(page), -1)
	if len(links) != 3 {
		t.Fatalf("/docs links %d assets, want 3 (stylesheet, bundle, start-up script):\n%s", len(links), page)
	}
	for _, l := range links {
		path := "/" + l[1]
		plain, body := s.do(t, request{path: path, host: "-", headers: map[string]string{"Accept-Encoding": "identity"}})
		if plain.StatusCode != http.StatusOK || len(body) == 0 {
			t.Fatalf("GET %s: %d, %d bytes", path, plain.StatusCode, len(body))
		}
		wantType := "text/javascript; charset=utf-8"
		if strings.HasSuffix(path, ".css") {
			wantType = "text/css; charset=utf-8"
		}
		if got := plain.Header.Get("Content-Type"); got != wantType {
			t.Errorf("%s: Content-Type = %q, want %q", path, got, wantType)
		}
		if got := plain.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control = %q, want immutable", path, got)
		}
		// The Go client asks for gzip and decompresses by itself.
		gz, gzBody := s.do(t, request{path: path, host: "-"})
		if len(body) < 1024 {
			continue // too small to be worth compressing
		}
		if !gz.Uncompressed || string(gzBody) != string(body) || gz.Header.Get("ETag") == plain.Header.Get("ETag") {
			t.Errorf("%s with Accept-Encoding gzip: compressed %v, same body %v, ETag %s (plain %s)", path, gz.Uncompressed,
				string(gzBody) == string(body), gz.Header.Get("ETag"), plain.Header.Get("ETag"))
		}
	}
	if r, _ := s.do(t, request{path: "/docs/assets/swagger-ui-bundle.0000000000000000.js", host: "-"}); r.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown asset: %d, want 404", r.StatusCode)
	}
	// The error pages link to the reference.
	if _, b := s.do(t, request{path: "/docs/errors", host: "-"}); !strings.Contains(string(b), `/docs">`) {
		t.Errorf("/docs/errors does not link /docs:\n%s", b)
	}
}

// TestAPIReferenceTrailingSlash: /docs/, which people type, is a 301 to
// /docs by a relative Location (so behind a path prefix too), query kept;
// a browser that follows it gets the page. Other paths stay exact.
func TestAPIReferenceTrailingSlash(t *testing.T) {
	s := start(t, options{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range []struct{ method, path, want string }{
		{http.MethodGet, "/docs/", "/docs"},
		{http.MethodHead, "/docs/", "/docs"},
		{http.MethodGet, "/docs/?x=1", "/docs?x=1"},
	} {
		req, err := http.NewRequest(tt.method, s.gateway.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if resp.StatusCode != http.StatusMovedPermanently || err != nil || loc.RequestURI() != tt.want ||
			strings.HasPrefix(resp.Header.Get("Location"), "/") {
			t.Errorf("%s %s: %d, Location %q; want 301 to %s, relative", tt.method, tt.path, resp.StatusCode, resp.Header.Get("Location"), tt.want)
		}
	}
	if r, page := s.do(t, request{path: "/docs/", host: "-"}); r.StatusCode != http.StatusOK || r.Request.URL.Path != "/docs" || !assetLink.Match(page) {
		t.Errorf("GET /docs/ followed: %d at %s", r.StatusCode, r.Request.URL.Path)
	}
	for _, path := range []string{"/docs/errors/", "/openapi.json/", "/docs/assets/"} {
		if r, _ := s.do(t, request{path: path, host: "-"}); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404 (paths are exact)", path, r.StatusCode)
		}
	}
}

// TestAPIReferenceInBrowser opens /docs in headless Chromium and uses it
// as a person would: the operations render from /openapi.json, a request
// sent without a key shows the 401 envelope, and one sent after entering
// a key in Authorize shows the 200 body. Every request the page makes
// must go to the gateway itself, and the Content-Security-Policy must
// not have to block anything.
//
// It needs Chromium (Debian's chromium; .ci/run installs it): without
// it the test is skipped, unless CI or EXERCISEDB_BROWSER_TESTS is set.
func TestAPIReferenceInBrowser(t *testing.T) {
	browser := chromiumPath(t)
	s := start(t, options{compression: true})
	origin := s.gateway.URL

	ctx := browserContext(t, browser)
	var mu sync.Mutex
	var urls, problems []string
	ctx, cancel := chromedp.NewContext(ctx, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			urls = append(urls, ev.Request.URL)
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			if d.Exception != nil {
				d.Text += " " + d.Exception.Description
			}
			problems = append(problems, "exception: "+d.Text)
		case *cdplog.EventEntryAdded:
			// Violations of the Content-Security-Policy are errors of the
			// log too. The 401 the test provokes is logged as a failed load.
			e := ev.Entry
			if e.Level == cdplog.EntryLevelError && !(e.Source == cdplog.EntrySourceNetwork && strings.Contains(e.Text, "401")) {
				problems = append(problems, string(e.Source)+": "+e.Text)
			}
		}
	}))
	defer cancel()

	const (
		op        = "#operations-reference-bodyParts"
		hostField = op + ` tr[data-param-name="X-Gateway-Host"] input`
	)
	if err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, t, cdplog.Enable, cdp.Empty{})
			return err
		}),
		chromedp.Navigate(origin+"/docs"),
		chromedp.WaitVisible(chromedp.CSS(op)),
	); err != nil {
		t.Fatalf("opening /docs: %v", err)
	}
	summaries, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".opblock-summary-description")].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if want := documentSummaries(t, s); !equalSets(summaries, want) {
		t.Errorf("the page shows the operations %q, want the document's %q", summaries, want)
	}

	// Without a key: 401 and the error envelope.
	status, body := execute(ctx, t, op,
		chromedp.Click(chromedp.CSS(op+" .opblock-summary-control")),
		// The test's products are served at names, not at 127.0.0.1.
		chromedp.SendKeys(chromedp.CSS(hostField), "api.example.test"),
	)
	if status != "401" || !strings.Contains(body, `"code": "UNAUTHORIZED"`) || !strings.Contains(body, `"requestId": "req_`) {
		t.Errorf("without a key the page shows %s:\n%s", status, body)
	}

	// With the key entered in Authorize: 200 and the list.
	status, body = execute(ctx, t, op,
		chromedp.Click(chromedp.CSS(".auth-wrapper .authorize")),
		chromedp.SendKeys(chromedp.CSS(".modal-ux .auth-container input"), testKeys["key_pro"].key),
		chromedp.Click(chromedp.CSS(".modal-ux .auth-btn-wrapper .authorize")),
		chromedp.Click(chromedp.CSS(".modal-ux .btn-done")),
		chromedp.WaitNotPresent(chromedp.CSS(".modal-ux")),
	)
	if status != "200" || !strings.Contains(body, `"success": true`) || !strings.Contains(body, `"name": "chest"`) {
		t.Errorf("with a key the page shows %s:\n%s", status, body)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(urls) == 0 {
		t.Error("no request was recorded")
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, origin+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page loaded %s, not from the gateway %s", u, origin)
		}
	}
	for _, p := range problems {
		t.Errorf("browser: %s", p)
	}
}

// execute runs the steps, clicks the operation's Execute and returns the
// status and body the page then shows. The previous result, if any, is
// cleared first so that the new one is waited for.
func execute(ctx context.Context, t *testing.T, op string, steps ...chromedp.Action[chromedp.Void]) (status, body string) {
	t.Helper()
	result := op + " .live-responses-table .response"
	steps = append(steps,
		chromedp.Evaluate[chromedp.Void](`document.querySelector("`+op+` .btn-clear")?.click()`),
		chromedp.WaitNotPresent(chromedp.CSS(result)),
		chromedp.Click(chromedp.CSS(op+" .execute")),
		chromedp.WaitVisible(chromedp.CSS(result+" .response-col_description pre")),
	)
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("executing %s: %v", op, err)
	}
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(result+" .response-col_status")))
	if err == nil {
		body, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(result+" .response-col_description pre")))
	}
	if err != nil {
		t.Fatalf("reading the response of %s: %v", op, err)
	}
	return strings.TrimSpace(status), body
}

// documentSummaries are the operation summaries of /openapi.json.
func documentSummaries(t *testing.T, s *system) []string {
	t.Helper()
	_, body := s.do(t, request{path: "/openapi.json", host: "-"})
	var doc struct {
		Paths map[string]map[string]struct {
			Summary string `json:"summary"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, item := range doc.Paths {
		for _, op := range item {
			out = append(out, op.Summary)
		}
	}
	return out
}

func equalSets(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

// chromiumPath finds Chromium, or skips the test when browser tests are
// not required.
// browserContext starts headless Chromium for a test, with a fresh
// profile and nothing that reaches out to the network by itself, for two
// minutes at most; it is stopped when the test ends.
func browserContext(t *testing.T, browser string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ctx, cancel = chromedp.NewExecAllocator(ctx, append(opts, extra...)...)
	t.Cleanup(cancel)
	return ctx
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" || os.Getenv("EXERCISEDB_BROWSER_TESTS") != "" {
		t.Fatal("Chromium is not installed, and CI or EXERCISEDB_BROWSER_TESTS requires the browser tests (apt-get install chromium)")
	}
	t.Skip("Chromium is not installed (apt-get install chromium); set EXERCISEDB_BROWSER_TESTS=1 to make this a failure")
	return ""
}
