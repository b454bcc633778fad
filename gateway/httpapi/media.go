package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/pkg/bytecache"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
)

// MediaDeps are what the media files need: the signer of their URLs, the
// cache of the files served, and the deadline of drawing one.
type MediaDeps struct {
	Signer  *medialink.Signer
	Cache   *bytecache.Cache[string, *MediaFile]
	Timeout time.Duration
}

// MediaFile is a media file as the gateway serves it.
type MediaFile struct {
	Body        []byte
	ContentType string
	ETag        string // strong, from the bytes
	svg         bool
	length      []string // Content-Length
}

// NewMediaCache returns a cache of media files bounded in entries and
// bytes.
func NewMediaCache(maxEntries int, maxBytes int64) *bytecache.Cache[string, *MediaFile] {
	return bytecache.New[string, *MediaFile](maxEntries, maxBytes)
}

// image returns the imageUrl of a record with media key key on product p:
// its demonstration 360 pixels high, from the product's template if it
// has one, else from its media set (signed under the gateway's /media by
// default). The zero Image, no URL, for a record without media.
func (a *api) image(p *plan.Product, key, digest string) exercisejson.Image {
	if key == "" {
		return exercisejson.Image{}
	}
	if prefix, suffix, ok := p.ImageTemplate(); ok {
		return exercisejson.Image{Prefix: prefix, Key: key, Suffix: suffix}
	}
	if digest == "" { // a catalog that draws no media
		return exercisejson.Image{}
	}
	prefix, suffix := a.Media.Signer.Parts(p.MediaBase, medialink.Ref{Key: key, Digest: digest, File: p.MediaKind.File(plan.DefaultMaxMediaHeight)})
	return exercisejson.Image{Prefix: prefix, Key: key, Suffix: suffix}
}

// appendMedia writes a record's `,"media":{…}`: its muscle map, poster and
// the product's demonstrations at each height the plan allows, smallest
// first. Nothing for a record without media.
func (a *api) appendMedia(b []byte, p *plan.Product, pl *plan.Plan, key, digest string) []byte {
	if key == "" || digest == "" {
		return b
	}
	url := func(b []byte, file string) []byte {
		return exercisejson.AppendString(b, a.Media.Signer.URL(p.MediaBase, medialink.Ref{Key: key, Digest: digest, File: file}))
	}
	b = append(b, `,"media":{"muscleMap":`...)
	b = url(b, medialink.MuscleMapFile)
	b = append(b, `,"poster":`...)
	b = url(b, medialink.PosterFile)
	b = append(b, `,"renditions":[`...)
	for i, h := range medialink.Heights {
		if h > pl.MaxMediaHeight {
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"height":`...)
		b = strconv.AppendInt(b, int64(h), 10)
		b = append(b, `,"type":`...)
		b = exercisejson.AppendString(b, p.MediaKind.ContentType())
		b = append(b, `,"url":`...)
		b = url(b, p.MediaKind.File(h))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// mediaRoute is where the gateway serves media files.
const mediaRoute = "/media/"

// errForgedMedia answers a media URL the gateway did not issue.
var errForgedMedia = apierror.New(http.StatusForbidden,
	"This media URL was not issued by this gateway, or was altered; use the imageUrl and media URLs exactly as the API returns them.")

// media serves a file under /media/<signature>/<key>/<digest>/<file>, to
// anyone holding a URL the gateway issued: no key, since the URLs go into
// <img> and <video> tags. The path names one content for ever, so the
// answer is cached publicly for a year, with a strong ETag from the bytes;
// If-None-Match and If-Match are checked as on the API's routes, a Range
// is answered by http.ServeContent.
func (a *api) media(c *gin.Context) {
	if c.Request.URL.RawQuery != "" {
		a.fail(c, badRequest("Media URLs take no query parameters; use the URL exactly as the API returns it."))
		return
	}
	f, err := a.mediaFile(c, strings.TrimPrefix(c.Request.URL.Path, mediaRoute))
	if err != nil {
		a.fail(c, err)
		return
	}
	h := c.Writer.Header()
	h["Content-Type"] = []string{f.ContentType}
	h["Etag"] = []string{f.ETag}
	h["Cache-Control"] = immutable
	h["X-Content-Type-Options"] = nosniff
	h["Accept-Ranges"] = acceptBytes
	if f.svg {
		// An SVG opened as a page must not run anything.
		h["Content-Security-Policy"] = svgPolicy
	}
	if a.preconditions(c, f.ETag) {
		return
	}
	if c.GetHeader("Range") != "" {
		// Video players ask for ranges; ServeContent answers them (and
		// If-Range) by the book.
		http.ServeContent(c.Writer, c.Request, "", time.Time{}, bytes.NewReader(f.Body))
		return
	}
	h["Content-Length"] = f.length
	c.Status(http.StatusOK)
	if c.Request.Method == http.MethodHead {
		c.Writer.WriteHeaderNow()
		return
	}
	_, _ = c.Writer.Write(f.Body)
}

// mediaFile returns the file of a signed path ("<signature>/<key>/
// <digest>/<file>"), from the cache or from the catalog. The cache is keyed
// by the signed path: a file is only cached under a signature that was
// checked, and each path has one signature, so a hit needs no check.
// Concurrent requests for a file not cached fetch it once.
func (a *api) mediaFile(c *gin.Context, signed string) (*MediaFile, error) {
	if f, ok := a.Media.Cache.Get(signed); ok {
		return f, nil
	}
	p, ok := a.Media.Signer.Check(signed)
	if !ok {
		return nil, errForgedMedia
	}
	ref, ok := medialink.Split(p)
	if !ok {
		return nil, errForgedMedia
	}
	v, err, _ := a.mediaFlight.Do(signed, func() (any, error) {
		// Detached from this request: others wait for the same file.
		mf, err := a.Catalog.Media(context.WithoutCancel(c.Request.Context()), requestIDOf(c), ref, a.Media.Timeout)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(mf.Content)
		f := &MediaFile{Body: mf.Content, ContentType: mf.ContentType, ETag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`,
			svg: strings.HasSuffix(ref.File, ".svg"), length: []string{strconv.Itoa(len(mf.Content))}}
		a.Media.Cache.Add(signed, f, len(f.Body)+len(signed)+len(f.ETag)+64)
		return f, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*MediaFile), nil
}

// Header values every media answer shares.
var (
	immutable   = []string{"public, max-age=31536000, immutable"}
	nosniff     = []string{"nosniff"}
	acceptBytes = []string{"bytes"}
	svgPolicy   = []string{"default-src 'none'; style-src 'unsafe-inline'; sandbox"}
)
