package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/google/go-cmp/cmp"
)

// TestOpenAPIDocument checks that /openapi.json is served publicly, loads,
// is a valid OpenAPI 3.1 document and names the operations of the plans.
func TestOpenAPIDocument(t *testing.T) {
	s := start(t, options{})
	resp, body := s.do(t, request{path: "/openapi.json", host: "-"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %s", resp.StatusCode, body)
	}
	for k, want := range map[string]string{
		"Content-Type":   "application/json",
		"Cache-Control":  "public, max-age=3600",
		"Content-Length": strconv.Itoa(len(body)),
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if id := resp.Header.Get("X-Request-Id"); !requestIDPattern.MatchString(id) {
		t.Errorf("X-Request-Id = %q", id)
	}
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
		t.Errorf("ETag = %q, want a strong entity tag", etag)
	}

	head, headBody := s.do(t, request{method: http.MethodHead, path: "/openapi.json", host: "-"})
	if head.StatusCode != http.StatusOK || len(headBody) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(body)) ||
		head.Header.Get("ETag") != etag {
		t.Errorf("HEAD /openapi.json: %d, %d bytes, Content-Length %s, ETag %s", head.StatusCode, len(headBody),
			head.Header.Get("Content-Length"), head.Header.Get("ETag"))
	}
	// A key for another product or a wrong one changes nothing: the document is public.
	if r, b := s.do(t, request{path: "/openapi.json", host: "nope.example.test", keyID: "exdb_wrong"}); r.StatusCode != http.StatusOK || !bytes.Equal(b, body) {
		t.Errorf("GET /openapi.json with a wrong key and host: %d", r.StatusCode)
	}
	if r, b := s.do(t, request{path: "/openapi.json", host: "-", headers: map[string]string{"If-None-Match": "W/" + etag}}); r.StatusCode != http.StatusNotModified || len(b) != 0 {
		t.Errorf("If-None-Match: %d, %d bytes, want 304 without a body", r.StatusCode, len(b))
	}
	if r, b := s.do(t, request{path: "/openapi.json", host: "-", headers: map[string]string{"If-Match": etag}}); r.StatusCode != http.StatusOK || !bytes.Equal(b, body) {
		t.Errorf("If-Match with its ETag: %d, want 200 and the document", r.StatusCode)
	}
	if r, b := s.do(t, request{path: "/openapi.json", host: "-", headers: map[string]string{"If-Match": `"other", W/` + etag}}); r.StatusCode != http.StatusPreconditionFailed || !bytes.Contains(b, []byte("PRECONDITION_FAILED")) {
		t.Errorf("If-Match without its ETag (a weak one never matches): %d %s, want a 412 envelope", r.StatusCode, b)
	}

	doc := loadOpenAPI(t, body)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	ops := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[op.OperationID] = method + " " + path
		}
	}
	want := map[string]string{
		"exercisesByBodyParts": "GET /api/v1/exercises/bodyparts",
		"exercises":            "GET /api/v1/exercises",
		"exercise":             "GET /api/v1/exercises/{exerciseId}",
		"exerciseVariations":   "GET /api/v1/exercises/{exerciseId}/variations",
		"exerciseAlternatives": "GET /api/v1/exercises/{exerciseId}/alternatives",
		"exerciseTypes":        "GET /api/v1/exercisetypes",
		"bodyParts":            "GET /api/v1/bodyparts",
		"muscles":              "GET /api/v1/muscles",
		"equipments":           "GET /api/v1/equipments",
		"movementPatterns":     "GET /api/v1/movementpatterns",
		"liveness":             "GET /api/v1/liveness",
		"usage":                "GET /api/v1/usage",
		"changelog":            "GET /api/v1/changelog",
		"errorCodes":           "GET /docs/errors",
		"apiReference":         "GET /docs",
		"errorCode":            "GET /docs/errors/code/{code}",
		"openAPI":              "GET /openapi.json",
	}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	// The seed interface's own operation id, carried beside the plan's name.
	if op := doc.Paths.Find("/api/v1/exercises/bodyparts").Get; op.Extensions["x-seed-operation-id"] != "v1.FetchExerciseByBodyPartsApi" {
		t.Errorf("x-seed-operation-id of exercisesByBodyParts = %v, want v1.FetchExerciseByBodyPartsApi", op.Extensions["x-seed-operation-id"])
	}
	scheme := doc.Components.SecuritySchemes["gatewayKey"]
	if scheme == nil || scheme.Value.Type != "apiKey" || scheme.Value.In != "header" || scheme.Value.Name != "X-Gateway-Key" {
		t.Errorf("security scheme gatewayKey = %+v, want an apiKey in the X-Gateway-Key header", scheme)
	}
}

