package systemtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// changelogBody is the shape of /api/v1/changelog, read strictly.
type changelogBody struct {
	Success bool `json:"success"`
	Data    struct {
		CatalogueVersion string `json:"catalogueVersion"`
		Versions         []struct {
			Version  string   `json:"version"`
			Previous string   `json:"previous"`
			Added    []string `json:"added"`
			Changed  []struct {
				ID     string   `json:"id"`
				Fields []string `json:"fields"`
			} `json:"changed"`
			Removed      []string `json:"removed"`
			Vocabularies bool     `json:"vocabularies"`
		} `json:"versions"`
	} `json:"data"`
}

func getChangelog(t *testing.T, s *system, query string) (changelogBody, *http.Response) {
	t.Helper()
	resp, body := s.do(t, request{path: "/api/v1/changelog" + query, keyID: "key_basic"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/api/v1/changelog%s: %d %s", query, resp.StatusCode, body)
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	var out changelogBody
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("/api/v1/changelog%s: %v\n%s", query, err, body)
	}
	return out, resp
}

// TestChangelog reads the embedded catalogue's changelog through the
// gateway: the newest version is the one served (as in the ETag), since
// narrows the answer, and a since the changelog does not reach is a 400
// naming it.
func TestChangelog(t *testing.T) {
	s := start(t, options{embedded: true})
	all, resp := getChangelog(t, s, "")
	current := all.Data.CatalogueVersion
	if len(all.Data.Versions) == 0 || all.Data.Versions[0].Version != current {
		t.Fatalf("versions %+v, want the served version %s first", all.Data.Versions, current)
	}
	if etag := resp.Header.Get("ETag"); !strings.HasPrefix(etag, `"`+current+"-") {
		t.Errorf("ETag %s does not carry the version %s", etag, current)
	}
	newest := all.Data.Versions[0]
	if len(newest.Added)+len(newest.Changed)+len(newest.Removed) == 0 && !newest.Vocabularies {
		t.Errorf("newest version %s changed nothing", newest.Version)
	}

	if newest.Previous != "" {
		since, _ := getChangelog(t, s, "?since="+newest.Previous)
		if len(since.Data.Versions) != 1 || since.Data.Versions[0].Version != current {
			t.Errorf("since the previous version: %d versions, want the current one only", len(since.Data.Versions))
		}
	}
	upToDate, _ := getChangelog(t, s, "?since="+current)
	if len(upToDate.Data.Versions) != 0 {
		t.Errorf("since the current version: %d versions, want none", len(upToDate.Data.Versions))
	}

	resp, body := s.do(t, request{path: "/api/v1/changelog?since=0000000000000000", keyID: "key_basic"})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "since") {
		t.Errorf("unknown since: %d %s, want a 400 naming since", resp.StatusCode, body)
	}
}
