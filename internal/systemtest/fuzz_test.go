package systemtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

var fuzzPaths = []string{
	"/api/v1/exercises", "/api/v1/exercises/bodyparts", "/api/v1/exercises/humnn3ws", "/api/v1/bodyparts",
	"/api/v1/muscles", "/api/v1/exercisetypes", "/api/v1/equipments", "/api/v1/liveness", "/api/v1/nope",
	"/docs/errors/code/BAD_REQUEST", "/api/v1/exercises/humnn3ws/variations", "/api/v1/exercises/humnn3ws/alternatives",
	"/api/v1/exercises/zzzzzzzz/alternatives",
}

// FuzzGateway sends arbitrary query strings and headers through the whole
// gateway: no input may yield a 500, and every error must be the envelope.
func FuzzGateway(f *testing.F) {
	f.Add(0, "bodyParts=chest&limit=2", "api.example.test", "key_pro", "", "", "GET")
	f.Add(0, "bodyParts=%zz", "api.example.test", "key_mega", `"x"`, "", "GET")
	f.Add(1, "limit=99999999999999999999&after=", "API.EXAMPLE.TEST:80", "key_basic", "", "*", "HEAD")
	f.Add(0, "name="+strings.Repeat("ab", 80)+"&difficulty=,,,", "api.example.test", "key_mega", "W/\"a\", *", "\"b\"", "GET")
	f.Add(2, "", "video.example.test", "key_video", "", "", "DELETE")
	f.Add(0, "after=a&before=b&targetMuscles=x;y", "", "exdb_nope", "", "", "GET")
	f.Add(0, "exerciseTypes=yoga&exerciseTypes=\x00&limit=+1", "api.example.test", "key_mega", "", "", "GET")
	f.Add(0, "include=description,%20TIPS,,aliases&include=instructions", "api.example.test", "key_pro", "", "", "GET")
	f.Add(0, "q=db%20curlz&bodyParts=upper%20arms&after=6zulzjby", "api.example.test", "key_pro", "", "", "GET")
	f.Add(0, "q=%E2%80%A8%F0%9F%92%AA%20pull&q=x&limit=2", "api.example.test", "key_mega", "", "", "GET")
	f.Add(10, "include=steps&equipments=body%20weight&after=bykvsiz3", "api.example.test", "key_mega", "", "", "GET")
	f.Add(11, "include=\xff,description&limit=1&before=humnn3ws", "api.example.test", "key_mega", "", "", "HEAD")
	f.Add(0, "ids=humnn3ws,%20zzzzzzzz,,a.b,humnn3ws&include=tips,media", "api.example.test", "key_pro", "", "", "GET")
	f.Add(0, "ids=uy34skpt,2u3xkyps,humnn3ws,bykvsiz3&ids=x&q=press&after=humnn3ws", "video.example.test", "key_capped", "", "", "GET")
	f.Add(0, "ids=%2C%2C&ids=&limit=3", "api.example.test", "key_mega", "", "", "GET")
	s := start(f, options{})
	f.Fuzz(func(t *testing.T, path int, rawQuery, host, keyID, ifNoneMatch, ifMatch, method string) {
		if path < 0 {
			path = -path
		}
		req := &http.Request{
			Method:     method,
			URL:        &url.URL{Path: fuzzPaths[path%len(fuzzPaths)], RawQuery: rawQuery},
			Header:     http.Header{},
			Host:       "gateway.test",
			RemoteAddr: "192.0.2.1:1234",
			Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		}
		req.Header.Set("X-Gateway-Host", host)
		if k, ok := testKeys[keyID]; ok {
			keyID = k.key
		}
		req.Header.Set("X-Gateway-Key", keyID)
		req.Header.Set("If-None-Match", ifNoneMatch)
		req.Header.Set("If-Match", ifMatch)
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		checkResponse(t, req, rec)
	})
}

func checkResponse(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("%s %s: status %d\n%s", req.Method, req.URL, rec.Code, rec.Body)
	}
	if rec.Header().Get("X-Request-Id") == "" {
		t.Fatalf("%s %s: no X-Request-Id", req.Method, req.URL)
	}
	if rec.Code < 400 || req.Method == http.MethodHead {
		return
	}
	var env struct {
		Error struct{ Code, Docs, Message, RequestID string }
	}
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || env.Error.Code == "" || env.Error.Message == "" || env.Error.RequestID == "" || env.Error.Docs == "" {
		t.Fatalf("%s %s: status %d without the envelope (%v):\n%s", req.Method, req.URL, rec.Code, err, rec.Body)
	}
	if strings.Contains(env.Error.Message, "runtime error") || strings.Contains(env.Error.Message, "goroutine") {
		t.Fatalf("message leaks internals: %s", env.Error.Message)
	}
}
