package systemtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var requestIDPattern = regexp.MustCompile(`^req_[a-z2-7]{16}$`)

// apiCase is a request whose response a golden file holds.
type apiCase struct {
	name   string
	before []request // sent first, responses ignored
	req    request
	opts   options
}

// apiCases are every endpoint and error path, each with its golden file
// testdata/golden/<name>.txt.
func apiCases(t *testing.T) []apiCase {
	chest3 := "/api/v1/exercises/bodyparts?bodyParts=chest&limit=3"
	return []apiCase{
		// Success shapes.
		{name: "bodyparts-first-page", req: request{path: chest3, keyID: "key_pro"}},
		{name: "bodyparts-next-page", req: request{path: chest3 + "&after=humnn3ws", keyID: "key_pro"}},
		{name: "bodyparts-previous-page", req: request{path: chest3 + "&before=uy34skpt", keyID: "key_pro"}},
		{name: "bodyparts-all", req: request{path: "/api/v1/exercises/bodyparts", keyID: "key_mega"}},
		{name: "exercises-filters", req: request{path: "/api/v1/exercises?bodyParts=CHEST,%20back&equipments=barbell&difficulty=intermediate,advanced", keyID: "key_pro"}},
		{name: "exercises-name-search", req: request{path: "/api/v1/exercises?name=Pull%20Up", keyID: "key_pro"}},
		{name: "exercises-repeated-filter", req: request{path: "/api/v1/exercises?exerciseTypes=yoga&exerciseTypes=plyometrics", keyID: "key_pro"}},
		{name: "exercises-empty", req: request{path: "/api/v1/exercises?equipments=treadmill", keyID: "key_pro"}},
		{name: "exercise-gif", req: request{path: "/api/v1/exercises/humnn3ws", keyID: "key_mega"}},
		{name: "exercise-video", req: request{path: "/api/v1/exercises/humnn3ws", keyID: "key_mega", host: "video.example.test"}},
		{name: "exercise-without-media", req: request{path: "/api/v1/exercises/" + idOf(t, "plank"), keyID: "key_mega"}},
		{name: "exercises-include", req: request{path: "/api/v1/exercises?bodyParts=chest&limit=2&include=Description,%20aliases,,tips", keyID: "key_pro"}},
		{name: "bodyparts-include-all", req: request{path: "/api/v1/exercises/bodyparts?bodyParts=neck&include=description,instructions,tips,aliases", keyID: "key_pro"}},
		{name: "variations", req: request{path: "/api/v1/exercises/6zulzjby/variations", keyID: "key_pro"}},
		{name: "variations-include", req: request{path: "/api/v1/exercises/tvnp2vgl/variations?include=instructions", keyID: "key_pro"}},
		{name: "alternatives", req: request{path: "/api/v1/exercises/humnn3ws/alternatives", keyID: "key_pro"}},
		{name: "alternatives-filtered", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?equipments=body%20weight", keyID: "key_pro"}},
		// A bench comes with dumbbells; nothing of a pull-up's pattern
		// needs only a barbell, so the list falls back on rows.
		{name: "alternatives-bench-at-hand", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?equipments=dumbbell", keyID: "key_pro"}},
		{name: "alternatives-fallback", req: request{path: "/api/v1/exercises/tvnp2vgl/alternatives?equipments=barbell", keyID: "key_pro"}},
		{name: "alternatives-first-page", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?limit=1", keyID: "key_pro"}},
		{name: "alternatives-next-page", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?limit=1&after=" + idOf(t, "dumbbell chest press on stability ball"), keyID: "key_pro"}},
		// Backward from the last alternative: ranked order, not id order.
		{name: "alternatives-previous-page", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?limit=2&before=" + idOf(t, "dumbbell incline bench press"), keyID: "key_pro"}},
		{name: "search", req: request{path: "/api/v1/exercises?q=DB%20curls&limit=3", keyID: "key_pro"}},
		{name: "search-typo", req: request{path: "/api/v1/exercises?q=pulup", keyID: "key_pro"}},
		{name: "search-prefix", req: request{path: "/api/v1/exercises?q=inclin%20pre", keyID: "key_pro"}},
		{name: "search-filtered", req: request{path: "/api/v1/exercises?q=press&equipments=barbell", keyID: "key_pro"}},
		{name: "search-next-page", req: request{path: "/api/v1/exercises?q=press&limit=1&after=humnn3ws", keyID: "key_pro"}},
		{name: "search-nothing", req: request{path: "/api/v1/exercises?q=zzzz", keyID: "key_pro"}},
		{name: "search-words-set-aside", req: request{path: "/api/v1/exercises?q=pull-up%20qxzv&limit=2", keyID: "key_pro"}},
		{name: "facets", req: request{path: "/api/v1/exercises?facets=bodyParts,difficulty&equipments=dumbbell&bodyParts=chest&limit=1", keyID: "key_pro"}},
		{name: "facets-search", req: request{path: "/api/v1/exercises?q=curl&facets=equipments,movementPatterns&limit=1", keyID: "key_pro"}},
		{name: "facets-unknown", req: request{path: "/api/v1/exercises?facets=bodyParts,colour", keyID: "key_pro"}},
		{name: "exercisetypes", req: request{path: "/api/v1/exercisetypes", keyID: "key_pro"}},
		{name: "bodyparts", req: request{path: "/api/v1/bodyparts", keyID: "key_pro"}},
		{name: "muscles", req: request{path: "/api/v1/muscles", keyID: "key_basic"}},
		{name: "equipments", req: request{path: "/api/v1/equipments", keyID: "key_mega"}},
		{name: "movementpatterns", req: request{path: "/api/v1/movementpatterns", keyID: "key_pro"}},
		{name: "exercises-training", req: request{path: "/api/v1/exercises?movementPatterns=Elbow%20Flexion&mechanics=isolation&laterality=bilateral,%20alternating&include=training&limit=2", keyID: "key_pro"}},
		{name: "exercises-training-time", req: request{path: "/api/v1/exercises?measure=time&force=static,other&include=training&limit=2", keyID: "key_pro"}},
		{name: "alternatives-training", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?mechanics=compound&force=push&include=training&limit=2", keyID: "key_pro"}},
		{name: "usage-limited", req: request{path: "/api/v1/usage", keyID: "key_basic"}},
		{name: "liveness", req: request{path: "/api/v1/liveness", keyID: "key_mega"}},
		{name: "head", req: request{method: "HEAD", path: "/api/v1/bodyparts", keyID: "key_mega"}},
		{name: "host-header-resolves-product", req: request{path: "/api/v1/exercisetypes", keyID: "key_video", host: "-", headers: map[string]string{"Host": "VIDEO.example.test:443"}}},
		{name: "record-cap-total", req: request{path: chest3, keyID: "key_basic"}},
		// The empty page after the last record the cap reaches, and back.
		{name: "record-cap-page-after-last", req: request{path: chest3 + "&after=humnn3ws", keyID: "key_basic"}},
		{name: "record-cap-back-from-page-after-last", req: request{path: chest3 + "&before=" + idAfter(t, "humnn3ws"), keyID: "key_basic"}},
		// Several exercises by id: in the order given, unknown ones in
		// meta.missingIds, include applied; the cap keeps the first found.
		{name: "exercises-ids", req: request{path: "/api/v1/exercises?ids=uy34skpt,%20zzzzzzzz,humnn3ws,,uy34skpt,a.b&include=tips", keyID: "key_pro"}},
		{name: "exercises-ids-capped", req: request{path: "/api/v1/exercises?ids=uy34skpt,2u3xkyps,zzzzzzzz,humnn3ws,bykvsiz3", keyID: "key_capped", host: "video.example.test"}},
		{name: "cors-preflight", opts: options{cors: []string{"https://app.example.com"}}, req: request{method: "OPTIONS", path: "/api/v1/bodyparts", host: "-",
			headers: map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "GET"}}},
		{name: "cors-preflight-refused-origin", opts: options{cors: []string{"https://app.example.com"}}, req: request{method: "OPTIONS", path: "/api/v1/bodyparts", host: "-",
			headers: map[string]string{"Origin": "https://evil.example.net", "Access-Control-Request-Method": "GET"}}},
		// Conditional requests.
		{name: "if-none-match", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", headers: map[string]string{"If-None-Match": `"x", W/` + etagOf(t, "/api/v1/bodyparts")}}},
		{name: "if-match-mismatch", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", headers: map[string]string{"If-Match": `"stale"`}}},
		{name: "if-match-star", req: request{path: "/api/v1/muscles", keyID: "key_mega", headers: map[string]string{"If-Match": `*`}}},
		{name: "if-match-weak-never-matches", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", headers: map[string]string{"If-Match": "W/" + etagOf(t, "/api/v1/bodyparts")}}},
		// Errors, in the order of checks.
		{name: "unknown-path", req: request{path: "/api/v1/exercise", keyID: "key_mega"}},
		{name: "trailing-slash", req: request{path: "/api/v1/bodyparts/", keyID: "key_mega"}},
		{name: "encoded-slash", req: request{path: "/api%2Fv1%2Fbodyparts", keyID: "key_mega"}},
		{name: "encoded-slash-in-id", req: request{path: "/api/v1/exercises/humnn3ws%2fvariations", keyID: "key_mega"}},
		{name: "method-not-allowed", req: request{method: "POST", path: "/api/v1/bodyparts", keyID: "key_mega"}},
		{name: "unknown-product", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", host: "nope.example.test"}},
		{name: "repeated-host", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", again: map[string]string{"X-Gateway-Host": "api.example.test"}}},
		{name: "missing-key", req: request{path: "/api/v1/bodyparts"}},
		{name: "repeated-key", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", again: map[string]string{"X-Gateway-Key": testKeys["key_mega"].key}}},
		{name: "invalid-key", req: request{path: "/api/v1/bodyparts", keyID: "exdb_wrong"}},
		{name: "disabled-key", req: request{path: "/api/v1/bodyparts", keyID: "key_disabled"}},
		{name: "auth-failures-limited", before: []request{
			{path: "/api/v1/bodyparts", keyID: "exdb_guess1"}, {path: "/api/v1/bodyparts", keyID: "exdb_guess2"}, {path: "/api/v1/bodyparts", keyID: "exdb_guess3"},
		}, req: request{path: "/api/v1/bodyparts", keyID: "exdb_guess4"}}, // a valid key would pass
		{name: "no-subscription", req: request{path: "/api/v1/bodyparts", keyID: "key_video"}},
		{name: "plan-not-offered", req: request{path: "/api/v1/bodyparts", keyID: "key_noplan"}},
		{name: "operation-not-in-plan", req: request{path: "/api/v1/exercises", keyID: "key_basic"}},
		{name: "cursor-beyond-cap", req: request{path: "/api/v1/exercises/bodyparts?bodyParts=chest&after=qzwm42zn", keyID: "key_basic"}},
		{name: "rate-limited", before: []request{
			{path: "/api/v1/bodyparts", keyID: "key_basic"}, {path: "/api/v1/bodyparts", keyID: "key_basic"}, {path: "/api/v1/bodyparts", keyID: "key_basic"},
			{path: "/api/v1/bodyparts", keyID: "key_basic"}, {path: "/api/v1/bodyparts", keyID: "key_basic"},
		}, req: request{path: "/api/v1/bodyparts", keyID: "key_basic"}},
		{name: "quota-used-up", before: []request{{path: "/api/v1/bodyparts", keyID: "key_ultra"}},
			req: request{path: "/api/v1/bodyparts", keyID: "key_ultra"}},
		{name: "unknown-parameter", req: request{path: "/api/v1/exercises?bodypart=chest&limit=2", keyID: "key_pro"}},
		{name: "ids-with-filters-and-cursor", req: request{path: "/api/v1/exercises?ids=humnn3ws&q=press&bodyParts=chest&limit=2&after=uy34skpt", keyID: "key_pro"}},
		{name: "ids-too-many", req: request{path: "/api/v1/exercises?ids=" + strings.Repeat("humnn3ws,", 101), keyID: "key_pro"}},
		{name: "parameter-on-reference-list", req: request{path: "/api/v1/muscles?limit=2", keyID: "key_pro"}},
		{name: "limit-zero", req: request{path: "/api/v1/exercises?limit=0", keyID: "key_pro"}},
		{name: "limit-too-big", req: request{path: "/api/v1/exercises?limit=26", keyID: "key_pro"}},
		{name: "limit-words", req: request{path: "/api/v1/exercises?limit=ten", keyID: "key_pro"}},
		{name: "limit-empty", req: request{path: "/api/v1/exercises?limit=", keyID: "key_pro"}},
		{name: "limit-fraction", req: request{path: "/api/v1/exercises?limit=1.5", keyID: "key_pro"}},
		{name: "limit-negative", req: request{path: "/api/v1/exercises?limit=-1", keyID: "key_pro"}},
		{name: "limit-repeated", req: request{path: "/api/v1/exercises?limit=1&limit=2", keyID: "key_pro"}},
		{name: "both-cursors", req: request{path: "/api/v1/exercises?after=humnn3ws&before=uy34skpt", keyID: "key_pro"}},
		{name: "empty-cursor", req: request{path: "/api/v1/exercises?after=", keyID: "key_pro"}},
		{name: "unknown-cursor", req: request{path: "/api/v1/exercises?after=zzzzzzzz", keyID: "key_pro"}},
		{name: "malformed-cursor", req: request{path: "/api/v1/exercises?before=a%2Fb", keyID: "key_pro"}},
		{name: "unknown-values", req: request{path: "/api/v1/exercises?bodyParts=chest,chst&difficulty=expert&equipments=hammer", keyID: "key_pro"}},
		{name: "unknown-training-values", req: request{path: "/api/v1/exercises?movementPatterns=press&mechanics=multi-joint&force=drag&laterality=both&measure=sets", keyID: "key_pro"}},
		{name: "malformed-query", req: request{path: "/api/v1/exercises?bodyParts=%zz", keyID: "key_pro"}},
		{name: "unknown-exercise", req: request{path: "/api/v1/exercises/zzzzzzzz", keyID: "key_mega"}},
		{name: "name-invalid-utf8", req: request{path: "/api/v1/exercises?name=%FF%FE", keyID: "key_pro"}},
		{name: "name-control", req: request{path: "/api/v1/exercises?name=%01press", keyID: "key_pro"}},
		{name: "name-no-letters", req: request{path: "/api/v1/exercises?name=%F0%9F%92%AA", keyID: "key_pro"}},
		{name: "name-too-long", req: request{path: "/api/v1/exercises?name=" + strings.Repeat("%C3%A9", 101), keyID: "key_pro"}},
		{name: "name-100-characters", req: request{path: "/api/v1/exercises?name=" + strings.Repeat("%C3%A9", 100), keyID: "key_pro"}},
		{name: "search-empty", req: request{path: "/api/v1/exercises?q=", keyID: "key_pro"}},
		{name: "search-punctuation", req: request{path: "/api/v1/exercises?q=%2D%2D%21", keyID: "key_pro"}},
		{name: "search-control", req: request{path: "/api/v1/exercises?q=curl%00", keyID: "key_pro"}},
		{name: "search-too-long", req: request{path: "/api/v1/exercises?q=" + strings.Repeat("a", 201), keyID: "key_pro"}},
		{name: "search-cursor-not-in-results", req: request{path: "/api/v1/exercises?q=press&after=zaf7q5w5", keyID: "key_pro"}},
		{name: "search-on-relation", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?q=press", keyID: "key_pro"}},
		// The value as sent, case kept, as filter values are.
		{name: "unknown-include", req: request{path: "/api/v1/exercises?include=tips,%20Steps", keyID: "key_pro"}},
		{name: "relation-of-unknown-exercise", req: request{path: "/api/v1/exercises/zzzzzzzz/alternatives", keyID: "key_pro"}},
		{name: "relation-of-malformed-id", req: request{path: "/api/v1/exercises/a.b/variations", keyID: "key_pro"}},
		// An empty id once listed the whole catalogue, past the plan's
		// exercises operation.
		{name: "relation-of-empty-id", req: request{path: "/api/v1/exercises//alternatives?bodyParts=chest", keyID: "key_pro"}},
		{name: "relation-cursor-not-in-list", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?after=zaf7q5w5", keyID: "key_pro"}},
		{name: "relation-unknown-parameter", req: request{path: "/api/v1/exercises/humnn3ws/variations?includes=tips", keyID: "key_pro"}},
		{name: "relation-not-in-plan", req: request{path: "/api/v1/exercises/humnn3ws/variations", keyID: "key_basic"}},
		{name: "malformed-exercise-id", req: request{path: "/api/v1/exercises/a.b", keyID: "key_mega"}},
		{name: "catalog-down", opts: options{catalogDown: true}, req: request{path: "/api/v1/bodyparts", keyID: "key_mega"}},
		{name: "panic", opts: options{nilCatalog: true}, req: request{path: "/api/v1/bodyparts", keyID: "key_mega"}},
		{name: "error-docs", req: request{path: "/docs/errors/code/TOO_MANY_REQUESTS", host: "-"}},
		{name: "error-docs-unknown", req: request{path: "/docs/errors/code/NOPE", host: "-"}},
	}
}

// TestAPI checks every endpoint and error path against a golden file
// holding the status, the headers and the exact JSON.
func TestAPI(t *testing.T) {
	for _, tt := range apiCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.opts)
			for _, r := range tt.before {
				s.do(t, r)
			}
			resp, body := s.do(t, tt.req)
			got := describe(t, resp, body)
			checkGolden(t, filepath.Join("testdata", "golden", tt.name+".txt"), got)
			if resp.StatusCode >= 500 && strings.Contains(string(body), "runtime") {
				t.Errorf("a 5xx body leaks internals: %s", body)
			}
		})
	}
}

// describe renders a response for a golden file: status, headers (but
// Date and X-Request-Id) and the body, JSON indented, the request id
// replaced by a placeholder after checking it.
func describe(t *testing.T, resp *http.Response, body []byte) string {
	t.Helper()
	id := resp.Header.Get("X-Request-Id")
	if !requestIDPattern.MatchString(id) {
		t.Errorf("X-Request-Id = %q, want req_ and 16 base32 characters", id)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "status: %d\n", resp.StatusCode)
	var names []string
	for k := range resp.Header {
		if k != "Date" && k != "X-Request-Id" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(resp.Header[k], ", "))
	}
	b.WriteString("\n")
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(body) > 0 {
		var env struct {
			Error *struct {
				RequestID string `json:"requestId"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatalf("body is not JSON: %v\n%s", err, body)
		}
		if env.Error != nil && env.Error.RequestID != id {
			t.Errorf("envelope requestId %q differs from X-Request-Id %q", env.Error.RequestID, id)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, body, "", "  "); err != nil {
			t.Fatal(err)
		}
		body = out.Bytes()
	}
	b.WriteString(strings.ReplaceAll(string(body), id, "req_<id>"))
	return b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/systemtest -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// idOf returns the id of the test catalogue's exercise with that name.
func idOf(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Exercises []struct{ ID, Name string }
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for _, x := range f.Exercises {
		if x.Name == name {
			return x.ID
		}
	}
	t.Fatalf("no exercise %q in the test catalogue", name)
	return ""
}

// catalogueIDs returns the ids of the test catalogue, in ascending order.
func catalogueIDs(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Exercises []struct{ ID string } }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range f.Exercises {
		ids = append(ids, x.ID)
	}
	slices.Sort(ids)
	return ids
}

// idAfter returns the test catalogue's id that follows id.
func idAfter(t *testing.T, id string) string {
	t.Helper()
	ids := catalogueIDs(t)
	i, found := slices.BinarySearch(ids, id)
	if !found || i+1 == len(ids) {
		t.Fatalf("no id follows %q in the test catalogue", id)
	}
	return ids[i+1]
}

// etagOf returns the ETag the Mega key gets for path.
func etagOf(t *testing.T, path string) string {
	t.Helper()
	resp, _ := start(t, options{}).do(t, request{path: path, keyID: "key_mega"})
	return resp.Header.Get("ETag")
}

// An empty page renders "data": [] also when the gateway's recycled
// listing slices have been dropped by the garbage collector, which empties
// a sync.Pool within two collections.
func TestEmptyPageAfterCollection(t *testing.T) {
	s := start(t, options{})
	for range 3 {
		runtime.GC()
		runtime.GC()
		resp, body := s.do(t, request{path: "/api/v1/exercises?equipments=treadmill", keyID: "key_pro"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"data":[]`) {
			t.Fatalf("status %d, body %s; want 200 with \"data\":[]", resp.StatusCode, body)
		}
	}
}

// TestFilterValueBound: at most 100 values per filter, blank items not
// counted (they are dropped), so a trailing comma never tips a query over.
func TestFilterValueBound(t *testing.T) {
	s := start(t, options{})
	for _, tt := range []struct {
		query  string
		status int
	}{
		{strings.Repeat("chest,", 100), http.StatusOK},
		{strings.Repeat("chest,", 100) + ",%20,", http.StatusOK},
		{strings.Repeat("chest,", 101), http.StatusBadRequest},
	} {
		resp, body := s.do(t, request{path: "/api/v1/exercises?limit=1&bodyParts=" + tt.query, keyID: "key_mega"})
		if resp.StatusCode != tt.status {
			t.Errorf("bodyParts=%s: %d %s, want %d", tt.query, resp.StatusCode, body, tt.status)
		}
	}
}
