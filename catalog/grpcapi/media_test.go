package grpcapi

import (
	"bytes"
	"context"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// TestGetMedia asks for the media of the digest a listing gives, and for
// files the catalogue does not hold: NOT_FOUND with the reason
// UNKNOWN_MEDIA, or INVALID_ARGUMENT on file.
func TestGetMedia(t *testing.T) {
	h := start(t, true)
	ctx := context.Background()
	list, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	bp, x := list.Exercises[0], list.Exercises[1]
	if bp.MediaKey != "" || bp.MediaDigest != "" {
		t.Errorf("%s has no media key, but the digest %q", bp.Id, bp.MediaDigest)
	}
	if x.MediaKey == "" || len(x.MediaDigest) != 16 {
		t.Fatalf("listed %s with media key %q, digest %q", x.Id, x.MediaKey, x.MediaDigest)
	}
	for file, want := range map[string]struct {
		contentType string
		magic       []byte
	}{
		"muscles.svg": {"image/svg+xml", []byte("<svg")},
		"180.gif":     {"image/gif", []byte("GIF89a")},
		"poster.png":  {"image/png", []byte("\x89PNG")},
	} {
		r, err := h.client.GetMedia(ctx, &catalogv1.GetMediaRequest{MediaKey: x.MediaKey, Digest: x.MediaDigest, File: file})
		if err != nil || r.ContentType != want.contentType || !bytes.Contains(r.Content[:min(len(r.Content), 200)], want.magic) {
			t.Errorf("GetMedia(%s): %v, type %q", file, err, r.GetContentType())
		}
	}

	for name, tt := range map[string]struct {
		req    *catalogv1.GetMediaRequest
		code   codes.Code
		reason string
	}{
		"older digest":   {&catalogv1.GetMediaRequest{MediaKey: x.MediaKey, Digest: "0000000000000000", File: "360.gif"}, codes.NotFound, ReasonUnknownMedia},
		"unknown key":    {&catalogv1.GetMediaRequest{MediaKey: "exercises/nope", Digest: x.MediaDigest, File: "360.gif"}, codes.NotFound, ReasonUnknownMedia},
		"bad file name":  {&catalogv1.GetMediaRequest{MediaKey: x.MediaKey, Digest: x.MediaDigest, File: "1080.gif"}, codes.InvalidArgument, ""},
		"path traversal": {&catalogv1.GetMediaRequest{MediaKey: x.MediaKey, Digest: x.MediaDigest, File: "../360.gif"}, codes.InvalidArgument, ""},
	} {
		_, err := h.client.GetMedia(ctx, tt.req)
		st := status.Convert(err)
		if st.Code() != tt.code {
			t.Errorf("%s: %v, want %v", name, err, tt.code)
			continue
		}
		var reason string
		var field string
		for _, d := range st.Details() {
			switch d := d.(type) {
			case *errdetails.ErrorInfo:
				reason = d.Reason
			case *errdetails.BadRequest:
				field = d.FieldViolations[0].Field
			}
		}
		if reason != tt.reason || (tt.code == codes.InvalidArgument && field != "file") {
			t.Errorf("%s: reason %q, field %q; want %q", name, reason, field, tt.reason)
		}
	}
}
