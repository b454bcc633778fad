package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	"golang.org/x/sync/singleflight"

	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/gateway/respcache"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

// Catalog is what the handlers ask of the catalog; catalogclient.Client
// answers it. Each call returns the catalogue version it answered from.
type Catalog interface {
	List(ctx context.Context, requestID string, req catalogclient.ListRequest) (*catalogclient.Page, error)
	Exercise(ctx context.Context, requestID, id string) (catalogclient.ExerciseJSON, catalogclient.Version, error)
	ExerciseTypes(ctx context.Context, requestID string) ([]catalogclient.ExerciseType, catalogclient.Version, error)
	BodyParts(ctx context.Context, requestID string) ([]string, catalogclient.Version, error)
	Muscles(ctx context.Context, requestID string) ([]string, catalogclient.Version, error)
	Equipments(ctx context.Context, requestID string) ([]string, catalogclient.Version, error)
	MovementPatterns(ctx context.Context, requestID string) ([]string, catalogclient.Version, error)
	Changelog(ctx context.Context, requestID, since string) ([]catalogclient.CatalogueChanges, catalogclient.Version, error)
	Media(ctx context.Context, requestID string, ref medialink.Ref, timeout time.Duration) (catalogclient.MediaFile, error)
}

// Meter counts the requests made with each key and answers their totals;
// usage.Meter is one.
type Meter interface {
	// Record counts one request of keyID to product, answered with status.
	Record(t time.Time, keyID, product string, status int)
	// Totals returns keyID's requests to product today and this month
	// (UTC), counting none before since.
	Totals(ctx context.Context, keyID, product string, since time.Time) (today, month int64, err error)
}

// AuthFailures counts failed authentications per client address and says
// when an address is blocked; limit.Failures is one.
type AuthFailures interface {
	Fail(ctx context.Context, addr string) (retryAfter time.Duration, blocked bool)
}

// Deps are what the API needs from the rest of the gateway.
type Deps struct {
	Products *plan.Table
	// Keys returns the keys in force; it is called once per request, so a
	// reload takes effect on the next request.
	Keys     func() *keys.Set
	Limits   limit.Store
	Failures AuthFailures
	Catalog  Catalog
	// DocsURL is the base of the envelope's docs links, without a slash;
	// empty means this gateway's /docs at the request's host.
	DocsURL string
	Log     *slog.Logger
	// AccessLog writes a line per request; nil means Log does, at info.
	AccessLog *logging.Lines
	// Metrics, if not nil, receives the request metrics.
	Metrics prometheus.Registerer
	// TrustedProxies are the CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []string
	// Now is the clock of the quota windows' headers; nil means time.Now.
	Now func() time.Time
	// Cache, if not nil, keeps rendered responses of the current
	// catalogue version.
	Cache *respcache.Cache
	// Compression sends response bodies of 1 KiB and more gzipped to
	// clients that accept it (Accept-Encoding).
	Compression bool
	// Tracing starts a span per request (OpenTelemetry's global tracer
	// provider), continuing the caller's trace context.
	Tracing bool
	// CORSOrigins are the browser origins allowed to call the API ("*" for
	// any); empty sends no CORS headers.
	CORSOrigins []string
	// Usage, if not nil, counts every request made with a key and answers
	// /api/v1/usage; nil turns metering off (the endpoint then reports 0).
	Usage Meter
	// Media signs the media URLs of responses and serves /media.
	Media MediaDeps
	// FreeKeys, if not nil, throttles each key's requests to free
	// operations (per product), which no plan counts; FreeAddrs, if not
	// nil, each client address's requests to the pages and media that need
	// no key. Both answer from memory: a refusal reaches no store.
	FreeKeys, FreeAddrs *limit.Throttle
	// InFlight, if not nil, caps each key's requests under way at once,
	// so that no key holds more than its share of the catalog; a request
	// waits for a slot at most InFlightWait (default one second).
	InFlight     *limit.InFlight
	InFlightWait time.Duration
}

// api holds the dependencies of the handlers.
type api struct {
	Deps
	metrics *metrics
	// endpoints are the paths served, as registered, for the 404 message.
	endpoints []string
	// mediaFlight makes concurrent requests for one media file fetch it
	// from the catalog once.
	mediaFlight singleflight.Group
}