// TestOpenAPIResponses sends requests that reach every path with every
// status the gateway answers, and validates the real responses (status,
// headers and body) against the OpenAPI document; a header the document
// does not declare for that response is an error too. Requests that
// succeed must satisfy the document's parameters, and those marked
// refused must not: the document is as strict as the gateway.
func TestOpenAPIResponses(t *testing.T) {
	_, docBody := start(t, options{}).do(t, request{path: "/openapi.json", host: "-"})
	v := newOpenAPIValidator(t, docBody)
	chest3 := "/api/v1/exercises/bodyparts?bodyParts=chest&limit=3"
	burst := func(keyID string, n int) []request {
		rs := make([]request, n)
		for i := range rs {
			rs[i] = request{path: "/api/v1/bodyparts", keyID: keyID}
		}
		return rs
	}
	tests := []struct {
		name    string
		before  []request // sent first, responses ignored
		req     request
		opts    options
		status  int
		refused bool // the document's parameters must refuse the request
	}{
		// 200, with (Pro, Basic) and without (Mega) rate limit headers.
		{name: "bodyparts-first-page", req: request{path: chest3, keyID: "key_pro"}, status: 200},
		{name: "bodyparts-next-page", req: request{path: chest3 + "&after=humnn3ws", keyID: "key_pro"}, status: 200},
		{name: "bodyparts-previous-page", req: request{path: chest3 + "&before=uy34skpt", keyID: "key_pro"}, status: 200},
		{name: "bodyparts-all", req: request{path: "/api/v1/exercises/bodyparts", keyID: "key_mega"}, status: 200},
		{name: "bodyparts-after-last", req: request{path: "/api/v1/exercises/bodyparts?after=zaf7q5w5", keyID: "key_mega"}, status: 200},
		{name: "record-cap", req: request{path: chest3, keyID: "key_basic"}, status: 200},
		{name: "exercises-filters", req: request{path: "/api/v1/exercises?bodyParts=CHEST,%20back&equipments=barbell&difficulty=intermediate,advanced&limit=25", keyID: "key_pro"}, status: 200},
		{name: "exercises-every-parameter", req: request{path: "/api/v1/exercises?bodyParts=waist&equipments=body%20weight&difficulty=beginner&exerciseTypes=strength" +
			"&targetMuscles=rectus%20abdominis&secondaryMuscles=external%20obliques&name=plank&limit=05", keyID: "key_mega"}, status: 200},
		{name: "exercises-name-search", req: request{path: "/api/v1/exercises?name=Pull%20Up", keyID: "key_pro"}, status: 200},
		{name: "exercises-repeated-filter", req: request{path: "/api/v1/exercises?exerciseTypes=yoga&exerciseTypes=plyometrics", keyID: "key_pro"}, status: 200},
		{name: "exercises-empty", req: request{path: "/api/v1/exercises?equipments=treadmill", keyID: "key_pro"}, status: 200},
		{name: "exercise", req: request{path: "/api/v1/exercises/humnn3ws", keyID: "key_pro"}, status: 200},
		{name: "exercise-video", req: request{path: "/api/v1/exercises/humnn3ws", keyID: "key_mega", host: "video.example.test"}, status: 200},
		{name: "search", req: request{path: "/api/v1/exercises?q=db%20curl&limit=2", keyID: "key_pro"}, status: 200},
		{name: "search-too-long", req: request{path: "/api/v1/exercises?q=" + strings.Repeat("b", 201), keyID: "key_pro"}, status: 400, refused: true},
		{name: "exercises-include", req: request{path: "/api/v1/exercises?include=description,instructions,tips,aliases&limit=3", keyID: "key_pro"}, status: 200},
		{name: "variations", req: request{path: "/api/v1/exercises/6zulzjby/variations?include=tips", keyID: "key_pro"}, status: 200},
		{name: "alternatives", req: request{path: "/api/v1/exercises/humnn3ws/alternatives?equipments=dumbbell&limit=1", keyID: "key_pro"}, status: 200},
		{name: "alternatives-unknown-exercise", req: request{path: "/api/v1/exercises/zzzzzzzz/alternatives", keyID: "key_pro"}, status: 404},
		{name: "variations-unknown-include", req: request{path: "/api/v1/exercises/humnn3ws/variations?include=steps", keyID: "key_pro"}, status: 400, refused: true},
		{name: "exercises-unknown-include", req: request{path: "/api/v1/exercises?include=tips,steps", keyID: "key_pro"}, status: 400, refused: true},
		{name: "exercise-without-media", req: request{path: "/api/v1/exercises/" + idOf(t, "plank"), keyID: "key_mega"}, status: 200},
		{name: "exercisetypes", req: request{path: "/api/v1/exercisetypes", keyID: "key_pro"}, status: 200},
		{name: "bodyparts", req: request{path: "/api/v1/bodyparts", keyID: "key_mega"}, status: 200},
		{name: "muscles", req: request{path: "/api/v1/muscles", keyID: "key_basic"}, status: 200},
		{name: "equipments", req: request{path: "/api/v1/equipments", keyID: "key_pro"}, status: 200},
		{name: "movementpatterns", req: request{path: "/api/v1/movementpatterns", keyID: "key_pro"}, status: 200},
		{name: "exercises-training", req: request{path: "/api/v1/exercises?movementPatterns=elbow%20flexion&mechanics=isolation&force=pull&laterality=bilateral,alternating&measure=reps&include=training&limit=3", keyID: "key_pro"}, status: 200},
		{name: "exercise-training-time", req: request{path: "/api/v1/exercises?measure=time,distance&include=training,tips&limit=5", keyID: "key_pro"}, status: 200},
		{name: "exercises-unknown-training-value", req: request{path: "/api/v1/exercises?laterality=both", keyID: "key_pro"}, status: 400},
		{name: "liveness", req: request{path: "/api/v1/liveness", keyID: "key_pro"}, status: 200},
		{name: "liveness-mega", req: request{path: "/api/v1/liveness", keyID: "key_mega"}, status: 200},
		{name: "liveness-catalog-down", opts: options{catalogDown: true}, req: request{path: "/api/v1/liveness", keyID: "key_mega"}, status: 200},
		{name: "usage", req: request{path: "/api/v1/usage", keyID: "key_pro"}, status: 200},
		{name: "usage-unlimited", req: request{path: "/api/v1/usage", keyID: "key_mega"}, status: 200},
		{name: "usage-rate-limited", before: burst("key_basic", 6), req: request{path: "/api/v1/usage", keyID: "key_basic"}, status: 200},
		{name: "head-usage", req: request{method: "HEAD", path: "/api/v1/usage", keyID: "key_basic"}, status: 200},
		{name: "if-match-star", req: request{path: "/api/v1/muscles", keyID: "key_pro", headers: map[string]string{"If-Match": "*"}}, status: 200},
		{name: "host-header", req: request{path: "/api/v1/exercisetypes", keyID: "key_video", host: "-", headers: map[string]string{"Host": "VIDEO.example.test:443"}}, status: 200},
		{name: "error-index", req: request{path: "/docs/errors", host: "-"}, status: 200},
		{name: "api-reference", req: request{path: "/docs", host: "-"}, status: 200},
		{name: "error-doc", req: request{path: "/docs/errors/code/FORBIDDEN", host: "-"}, status: 200},
		{name: "openapi", req: request{path: "/openapi.json", host: "-"}, status: 200},
		{name: "head-listing", req: request{method: "HEAD", path: chest3, keyID: "key_pro"}, status: 200},
		{name: "head-exercise", req: request{method: "HEAD", path: "/api/v1/exercises/humnn3ws", keyID: "key_mega"}, status: 200},
		{name: "head-liveness", req: request{method: "HEAD", path: "/api/v1/liveness", keyID: "key_basic"}, status: 200},
		{name: "head-openapi", req: request{method: "HEAD", path: "/openapi.json", host: "-"}, status: 200},
		{name: "head-error-doc", req: request{method: "HEAD", path: "/docs/errors/code/NOT_FOUND", host: "-"}, status: 200},
		{name: "head-api-reference", req: request{method: "HEAD", path: "/docs", host: "-"}, status: 200},
		// 304
		{name: "not-modified", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", headers: map[string]string{"If-None-Match": etagOf(t, "/api/v1/bodyparts")}}, status: 304},
		{name: "not-modified-star", req: request{path: chest3, keyID: "key_pro", headers: map[string]string{"If-None-Match": "*"}}, status: 304},
		{name: "not-modified-openapi", req: request{path: "/openapi.json", host: "-", headers: map[string]string{"If-None-Match": "*"}}, status: 304},
		{name: "not-modified-api-reference", req: request{path: "/docs", host: "-", headers: map[string]string{"If-None-Match": "*"}}, status: 304},
		{name: "precondition-failed-openapi", req: request{path: "/openapi.json", host: "-", headers: map[string]string{"If-Match": `"x"`}}, status: 412},
		{name: "precondition-failed-api-reference", req: request{path: "/docs", host: "-", headers: map[string]string{"If-Match": `"x"`}}, status: 412},
		// 400
		{name: "unknown-parameter", req: request{path: "/api/v1/exercises?bodypart=chest", keyID: "key_pro"}, status: 400},
		{name: "parameter-on-reference-list", req: request{path: "/api/v1/muscles?limit=2", keyID: "key_pro"}, status: 400},
		{name: "parameter-on-liveness", req: request{path: "/api/v1/liveness?verbose=1", keyID: "key_basic"}, status: 400},
		{name: "parameter-on-usage", req: request{path: "/api/v1/usage?day=1", keyID: "key_basic"}, status: 400},
		{name: "changelog", req: request{path: "/api/v1/changelog", keyID: "key_basic"}, status: 200},
		{name: "changelog-unknown-since", req: request{path: "/api/v1/changelog?since=0000000000000000", keyID: "key_basic"}, status: 400},
		{name: "parameter-on-exercise", req: request{path: "/api/v1/exercises/humnn3ws?limit=1", keyID: "key_pro"}, status: 400},
		{name: "limit-zero", req: request{path: "/api/v1/exercises?limit=0", keyID: "key_pro"}, status: 400, refused: true},
		{name: "limit-too-big", req: request{path: "/api/v1/exercises/bodyparts?limit=26", keyID: "key_pro"}, status: 400, refused: true},
		{name: "limit-words", req: request{path: "/api/v1/exercises?limit=ten", keyID: "key_pro"}, status: 400, refused: true},
		{name: "limit-empty", req: request{path: "/api/v1/exercises?limit=", keyID: "key_pro"}, status: 400, refused: true},
		{name: "limit-fraction", req: request{path: "/api/v1/exercises?limit=1.5", keyID: "key_pro"}, status: 400, refused: true},
		{name: "limit-negative", req: request{path: "/api/v1/exercises?limit=-1", keyID: "key_pro"}, status: 400, refused: true},
		{name: "limit-plus", req: request{path: "/api/v1/exercises?limit=%2B1", keyID: "key_pro"}, status: 400, refused: true},
		{name: "limit-repeated", req: request{path: "/api/v1/exercises?limit=1&limit=2", keyID: "key_pro"}, status: 400},
		{name: "both-cursors", req: request{path: "/api/v1/exercises?after=humnn3ws&before=uy34skpt", keyID: "key_pro"}, status: 400},
		{name: "empty-cursor", req: request{path: "/api/v1/exercises?after=", keyID: "key_pro"}, status: 400, refused: true},
		{name: "unknown-cursor", req: request{path: "/api/v1/exercises?after=zzzzzzzz", keyID: "key_pro"}, status: 400},
		{name: "malformed-cursor", req: request{path: "/api/v1/exercises?before=a%2Fb", keyID: "key_pro"}, status: 400, refused: true},
		{name: "long-cursor", req: request{path: "/api/v1/exercises?before=" + strings.Repeat("a", 33), keyID: "key_pro"}, status: 400, refused: true},
		{name: "name-100-characters", req: request{path: "/api/v1/exercises?name=" + strings.Repeat("%C3%A9", 100), keyID: "key_pro"}, status: 200},
		{name: "long-name-characters", req: request{path: "/api/v1/exercises?name=" + strings.Repeat("%C3%A9", 101), keyID: "key_pro"}, status: 400, refused: true},
		{name: "long-name", req: request{path: "/api/v1/exercises?name=" + strings.Repeat("a", 101), keyID: "key_pro"}, status: 400, refused: true},
		{name: "unknown-values", req: request{path: "/api/v1/exercises?bodyParts=chest,chst&difficulty=expert", keyID: "key_pro"}, status: 400},
		{name: "malformed-query", req: request{path: "/api/v1/exercises?bodyParts=%zz", keyID: "key_pro"}, status: 400},
		{name: "malformed-exercise-id", req: request{path: "/api/v1/exercises/a.b", keyID: "key_mega"}, status: 400, refused: true},
		{name: "head-bad-request", req: request{method: "HEAD", path: "/api/v1/exercises?limit=0", keyID: "key_pro"}, status: 400},
		// 401
		{name: "missing-key", req: request{path: "/api/v1/bodyparts"}, status: 401},
		{name: "invalid-key", req: request{path: "/api/v1/exercises?limit=2", keyID: "exdb_wrong"}, status: 401},
		{name: "disabled-key", req: request{path: "/api/v1/liveness", keyID: "key_disabled"}, status: 401},
		// 403
		{name: "no-subscription", req: request{path: "/api/v1/bodyparts", keyID: "key_video"}, status: 403},
		{name: "plan-not-offered", req: request{path: "/api/v1/bodyparts", keyID: "key_noplan"}, status: 403},
		{name: "operation-not-in-plan", req: request{path: "/api/v1/equipments", keyID: "key_basic"}, status: 403},
		{name: "cursor-beyond-cap", req: request{path: "/api/v1/exercises/bodyparts?bodyParts=chest&after=qzwm42zn", keyID: "key_basic"}, status: 403},
		// 404
		{name: "unknown-path", req: request{path: "/api/v1/exercise", keyID: "key_mega"}, status: 404},
		{name: "trailing-slash", req: request{path: "/api/v1/bodyparts/", keyID: "key_mega"}, status: 404},
		{name: "head-unknown-path", req: request{method: "HEAD", path: "/api/v2/bodyparts"}, status: 404},
		{name: "unknown-product", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", host: "nope.example.test"}, status: 404},
		{name: "unknown-exercise", req: request{path: "/api/v1/exercises/zzzzzzzz", keyID: "key_pro"}, status: 404},
		{name: "unknown-error-code", req: request{path: "/docs/errors/code/NOPE", host: "-"}, status: 404},
		// 405
		{name: "method-not-allowed", req: request{method: "POST", path: "/api/v1/bodyparts", keyID: "key_mega"}, status: 405},
		{name: "method-not-allowed-exercise", req: request{method: "DELETE", path: "/api/v1/exercises/humnn3ws"}, status: 405},
		{name: "method-not-allowed-openapi", req: request{method: "PUT", path: "/openapi.json", host: "-"}, status: 405},
		// 412
		{name: "if-match-mismatch", req: request{path: "/api/v1/bodyparts", keyID: "key_mega", headers: map[string]string{"If-Match": `"stale"`}}, status: 412},
		{name: "if-match-weak", req: request{path: chest3, keyID: "key_pro", headers: map[string]string{"If-Match": `W/"x"`}}, status: 412},
		// 429
		{name: "rate-limited", before: burst("key_basic", 5), req: request{path: "/api/v1/bodyparts", keyID: "key_basic"}, status: 429},
		{name: "auth-failures-limited", before: burst("exdb_guess", 3), req: request{path: "/api/v1/bodyparts", keyID: "exdb_guess"}, status: 429},
		// 500
		{name: "panic", opts: options{nilCatalog: true}, req: request{path: "/api/v1/bodyparts", keyID: "key_mega"}, status: 500},
		{name: "panic-limited", opts: options{nilCatalog: true}, req: request{path: chest3, keyID: "key_pro"}, status: 500},
		// 503
		{name: "catalog-down", opts: options{catalogDown: true}, req: request{path: "/api/v1/bodyparts", keyID: "key_mega"}, status: 503},
		{name: "catalog-down-limited", opts: options{catalogDown: true}, req: request{path: "/api/v1/exercises/humnn3ws", keyID: "key_pro"}, status: 503},
	}
	seen := map[int]bool{}
	operations := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.opts)
			for _, r := range tt.before {
				s.do(t, r)
			}
			resp, body := s.do(t, tt.req)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			seen[resp.StatusCode] = true
			op, err := v.checkResponse(resp, body)
			if err != nil {
				t.Errorf("the response does not match the document:\n%v\n%s\n%s", err, headerLines(resp.Header), body)
			}
			if op != "" && resp.StatusCode == http.StatusOK {
				operations[op] = true
			}
			err = v.checkRequest(resp.Request)
			switch {
			case tt.refused && err != nil:
				t.Logf("the document refuses the request: %v", err)
			case tt.refused:
				t.Errorf("the document's parameters accept a request the gateway refuses")
			case !tt.refused && err != nil && resp.StatusCode < 400:
				t.Errorf("the document's parameters refuse a request the gateway answers:\n%v", err)
			}
		})
	}
	for _, status := range []int{200, 304, 400, 401, 403, 404, 405, 412, 429, 500, 503} {
		if !seen[status] {
			t.Errorf("no request was answered with %d", status)
		}
	}
	for path, item := range v.doc.Paths.Map() {
		for _, op := range item.Operations() {
			if !operations[op.OperationID] {
				t.Errorf("no 200 response of %s (%s) was validated", op.OperationID, path)
			}
		}
	}
}

