package grpcapi

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

func TestContentAndRelations(t *testing.T) {
	h := startWith(t, true, "testdata/content.json")
	ctx := context.Background()

	one, err := h.client.GetExercise(ctx, &catalogv1.GetExerciseRequest{Id: "bp"})
	if err != nil {
		t.Fatal(err)
	}
	if x := one.Exercise; x.Description == "" || len(x.Instructions) != 3 || len(x.Tips) != 1 || len(x.Aliases) != 1 {
		t.Errorf("GetExercise lacks content: %v", x)
	}

	list, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list.Exercises {
		if x.Description != "" || x.Instructions != nil || x.Tips != nil || x.Aliases != nil {
			t.Errorf("a listing without include carries content: %v", x)
		}
	}
	list, err = h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Include: []catalogv1.ContentField{
		catalogv1.ContentField_CONTENT_FIELD_TIPS, catalogv1.ContentField_CONTENT_FIELD_ALIASES,
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list.Exercises {
		if x.Description != "" || x.Instructions != nil || len(x.Tips) == 0 || len(x.Aliases) == 0 {
			t.Errorf("include=tips,aliases gave %v", x)
		}
	}

	related := func(id string, rel catalogv1.Relation, req *catalogv1.ListExercisesRequest) ([]string, error) {
		req.Related = &catalogv1.Related{Id: id, Relation: rel}
		r, err := h.client.ListExercises(ctx, req)
		var ids []string
		for _, x := range r.GetExercises() {
			ids = append(ids, x.Id)
		}
		return ids, err
	}
	// bp and db are one family; db uses other equipment, so it is both a
	// variation and an alternative.
	for _, tc := range []struct {
		rel  catalogv1.Relation
		id   string
		want []string
	}{
		{catalogv1.Relation_RELATION_VARIATIONS, "bp", []string{"db"}},
		{catalogv1.Relation_RELATION_VARIATIONS, "db", []string{"bp"}},
		{catalogv1.Relation_RELATION_ALTERNATIVES, "bp", []string{"db"}},
		{catalogv1.Relation_RELATION_VARIATIONS, "pu", nil},
	} {
		got, err := related(tc.id, tc.rel, &catalogv1.ListExercisesRequest{})
		if err != nil || !cmp.Equal(got, tc.want) {
			t.Errorf("%s of %s: %v, %v; want %v", tc.rel, tc.id, got, err, tc.want)
		}
	}
	if got, err := related("bp", catalogv1.Relation_RELATION_ALTERNATIVES, &catalogv1.ListExercisesRequest{
		Filter: &catalogv1.ExerciseFilter{Equipments: []string{"barbell"}},
	}); err != nil || got != nil {
		t.Errorf("filtered alternatives: %v, %v; want none", got, err)
	}
	// An alternatives list says which patterns it draws on; other lists
	// say nothing.
	for _, tc := range []struct {
		rel  catalogv1.Relation
		want *catalogv1.AlternativesInfo
	}{
		{catalogv1.Relation_RELATION_ALTERNATIVES, &catalogv1.AlternativesInfo{MovementPatterns: []string{"horizontal push"}}},
		{catalogv1.Relation_RELATION_VARIATIONS, nil},
	} {
		r, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Related: &catalogv1.Related{Id: "bp", Relation: tc.rel}})
		if err != nil || !cmp.Equal(r.GetAlternatives(), tc.want, protocmp.Transform()) {
			t.Errorf("%s of bp: alternatives %v, %v; want %v", tc.rel, r.GetAlternatives(), err, tc.want)
		}
	}

	for _, tc := range []struct {
		name  string
		id    string
		rel   catalogv1.Relation
		req   *catalogv1.ListExercisesRequest
		code  codes.Code
		field string
	}{
		{"unknown id", "nope", catalogv1.Relation_RELATION_VARIATIONS, &catalogv1.ListExercisesRequest{}, codes.NotFound, ""},
		{"malformed id", "a b", catalogv1.Relation_RELATION_VARIATIONS, &catalogv1.ListExercisesRequest{}, codes.InvalidArgument, "related.id"},
		{"unspecified relation", "bp", catalogv1.Relation_RELATION_UNSPECIFIED, &catalogv1.ListExercisesRequest{}, codes.InvalidArgument, "related.relation"},
		{"cursor not in the list", "bp", catalogv1.Relation_RELATION_VARIATIONS, &catalogv1.ListExercisesRequest{After: "pu"}, codes.InvalidArgument, "after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := related(tc.id, tc.rel, tc.req)
			st := status.Convert(err)
			if st.Code() != tc.code {
				t.Fatalf("code %s (%v), want %s", st.Code(), err, tc.code)
			}
			if tc.field == "" {
				return
			}
			for _, d := range st.Details() {
				if br, ok := d.(*errdetails.BadRequest); ok && br.FieldViolations[0].Field == tc.field {
					return
				}
			}
			t.Fatalf("no violation of %s in %v", tc.field, st.Details())
		})
	}
}