// New returns the public API handler.
func New(d Deps) (http.Handler, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.AccessLog == nil {
		d.AccessLog = logging.NewLines(d.Log, nil, "")
	}
	if d.Media.Signer == nil {
		return nil, errors.New("httpapi: Deps.Media.Signer is required")
	}
	if d.Media.Cache == nil {
		d.Media.Cache = NewMediaCache(1024, 16<<20)
	}
	if d.Media.Timeout <= 0 {
		d.Media.Timeout = 30 * time.Second
	}
	if d.InFlightWait <= 0 {
		d.InFlightWait = time.Second
	}
	a := &api{Deps: d, metrics: newMetrics(d.Metrics, d.Cache, d.Media.Cache)}
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.ContextWithFallback = true
	if err := e.SetTrustedProxies(d.TrustedProxies); err != nil {
		return nil, err
	}
	if d.Tracing {
		e.Use(otelgin.Middleware("gateway"))
	}
	e.Use(a.requestID, a.observe, a.recover, a.exactPath, a.refuseBodies)
	e.NoRoute(a.noRoute)
	e.NoMethod(a.noMethod)

	a.route(e, "/api/v1/exercises/bodyparts", plan.ExercisesByBodyParts, a.listExercises(bodyPartsParams, 0))
	a.route(e, "/api/v1/exercises", plan.Exercises, a.listExercises(exercisesParams, 0))
	a.route(e, "/api/v1/exercises/:id", plan.Exercise, a.exercise)
	a.route(e, "/api/v1/exercises/:id/variations", plan.ExerciseVariations, a.listExercises(relationParams, catalogclient.Variations))
	a.route(e, "/api/v1/exercises/:id/alternatives", plan.ExerciseAlternatives, a.listExercises(relationParams, catalogclient.Alternatives))
	a.route(e, "/api/v1/exercisetypes", plan.ExerciseTypes, a.exerciseTypes)
	a.route(e, "/api/v1/bodyparts", plan.BodyParts, a.names(d.Catalog.BodyParts))
	a.route(e, "/api/v1/muscles", plan.Muscles, a.names(d.Catalog.Muscles))
	a.route(e, "/api/v1/equipments", plan.Equipments, a.names(d.Catalog.Equipments))
	a.route(e, "/api/v1/movementpatterns", plan.MovementPatterns, a.names(d.Catalog.MovementPatterns))
	a.route(e, "/api/v1/liveness", plan.Liveness, a.liveness)
	a.route(e, "/api/v1/usage", plan.Usage, a.usage)
	a.route(e, "/api/v1/changelog", plan.Changelog, a.changelog)
	a.page(e, "/docs/errors/code/:code", a.errorDoc)
	a.page(e, "/docs/errors", a.errorIndex)
	a.page(e, "/docs", a.apiReference)
	e.GET("/docs/", docsSlash) // the one trailing slash that redirects; not an endpoint to list
	e.HEAD("/docs/", docsSlash)
	a.page(e, "/docs/assets/:file", a.referenceAsset)
	a.page(e, "/openapi.json", a.openAPI)
	// Not listed among the endpoints: media URLs are issued, not composed.
	e.GET(mediaRoute+"*file", a.throttleAddress, a.media)
	e.HEAD(mediaRoute+"*file", a.throttleAddress, a.media)
	return withCORS(e, d.CORSOrigins), nil
}

// route registers an operation for GET and HEAD behind the guard; the
// handler may answer from the response cache once it has read the query.
func (a *api) route(e *gin.Engine, path string, op plan.Operation, h gin.HandlerFunc) {
	chain := []gin.HandlerFunc{a.guard(op), h}
	e.GET(path, chain...)
	e.HEAD(path, chain...)
	a.endpoints = append(a.endpoints, documentedPath(path))
}

// page registers a public page for GET and HEAD, throttled per client
// address.
func (a *api) page(e *gin.Engine, path string, h gin.HandlerFunc) {
	e.GET(path, a.throttleAddress, h)
	e.HEAD(path, a.throttleAddress, h)
	a.endpoints = append(a.endpoints, documentedPath(path))
}

// documentedPath spells a route's path as the documentation does:
// {exerciseId} for :id, {name} for another parameter.
func documentedPath(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if name, ok := strings.CutPrefix(p, ":"); ok {
			if name == "id" {
				name = "exerciseId"
			}
			parts[i] = "{" + name + "}"
		}
	}
	return strings.Join(parts, "/")
}