// TestOpenAPIValidatorCatchesDrift makes sure the validation has teeth:
// a response that strays from the document in any way is refused.
func TestOpenAPIValidatorCatchesDrift(t *testing.T) {
	s := start(t, options{})
	_, docBody := s.do(t, request{path: "/openapi.json", host: "-"})
	v := newOpenAPIValidator(t, docBody)
	page, pageBody := s.do(t, request{path: "/api/v1/exercises/bodyparts?bodyParts=chest&limit=3", keyID: "key_pro"})
	fail, failBody := s.do(t, request{path: "/api/v1/exercises?limit=0", keyID: "key_pro"})
	for _, r := range []struct {
		resp *http.Response
		body []byte
	}{{page, pageBody}, {fail, failBody}} {
		if _, err := v.checkResponse(r.resp, r.body); err != nil {
			t.Fatalf("the unchanged response does not validate: %v", err)
		}
	}
	edit := func(body []byte, f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	exercise := func(m map[string]any) map[string]any { return m["data"].([]any)[0].(map[string]any) }
	meta := func(m map[string]any) map[string]any { return m["meta"].(map[string]any) }
	errorOf := func(m map[string]any) map[string]any { return m["error"].(map[string]any) }
	tests := []struct {
		name   string
		resp   *http.Response
		body   []byte
		status int
		header http.Header // replaces these headers
	}{
		{name: "extra-exercise-field", resp: page, body: edit(pageBody, func(m map[string]any) { exercise(m)["gifUrl"] = "x" })},
		{name: "missing-exercise-field", resp: page, body: edit(pageBody, func(m map[string]any) { delete(exercise(m), "difficulty") })},
		{name: "null-image", resp: page, body: edit(pageBody, func(m map[string]any) { exercise(m)["imageUrl"] = nil })},
		{name: "missing-cursor", resp: page, body: edit(pageBody, func(m map[string]any) { delete(meta(m), "previousCursor") })},
		{name: "numeric-cursor", resp: page, body: edit(pageBody, func(m map[string]any) { meta(m)["nextCursor"] = 7 })},
		{name: "success-false", resp: page, body: edit(pageBody, func(m map[string]any) { m["success"] = false })},
		{name: "page-too-long", resp: page, body: edit(pageBody, func(m map[string]any) {
			m["data"] = slices.Repeat(m["data"].([]any), 34) // beyond the 100 of an ids page
		})},
		{name: "wrong-code", resp: fail, body: edit(failBody, func(m map[string]any) { errorOf(m)["code"] = "FORBIDDEN" })},
		{name: "bad-request-id", resp: fail, body: edit(failBody, func(m map[string]any) { errorOf(m)["requestId"] = "req_1" })},
		{name: "extra-error-field", resp: fail, body: edit(failBody, func(m map[string]any) { errorOf(m)["details"] = []any{} })},
		{name: "undocumented-status", resp: page, body: pageBody, status: http.StatusAccepted},
		{name: "bad-request-id-header", resp: page, body: pageBody, header: http.Header{"X-Request-Id": {"42"}}},
		{name: "missing-etag", resp: page, body: pageBody, header: http.Header{"Etag": nil}},
		{name: "bad-rate-header", resp: page, body: pageBody, header: http.Header{"X-Ratelimit-Remaining": {"many"}}},
		{name: "bad-ratelimit-field", resp: page, body: pageBody, header: http.Header{"Ratelimit": {"r=1"}}},
		{name: "undocumented-header", resp: page, body: pageBody, header: http.Header{"X-Powered-By": {"gin"}}},
		{name: "wrong-cache-control", resp: fail, body: failBody, header: http.Header{"Cache-Control": {"private, no-cache"}}},
		{name: "wrong-content-type", resp: fail, body: failBody, header: http.Header{"Content-Type": {"text/plain"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := *tt.resp
			resp.Header = tt.resp.Header.Clone()
			for k, vs := range tt.header {
				if vs == nil {
					resp.Header.Del(k)
				} else {
					resp.Header[k] = vs
				}
			}
			if tt.status != 0 {
				resp.StatusCode = tt.status
			}
			_, err := v.checkResponse(&resp, tt.body)
			if err == nil {
				t.Fatalf("a drifted response validates:\n%s\n%s", headerLines(resp.Header), tt.body)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// loadOpenAPI loads and validates an OpenAPI document.
func loadOpenAPI(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatalf("loading the OpenAPI document: %v", err)
	}
	// An OpenAPI 3.1 document: Validate and the openapi3filter
	// validators switch to JSON Schema 2020-12 by themselves.
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q is not 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(loader.Context, openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	return doc
}

func init() {
	// The error documentation pages are HTML, which openapi3filter does
	// not decode by default; their schema is a string.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// openAPIValidator checks requests and responses against the document.
type openAPIValidator struct {
	doc    *openapi3.T
	router routers.Router
}

func newOpenAPIValidator(t *testing.T, data []byte) *openAPIValidator {
	t.Helper()
	doc := loadOpenAPI(t, data)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &openAPIValidator{doc: doc, router: router}
}

// generalHeaders are sent by net/http on every response and are not part
// of the document: Content-Type is checked against the response's content.
var generalHeaders = []string{"Date", "Content-Length", "Content-Type"}

// checkResponse validates a response to resp.Request: its status must be
// documented for the operation (or be the 404 and 405 of paths and methods
// the document has not), and its headers and body must match. It returns
// the operation's id, if the request has one.
func (v *openAPIValidator) checkResponse(resp *http.Response, body []byte) (string, error) {
	req := resp.Request
	head := req.Method == http.MethodHead
	if head {
		// HEAD answers like GET without a body, and ValidateResponse skips
		// HEAD: validate it as a GET without its body.
		req = req.Clone(req.Context())
		req.Method = http.MethodGet
	}
	route, params, err := v.router.FindRoute(req)
	var opID string
	var ref *openapi3.ResponseRef
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		ref = v.doc.Components.Responses["NotFound"]
		if resp.StatusCode != http.StatusNotFound {
			return "", fmt.Errorf("%s %s is no path of the document, yet it was answered with %d", req.Method, req.URL.Path, resp.StatusCode)
		}
	case errors.Is(err, routers.ErrMethodNotAllowed):
		ref = v.doc.Components.Responses["MethodNotAllowed"]
		if resp.StatusCode != http.StatusMethodNotAllowed {
			return "", fmt.Errorf("%s is no method of %s in the document, yet it was answered with %d", req.Method, req.URL.Path, resp.StatusCode)
		}
	case err != nil:
		return "", err
	default:
		opID = route.Operation.OperationID
		if ref = route.Operation.Responses.Status(resp.StatusCode); ref == nil {
			return opID, fmt.Errorf("status %d is not documented for %s", resp.StatusCode, opID)
		}
	}
	var errs []error
	if noBody := head || resp.StatusCode == http.StatusNotModified; noBody && len(body) > 0 {
		errs = append(errs, fmt.Errorf("%s answered with %d has a body", resp.Request.Method, resp.StatusCode))
	}
	// Every header but the general ones must be documented for this response.
	documented := map[string]bool{}
	for name := range ref.Value.Headers {
		documented[http.CanonicalHeaderKey(name)] = true
	}
	for name := range resp.Header {
		if !documented[name] && !slices.Contains(generalHeaders, name) {
			errs = append(errs, fmt.Errorf("header %s is not documented for this response", name))
		}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || ref.Value.Content.Get(mt) == nil {
			errs = append(errs, fmt.Errorf("Content-Type %q is not documented for this response", ct))
		}
	} else if len(ref.Value.Content) > 0 && resp.StatusCode != http.StatusNotModified {
		errs = append(errs, errors.New("no Content-Type"))
	}

	// ValidateResponse checks the status against the route's operation,
	// then the documented headers and the body. It skips HEAD and 304,
	// and routes nothing for undocumented paths and methods: those are
	// checked against an operation made of the one response, with their
	// headers only when there is no body.
	status := resp.StatusCode
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 resp.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if route == nil || head || status == http.StatusNotModified {
		if status == http.StatusNotModified {
			status = http.StatusOK
		}
		input.Status = status
		input.RequestValidationInput.Route = &routers.Route{Spec: v.doc, Method: http.MethodGet, Operation: &openapi3.Operation{
			Responses: openapi3.NewResponses(openapi3.WithStatus(status, ref)),
		}}
		input.Options.ExcludeResponseBody = head || resp.StatusCode == http.StatusNotModified
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		errs = append(errs, err)
	}
	return opID, errors.Join(errs...)
}

// checkRequest validates a request's parameters and key against the
// document.
func (v *openAPIValidator) checkRequest(req *http.Request) error {
	if req.Method == http.MethodHead {
		req = req.Clone(req.Context())
		req.Method = http.MethodGet
	}
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return err
	}
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			MultiError: true,
			AuthenticationFunc: func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
				if in.RequestValidationInput.Request.Header.Get(in.SecurityScheme.Name) == "" {
					return fmt.Errorf("no %s header", in.SecurityScheme.Name)
				}
				return nil
			},
		},
	})
}

// headerLines renders headers for a failure message.
func headerLines(h http.Header) string {
	var b bytes.Buffer
	_ = h.Write(&b)
	return b.String()
}

// TestNotFoundNamesEveryPath: the 404 message lists the endpoints from the
// routes themselves, so every path the document describes is in it.
func TestNotFoundNamesEveryPath(t *testing.T) {
	s := start(t, options{})
	_, doc := s.do(t, request{path: "/openapi.json", host: "-"})
	resp, body := s.do(t, request{path: "/api/v1/nope", keyID: "key_mega"})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var env struct{ Error struct{ Message string } }
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	for path := range loadOpenAPI(t, doc).Paths.Map() {
		if !strings.Contains(env.Error.Message, path+",") && !strings.Contains(env.Error.Message, path+" and") && !strings.HasSuffix(env.Error.Message, path+".") {
			t.Errorf("the 404 message does not name %s: %s", path, env.Error.Message)
		}
	}
}
