package catalogclient

import (
	"context"
	"net/http"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// MediaFile is one media file drawn by the catalog.
type MediaFile struct {
	Content     []byte
	ContentType string
}

// Media returns the media file ref names (see the catalog's GetMedia).
// Drawing a file takes far longer than a listing, so the call has its own
// deadline, timeout, rather than the client's.
func (c *Client) Media(ctx context.Context, requestID string, ref medialink.Ref, timeout time.Duration) (MediaFile, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if requestID != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, RequestIDHeader, requestID)
	}
	r, err := c.rpc.GetMedia(ctx, &catalogv1.GetMediaRequest{MediaKey: ref.Key, Digest: ref.Digest, File: ref.File})
	c.outages.record(err)
	switch status.Code(err) {
	case codes.OK:
		return MediaFile{Content: r.Content, ContentType: r.ContentType}, nil
	case codes.NotFound, codes.InvalidArgument:
		// The digest of an older catalogue, or a file the record does not
		// have: the URL was issued, but names nothing served now.
		return MediaFile{}, apierror.New(http.StatusNotFound, "This media file is not in the catalogue served now; fetch the exercise again for its current URLs.")
	case codes.Unimplemented:
		return MediaFile{}, apierror.Unavailable(time.Minute, err, "Files of this format cannot be made right now; the other product kind's files can.")
	default:
		return MediaFile{}, toAPIError(err)
	}
}
