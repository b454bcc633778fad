package systemtest

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/queryparam"
)

// includeRoutes are the routes FuzzInclude sends include to, each with
// the rest of its query: every listing that takes include, pages of
// relation lists, and the single record, which takes no parameter.
var includeRoutes = []struct {
	path, query string
	single      bool // /exercises/{id}: every content field, include refused
}{
	{path: "/api/v1/exercises", query: "limit=25"},
	{path: "/api/v1/exercises/bodyparts", query: "bodyParts=chest"},
	{path: "/api/v1/exercises/6zulzjby/variations"},
	{path: "/api/v1/exercises/humnn3ws/alternatives"},
	{path: "/api/v1/exercises/humnn3ws/alternatives", query: "limit=1&before=bykvsiz3"},
	{path: "/api/v1/exercises/humnn3ws", single: true},
}

// contentNames are the values include takes: the content fields and media.
var contentNames = []string{"description", "instructions", "tips", "aliases", "training", "media"}

// seedFields are the fields of every record; imageUrl only when the
// exercise has media.
var seedFields = []string{"exerciseId", "name", "equipments", "bodyParts", "exerciseTypes", "difficulty", "targetMuscles", "secondaryMuscles"}

// FuzzInclude sends arbitrary query strings to the routes that take include
// (and to /exercises/{id}, which does not) and holds each answer to a model
// of the rule (docs/api.md, gateway/httpapi/query.go): include is
// comma-separated and may repeat; each item is matched ignoring case and
// surrounding spaces, blank items are dropped. A 200 carries in every
// record exactly the seed's fields and the content fields asked for; an
// unknown item is a 400 that names include and the first such item as
// sent, spaces trimmed. The response cache is on, so spellings it keys
// alike must also answer alike.
func FuzzInclude(f *testing.F) {
	for i := range includeRoutes {
		for _, q := range []string{
			"",
			"include=description",
			"include=instructions",
			"include=tips",
			"include=aliases",
			"include=description,instructions,tips,aliases",
			"include=training,%20Aliases",
			"include=tips,tips,TIPS",
			"include=,,description,,",
			"include=",
			"include=DESCRIPTION,Aliases",
			"include=steps",
			"include=tips,%20Steps",
			"include=%20description%20,+tips+",
			"include=description%2Caliases",
			"include=description&include=instructions",
			"include=&include=tips&include=",
			"include=tips&include=videos",
			"include=\xff,description",
			"include=tips;aliases",
			"include=%zz",
			"include=tips&limit=1", // another parameter: no 5xx only
		} {
			f.Add(i, q)
		}
		f.Add(i, "include=Media,%20tips")
	}
	s := start(f, options{cache: true})
	f.Fuzz(func(t *testing.T, route int, query string) {
		r := includeRoutes[uint(route)%uint(len(includeRoutes))]
		raw := query
		if r.query != "" {
			raw = r.query + "&" + query
		}
		req := &http.Request{
			Method:     http.MethodGet,
			URL:        &url.URL{Path: r.path, RawQuery: raw},
			Header:     http.Header{"X-Gateway-Host": {"api.example.test"}, "X-Gateway-Key": {testKeys["key_mega"].key}},
			Host:       "gateway.test",
			RemoteAddr: "192.0.2.1:1234",
			Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		}
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		body := rec.Body.Bytes() // checkResponse reads rec.Body
		checkResponse(t, req, rec)

		values, err := url.ParseQuery(raw)
		if len(raw) > queryparam.MaxRaw || err != nil {
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("%s: status %d for a malformed or long query, want 400", req.URL, rec.Code)
			}
			return
		}
		own, _ := url.ParseQuery(query) // well formed, as raw is
		delete(own, "include")
		if len(own) > 0 {
			return // other parameters: not include's rule
		}
		includes, sent := values["include"]
		if r.single {
			if !sent {
				checkFields(t, req, rec.Code, body, true, contentNames)
			} else {
				checkBadRequest(t, req, rec.Code, body, `Unknown query parameter "include"`)
			}
			return
		}
		want, bad := modelInclude(includes)
		if bad != nil {
			checkBadRequest(t, req, rec.Code, body, "include: "+queryparam.Show(*bad)+" is not a content field")
			return
		}
		checkFields(t, req, rec.Code, body, false, want)
	})
}

// modelInclude reads include's values as the gateway documents them: the
// content fields asked for, or the first unknown item, spaces trimmed.
func modelInclude(values []string) (fields []string, bad *string) {
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			name := strings.ToLower(item)
			switch {
			case name == "":
			case slices.Contains(contentNames, name):
				if !slices.Contains(fields, name) {
					fields = append(fields, name)
				}
			default:
				return nil, &item
			}
		}
	}
	return fields, nil
}

// checkFields holds a 200 to the fields each record must carry: the
// seed's, imageUrl if any, and exactly the content fields in content.
func checkFields(t *testing.T, req *http.Request, code int, body []byte, single bool, content []string) {
	t.Helper()
	if code != http.StatusOK {
		t.Fatalf("%s: status %d, want 200 with %v\n%s", req.URL, code, content, body)
	}
	var records []map[string]json.RawMessage
	if single {
		var one struct{ Data map[string]json.RawMessage }
		if err := json.Unmarshal(body, &one); err != nil {
			t.Fatal(err)
		}
		records = append(records, one.Data)
	} else {
		var list struct{ Data []map[string]json.RawMessage }
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatal(err)
		}
		records = list.Data
	}
	if len(records) == 0 {
		t.Fatalf("%s: no records to check\n%s", req.URL, body)
	}
	want := slices.Concat(seedFields, content)
	slices.Sort(want)
	for _, x := range records {
		got := slices.Collect(maps.Keys(x))
		got = slices.DeleteFunc(got, func(k string) bool { return k == "imageUrl" })
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: record %s has fields %v, want %v", req.URL, x["exerciseId"], got, want)
		}
	}
}

// checkBadRequest holds a response to a 400 whose message contains msg.
func checkBadRequest(t *testing.T, req *http.Request, code int, body []byte, msg string) {
	t.Helper()
	if code != http.StatusBadRequest {
		t.Fatalf("%s: status %d, want 400 with %q\n%s", req.URL, code, msg, body)
	}
	var env struct{ Error struct{ Message string } }
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.Error.Message, msg) {
		t.Fatalf("%s: message %q does not contain %q", req.URL, env.Error.Message, msg)
	}
}
