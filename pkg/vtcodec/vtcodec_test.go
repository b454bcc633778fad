package vtcodec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/testing/protocmp"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

func TestRoundTrip(t *testing.T) {
	big := &catalogv1.ListExercisesResponse{Total: 3, NextCursor: "b", CatalogueVersion: "v1"}
	for range 40 { // above the pooling threshold
		big.Exercises = append(big.Exercises, &catalogv1.Exercise{Id: "abc", Name: "barbell bench press", BodyParts: []string{"chest"}, SecondaryMuscles: []string{"triceps brachii"}})
	}
	for name, tt := range map[string]struct{ in, out any }{
		"vtproto, small":   {&catalogv1.Exercise{Id: "x", Name: "plank"}, &catalogv1.Exercise{}},
		"vtproto, pooled":  {big, &catalogv1.ListExercisesResponse{}},
		"standard message": {&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, &healthpb.HealthCheckResponse{}},
	} {
		t.Run(name, func(t *testing.T) {
			var c Codec
			data, err := c.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Unmarshal(data, tt.out); err != nil {
				t.Fatal(err)
			}
			data.Free()
			if diff := cmp.Diff(tt.in, tt.out, protocmp.Transform()); diff != "" {
				t.Errorf("(-in +out):\n%s", diff)
			}
		})
	}
}
