package grpcapi

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

func TestGetChangelog(t *testing.T) {
	h := start(t, true)
	current := h.cat.Version()
	h.svc.Changelog = &changelog.File{Format: changelog.Format, Versions: []changelog.Version{
		{Version: current, Previous: "v1", Added: []string{"r00009"}, Changed: []changelog.Change{{ID: "r00001", Fields: []string{"name", "tips"}}}, Removed: []string{}},
		{Version: "v1", Previous: "", Added: []string{"r00001"}, Changed: []changelog.Change{}, Removed: []string{}, Vocabularies: true},
	}}
	ctx := context.Background()

	all, err := h.client.GetChangelog(ctx, &catalogv1.GetChangelogRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := &catalogv1.GetChangelogResponse{CatalogueVersion: current, Versions: []*catalogv1.CatalogueChanges{
		{Version: current, Previous: "v1", Added: []string{"r00009"}, Changed: []*catalogv1.RecordChange{{Id: "r00001", Fields: []string{"name", "tips"}}}},
		{Version: "v1", Added: []string{"r00001"}, Changed: []*catalogv1.RecordChange{}, Vocabularies: true},
	}}
	if diff := cmp.Diff(want, all, protocmp.Transform()); diff != "" {
		t.Errorf("GetChangelog (-want +got):\n%s", diff)
	}

	since, err := h.client.GetChangelog(ctx, &catalogv1.GetChangelogRequest{Since: "v1"})
	if err != nil || len(since.Versions) != 1 || since.Versions[0].Version != current {
		t.Errorf("since v1: %v, %v; want the current version only", since, err)
	}
	upToDate, err := h.client.GetChangelog(ctx, &catalogv1.GetChangelogRequest{Since: current})
	if err != nil || len(upToDate.Versions) != 0 {
		t.Errorf("since the current version: %v, %v; want no versions", upToDate, err)
	}

	_, err = h.client.GetChangelog(ctx, &catalogv1.GetChangelogRequest{Since: "v0"})
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("unknown since: %v, want INVALID_ARGUMENT", err)
	}
	var field string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.FieldViolations) == 1 {
			field = br.FieldViolations[0].Field
		}
	}
	if field != "since" {
		t.Errorf("unknown since: details %v, want a violation of since", st.Details())
	}
}

func TestGetChangelogWithoutChangelog(t *testing.T) {
	h := start(t, true)
	r, err := h.client.GetChangelog(context.Background(), &catalogv1.GetChangelogRequest{})
	if err != nil || len(r.Versions) != 0 || r.CatalogueVersion != h.cat.Version() {
		t.Errorf("GetChangelog = %v, %v; want no versions", r, err)
	}
}
