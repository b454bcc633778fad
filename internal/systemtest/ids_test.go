package systemtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/exercisedb/exercisedb/pkg/client"
)

// TestIDsProperty asks the gateway, through the client, for random lists
// of ids, known and unknown, repeated and not: the records come back in
// the order given, each once, equal to the single-exercise answer, the
// unknown ids are reported in order, and a capped plan gets the first
// records found.
func TestIDsProperty(t *testing.T) {
	s := start(t, options{})
	ctx := context.Background()
	pro := newAPIClient(t, s, "key_pro")
	mega := newAPIClient(t, s, "key_mega")
	capped, err := client.New(s.gateway.URL, testKeys["key_capped"].key, client.WithHTTPClient(s.gateway.Client()), client.WithGatewayHost("video.example.test"))
	if err != nil {
		t.Fatal(err)
	}
	known := catalogueIDs(t)
	records := map[string]client.Exercise{}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 40 {
		var sent []string
		for range 1 + rng.IntN(100) {
			if rng.IntN(8) == 0 {
				sent = append(sent, fmt.Sprintf("zz%02d", rng.IntN(5)))
			} else {
				sent = append(sent, known[rng.IntN(len(known))])
			}
		}
		var wantIDs, wantMissing []string
		for _, id := range sent {
			switch {
			case !slices.Contains(known, id):
				wantMissing = append(wantMissing, id)
			case !slices.Contains(wantIDs, id):
				wantIDs = append(wantIDs, id)
			}
		}
		for _, tc := range []struct {
			c   *client.Client
			cap int
		}{{pro, 0}, {capped, 3}} {
			page, err := tc.c.ListExercises(ctx, client.Query{IDs: sent, Include: []client.Field{client.Tips}})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			want := wantIDs
			if tc.cap > 0 {
				want = want[:min(len(want), tc.cap)]
			}
			var got []string
			for _, x := range page.Exercises {
				got = append(got, x.ExerciseID)
				if tc.cap > 0 {
					continue // the other product's image URLs
				}
				if _, ok := records[x.ExerciseID]; !ok {
					one, err := mega.Exercise(ctx, x.ExerciseID)
					if err != nil {
						t.Fatal(err)
					}
					one.Description, one.Instructions, one.Aliases, one.Media = "", nil, nil, nil
					records[x.ExerciseID] = *one
				}
				if diff := cmp.Diff(records[x.ExerciseID], x); diff != "" {
					t.Errorf("case %d: %s differs from its own page (-one +ids):\n%s", i, x.ExerciseID, diff)
				}
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("case %d, cap %d: records (-want +got):\n%s", i, tc.cap, diff)
			}
			if diff := cmp.Diff(wantMissing, page.Meta.MissingIDs, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("case %d: missing (-want +got):\n%s", i, diff)
			}
			if page.Meta.Total != len(want) || page.Meta.HasNextPage || page.Meta.HasPreviousPage {
				t.Fatalf("case %d: meta %+v", i, page.Meta)
			}
		}
	}
}