func TestUnknownEnumValuesAreNamedAsSent(t *testing.T) {
	h := startWith(t, true, "testdata/content.json")
	const (
		wantRelation = "is not a relation (want RELATION_VARIATIONS or RELATION_ALTERNATIVES)"
		wantContent  = "is not a content field (want CONTENT_FIELD_DESCRIPTION, CONTENT_FIELD_INSTRUCTIONS, CONTENT_FIELD_TIPS, CONTENT_FIELD_ALIASES or CONTENT_FIELD_TRAINING)"
	)
	tests := []struct {
		name string
		req  *catalogv1.ListExercisesRequest
		want []*errdetails.BadRequest_FieldViolation // nil: the call succeeds
	}{
		{"unknown relation", &catalogv1.ListExercisesRequest{Related: &catalogv1.Related{Id: "bp", Relation: 99}},
			[]*errdetails.BadRequest_FieldViolation{{Field: "related.relation", Description: `"99" ` + wantRelation}}},
		{"negative relation", &catalogv1.ListExercisesRequest{Related: &catalogv1.Related{Id: "bp", Relation: -1}},
			[]*errdetails.BadRequest_FieldViolation{{Field: "related.relation", Description: `"-1" ` + wantRelation}}},
		{"unspecified relation", &catalogv1.ListExercisesRequest{Related: &catalogv1.Related{Id: "bp"}},
			[]*errdetails.BadRequest_FieldViolation{{Field: "related.relation", Description: `"RELATION_UNSPECIFIED" ` + wantRelation}}},
		{"unknown include", &catalogv1.ListExercisesRequest{Include: []catalogv1.ContentField{catalogv1.ContentField_CONTENT_FIELD_TIPS, 99}},
			[]*errdetails.BadRequest_FieldViolation{{Field: "include", Description: `"99" ` + wantContent}}},
		{"negative include, with a bad limit", &catalogv1.ListExercisesRequest{Limit: 500, Include: []catalogv1.ContentField{-5}},
			[]*errdetails.BadRequest_FieldViolation{
				{Field: "limit", Description: `"500" must be between 1 and 100`},
				{Field: "include", Description: `"-5" ` + wantContent},
			}},
		{"unknown include beats an unknown id", &catalogv1.ListExercisesRequest{
			Include: []catalogv1.ContentField{7},
			Related: &catalogv1.Related{Id: "nope", Relation: catalogv1.Relation_RELATION_VARIATIONS},
		}, []*errdetails.BadRequest_FieldViolation{{Field: "include", Description: `"7" ` + wantContent}}},
		{"unspecified include is ignored", &catalogv1.ListExercisesRequest{Include: []catalogv1.ContentField{catalogv1.ContentField_CONTENT_FIELD_UNSPECIFIED}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.client.ListExercises(context.Background(), tt.req)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument {
				t.Fatalf("code %s (%v), want InvalidArgument", st.Code(), err)
			}
			want := []any{&errdetails.BadRequest{FieldViolations: tt.want}}
			if diff := cmp.Diff(want, st.Details(), protocmp.Transform()); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotFoundNamesTheFieldAndTheID(t *testing.T) {
	h := startWith(t, true, "testdata/content.json")
	ctx := context.Background()
	_, err := h.client.GetExercise(ctx, &catalogv1.GetExerciseRequest{Id: "nope"})
	if st := status.Convert(err); st.Code() != codes.NotFound || st.Message() != `id "nope": no exercise has this id` {
		t.Errorf("GetExercise(nope): %v", err)
	}
	_, err = h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Related: &catalogv1.Related{Id: "nope", Relation: catalogv1.Relation_RELATION_VARIATIONS}})
	if st := status.Convert(err); st.Code() != codes.NotFound || st.Message() != `related.id "nope": no exercise has this id` {
		t.Errorf("variations of nope: %v", err)
	}
}
