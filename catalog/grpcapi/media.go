package grpcapi

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/exercisedb/exercisedb/catalog/media"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// DefaultMediaCache bounds the media files a Service without a Renderer
// keeps: a 720 pixel GIF is a few hundred kilobytes.
const (
	DefaultMediaCacheEntries = 4096
	DefaultMediaCacheBytes   = 64 << 20
)

// ReasonUnknownMedia is the ErrorInfo reason of a NOT_FOUND for a media key
// or digest that the catalogue does not hold.
const ReasonUnknownMedia = "UNKNOWN_MEDIA"

func (s *Service) renderer() *media.Renderer {
	s.rendererOnce.Do(func() {
		if s.Renderer == nil {
			s.Renderer = media.NewRenderer(DefaultMediaCacheEntries, DefaultMediaCacheBytes, "")
		}
	})
	return s.Renderer
}

// GetMedia implements catalogv1.CatalogServiceServer.
func (s *Service) GetMedia(ctx context.Context, req *catalogv1.GetMediaRequest) (*catalogv1.GetMediaResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	f, err := media.ParseFile(req.GetFile())
	if err != nil {
		return nil, withDetails(codes.InvalidArgument, "invalid argument: file: "+err.Error(), &errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "file", Description: shorten(req.GetFile()) + ": " + err.Error()}},
		})
	}
	subject, ok := c.media.Subject(req.GetMediaKey(), req.GetDigest())
	if !ok || !subject.Has(f) {
		return nil, withDetails(codes.NotFound, "no media file of this key, digest and name in the catalogue served", &errdetails.ErrorInfo{
			Reason: ReasonUnknownMedia, Domain: ErrorDomain,
			Metadata: map[string]string{"media_key": shorten(req.GetMediaKey()), "digest": shorten(req.GetDigest()), "file": shorten(req.GetFile())},
		})
	}
	b, err := s.renderer().Render(ctx, subject, f)
	switch {
	case errors.Is(err, media.ErrUnsupported):
		return nil, status.Errorf(codes.Unimplemented, "%s files cannot be made here: their encoder is not installed on the catalog's machine", f.Format.ContentType())
	case ctx.Err() != nil:
		return nil, status.FromContextError(ctx.Err()).Err()
	case err != nil:
		return nil, &internalError{err: err}
	}
	return &catalogv1.GetMediaResponse{Content: b, ContentType: f.Format.ContentType()}, nil
}
