package systemtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestRelationEquipmentsAtHand: on /variations and /alternatives,
// equipments is what one has at hand ("equipments=dumbbell,body weight
// means: what can I do instead with what I have"), so every record
// of every page needs no other equipment, but for the bench that comes with
// free weights (dumbbells, a barbell or an EZ bar bring one). With the
// listing's any-of, the home alternatives to a lying cable triceps
// extension (4d64lnk6) took in a Smith machine and gymnastic rings, and
// those of a barbell bench press (humnn3ws) with body weight a bench.
func TestRelationEquipmentsAtHand(t *testing.T) {
	s := start(t, options{embedded: true})
	for _, tt := range []struct {
		path string
		have []string
	}{
		{"/api/v1/exercises/4d64lnk6/alternatives", []string{"body weight"}},
		{"/api/v1/exercises/humnn3ws/alternatives", []string{"body weight"}},
		{"/api/v1/exercises/humnn3ws/alternatives", []string{"dumbbell", "body weight"}},
		{"/api/v1/exercises/humnn3ws/variations", []string{"Dumbbell ", "bench"}},
	} {
		q := url.Values{"equipments": {strings.Join(tt.have, ",")}, "limit": {"25"}}
		seen := 0
		for {
			resp, body := s.do(t, request{path: tt.path + "?" + q.Encode(), keyID: "key_mega"})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s?%s: %d %s", tt.path, q.Encode(), resp.StatusCode, body)
			}
			var page struct {
				Meta struct {
					Total       int     `json:"total"`
					HasNextPage bool    `json:"hasNextPage"`
					NextCursor  *string `json:"nextCursor"`
				} `json:"meta"`
				Data []struct {
					ExerciseID string   `json:"exerciseId"`
					Name       string   `json:"name"`
					Equipments []string `json:"equipments"`
				} `json:"data"`
			}
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatal(err)
			}
			has := func(e string) bool {
				return slices.ContainsFunc(tt.have, func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), e) })
			}
			for _, x := range page.Data {
				seen++
				for _, e := range x.Equipments {
					if e == "bench" && (has("dumbbell") || has("barbell") || has("ez barbell")) {
						continue
					}
					if !has(e) {
						t.Errorf("%s with %q: %s (%s) needs %q too", tt.path, tt.have, x.ExerciseID, x.Name, e)
					}
				}
			}
			if !page.Meta.HasNextPage {
				if seen != page.Meta.Total {
					t.Errorf("%s with %q: walked %d records, total %d", tt.path, tt.have, seen, page.Meta.Total)
				}
				break
			}
			q.Set("after", *page.Meta.NextCursor)
		}
		if seen == 0 {
			t.Errorf("%s with %q: no record at all; the test needs some", tt.path, tt.have)
		}
	}
}
