package grpcapi

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// TestTraining: GetExercise always carries training, a listing only with
// CONTENT_FIELD_TRAINING (in messages and in JSON), the training filters
// select, an unknown value is named by its field path, and the movement
// patterns are listed.
func TestTraining(t *testing.T) {
	h := startWith(t, true, "../exercise/testdata/small-v2.json")
	ctx := context.Background()
	want := &catalogv1.Training{
		MovementPattern: "vertical pull", Mechanics: "compound", Force: "pull", Laterality: "bilateral", Measure: "reps",
		Prescription: &catalogv1.Prescription{Sets: &catalogv1.Range{Low: 3, High: 5}, Reps: &catalogv1.Range{Low: 3, High: 6}},
	}
	one, err := h.client.GetExercise(ctx, &catalogv1.GetExerciseRequest{Id: "pu"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, one.Exercise.Training, protocmp.Transform()); diff != "" {
		t.Errorf("GetExercise training (-want +got):\n%s", diff)
	}
	js, err := h.client.GetExercise(ctx, &catalogv1.GetExerciseRequest{Id: "pu", Json: true})
	if err != nil || !bytes.Contains(js.ExerciseJson.Content, []byte(`,"training":{"movementPattern":"vertical pull","mechanics":"compound"`)) {
		t.Errorf("GetExercise JSON content %s, %v: want the training", js.GetExerciseJson().GetContent(), err)
	}

	list := func(req *catalogv1.ListExercisesRequest) *catalogv1.ListExercisesResponse {
		t.Helper()
		r, err := h.client.ListExercises(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, x := range list(&catalogv1.ListExercisesRequest{}).Exercises {
		if x.Training != nil {
			t.Errorf("a listing without include carries training: %v", x)
		}
	}
	training := []catalogv1.ContentField{catalogv1.ContentField_CONTENT_FIELD_TRAINING}
	got := list(&catalogv1.ListExercisesRequest{Include: training, Filter: &catalogv1.ExerciseFilter{Mechanics: []string{"Compound "}, Force: []string{"pull", "push"}}})
	if len(got.Exercises) != 1 || got.Exercises[0].Id != "pu" || got.Exercises[0].Training == nil {
		t.Errorf("mechanics=compound&force=pull,push with training: %v", got.Exercises)
	}
	r := list(&catalogv1.ListExercisesRequest{Include: training, Json: true, Filter: &catalogv1.ExerciseFilter{MovementPatterns: []string{"vertical pull"}}})
	if len(r.ExercisesJson) != 1 || !bytes.Contains(r.ExercisesJson[0].Content, []byte(`"prescription":{"sets":[3,5],"reps":[3,6]}`)) {
		t.Errorf("JSON listing with training: %v", r.ExercisesJson)
	}
	if n := len(list(&catalogv1.ListExercisesRequest{Filter: &catalogv1.ExerciseFilter{Measure: []string{"time"}}}).Exercises); n != 0 {
		t.Errorf("measure=time: %d exercises, want none", n)
	}

	_, err = h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Filter: &catalogv1.ExerciseFilter{Laterality: []string{"both"}}})
	st := status.Convert(err)
	var fields []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.FieldViolations {
				fields = append(fields, v.Field)
			}
		}
	}
	if st.Code() != codes.InvalidArgument || !cmp.Equal(fields, []string{"filter.laterality"}) {
		t.Errorf("unknown laterality: %v, fields %v", err, fields)
	}

	mp, err := h.client.ListMovementPatterns(ctx, &catalogv1.ListMovementPatternsRequest{})
	if err != nil || !cmp.Equal(mp.MovementPatterns, []string{"horizontal push", "vertical pull"}) || mp.CatalogueVersion == "" {
		t.Errorf("ListMovementPatterns: %v, %v", mp, err)
	}
}
