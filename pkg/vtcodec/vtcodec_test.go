package vtcodec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
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

func TestUnmarshalErrorNamesTheMessageType(t *testing.T) {
	for _, in := range [][]byte{
		{0x0a, 0x01},                   // a field longer than the message
		{0x12, 0x03, 0xff, 0xfe, 0xfd}, // limit (a varint) sent as bytes
	} {
		var c Codec
		err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(in)}, &catalogv1.ListExercisesRequest{})
		const want = "the bytes are not a valid exercisedb.catalog.v1.ListExercisesRequest message"
		if err == nil || err.Error() != want {
			t.Errorf("Unmarshal(%x) = %v, want %q", in, err, want)
		}
	}
}
