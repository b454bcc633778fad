package grpcapi

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// GetChangelog implements catalogv1.CatalogServiceServer: the versions of
// s.Changelog that lead to the catalogue served.
func (s *Service) GetChangelog(_ context.Context, req *catalogv1.GetChangelogRequest) (*catalogv1.GetChangelogResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	versions, err := s.Changelog.Since(c.Version(), req.GetSince())
	if errors.Is(err, changelog.ErrUnknownVersion) {
		desc := shorten(req.GetSince()) + ": " + err.Error() + "; fetch the records again"
		return nil, withDetails(codes.InvalidArgument, "invalid argument: since: "+desc, &errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "since", Description: desc}},
		})
	}
	if err != nil {
		return nil, toStatus(err)
	}
	out := &catalogv1.GetChangelogResponse{Versions: make([]*catalogv1.CatalogueChanges, len(versions)), CatalogueVersion: c.Version()}
	for i, v := range versions {
		p := &catalogv1.CatalogueChanges{
			Version: v.Version, Previous: v.Previous, Added: v.Added, Removed: v.Removed,
			Vocabularies: v.Vocabularies, Changed: make([]*catalogv1.RecordChange, len(v.Changed)),
		}
		for j, ch := range v.Changed {
			p.Changed[j] = &catalogv1.RecordChange{Id: ch.ID, Fields: ch.Fields}
		}
		out.Versions[i] = p
	}
	return out, nil
}
