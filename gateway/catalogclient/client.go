// Package catalogclient is the gateway's one connection pool to the catalog
// service. It turns gRPC replies into plain Go values and gRPC failures into
// *apierror.Error, in one place; generated protobuf types stay inside it.
package catalogclient

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
	"github.com/exercisedb/exercisedb/pkg/vtcodec"
)

// RequestIDHeader is the gRPC metadata key of the request id.
const RequestIDHeader = "x-request-id"

// catalogService is the catalog's name in grpc.health.v1.
const catalogService = "exercisedb.catalog.v1.CatalogService"

// ExerciseJSON is one exercise in the public API's JSON, in the fragments
// the catalog encodes once per catalogue version (see pkg/exercisejson):
// the caller writes it with exercisejson.Append, adding the image URL it
// renders from MediaKey. Its bytes are shared and must not be modified.
type ExerciseJSON struct {
	Head     []byte
	MediaKey string // empty when the exercise has no image
	// MediaDigest names the current content of the media of MediaKey;
	// empty from a catalog that draws no media.
	MediaDigest string
	Content     []byte // the content fields asked for (all, for Exercise)
}

// Content is a set of content fields to fill in listed exercises, in the
// bits of exercisejson.Set.
type Content uint8

// The content fields.
const (
	Description Content = 1 << iota
	Instructions
	Tips
	Aliases
	Training
	AllContent = Description | Instructions | Tips | Aliases | Training
)

// fields lists the set's fields as the catalog names them.
func (c Content) fields() []catalogv1.ContentField {
	var out []catalogv1.ContentField
	for i, f := range []catalogv1.ContentField{
		catalogv1.ContentField_CONTENT_FIELD_DESCRIPTION, catalogv1.ContentField_CONTENT_FIELD_INSTRUCTIONS,
		catalogv1.ContentField_CONTENT_FIELD_TIPS, catalogv1.ContentField_CONTENT_FIELD_ALIASES,
		catalogv1.ContentField_CONTENT_FIELD_TRAINING,
	} {
		if c&(1<<i) != 0 {
			out = append(out, f)
		}
	}
	return out
}

// Relation names a list of exercises related to one exercise.
type Relation int

// The relations; see the catalog's Relation.
const (
	Variations   = Relation(catalogv1.Relation_RELATION_VARIATIONS)
	Alternatives = Relation(catalogv1.Relation_RELATION_ALTERNATIVES)
)

// Filter selects exercises; see the catalog's ExerciseFilter.
type Filter struct {
	BodyParts, Equipments, Difficulties, ExerciseTypes, TargetMuscles, SecondaryMuscles []string
	// The training filters.
	MovementPatterns, Mechanics, Forces, Lateralities, Measures []string
	Name                                                        string
	// Query is a search; see the catalog's ExerciseFilter.query.
	Query string
}

// ListRequest asks for one page.
type ListRequest struct {
	Filter        Filter
	Limit         int
	After, Before string
	RecordCap     int
	Include       Content
	// Relation, when set, lists the exercises related to RelatedTo by it,
	// ranked, instead of the whole catalogue. An empty RelatedTo is sent
	// as it is, for the catalog to refuse: it never means no relation.
	RelatedTo string
	Relation  Relation
	// IDs, when set, asks for the exercises they name, in this order, on
	// one page, instead of a filtered listing: Filter, Limit, the cursors
	// and Relation must then be zero.
	IDs []string
	// Facets are the facets to count, each once.
	Facets []Facet
}

// Facet is a field whose values a listing counts; see the catalog's Facet.
type Facet int

// The facets.
const (
	FacetBodyParts        = Facet(catalogv1.Facet_FACET_BODY_PARTS)
	FacetEquipments       = Facet(catalogv1.Facet_FACET_EQUIPMENTS)
	FacetDifficulty       = Facet(catalogv1.Facet_FACET_DIFFICULTY)
	FacetExerciseTypes    = Facet(catalogv1.Facet_FACET_EXERCISE_TYPES)
	FacetTargetMuscles    = Facet(catalogv1.Facet_FACET_TARGET_MUSCLES)
	FacetMovementPatterns = Facet(catalogv1.Facet_FACET_MOVEMENT_PATTERNS)
)

// FacetCounts are the counts of one facet's values, most records first.
type FacetCounts struct {
	Facet  Facet
	Values []ValueCount
}

// ValueCount is a value of a facet and the number of records it counts.
type ValueCount struct {
	Value string
	Count int
}

// Page is one page of a listing. Its exercises are read with Len and
// JSON, straight from the catalog's reply, without a copy of each.
type Page struct {
	// records are a page made by NewPage.
	records []ExerciseJSON
	json    []*catalogv1.ExerciseJSON
	// exercises is what a catalog older than ExerciseJSON sends instead,
	// with the content fields of include.
	exercises                    []*catalogv1.Exercise
	include                      Content
	Total                        int
	HasNextPage, HasPreviousPage bool
	NextCursor, PreviousCursor   string // empty when absent
	Version                      string
	// MissingIDs are the request's IDs that name no exercise, in the
	// order given.
	MissingIDs []string
	// IgnoredWords, for a search, are the words of the query it set
	// aside; empty when it used them all.
	IgnoredWords []string
	// Facets are the counts the request asked for, in its order.
	Facets []FacetCounts
	// Alternatives, for the alternatives relation, says which movement
	// patterns the list draws on; nil for other lists.
	Alternatives *AlternativesInfo
}

// AlternativesInfo says which movement patterns an alternatives list draws
// on: the exercise's own, or, when nothing of it fits the filter
// (Fallback), the neighbouring ones, nearest first.
type AlternativesInfo struct {
	Fallback         bool
	MovementPatterns []string
}

// ExerciseType is an entry of the exercise type list.
type ExerciseType struct{ Name, MediaKey, MediaDigest string }

// How the connections to the catalog are kept; see "Catalog outages" in
// docs/operations.md.
const (
	// connectTimeout bounds one attempt at a catalog that does not answer
	// (a dead host drops the SYN): the next address, or a fresh DNS
	// answer, is tried sooner than after grpc-go's 20s.
	connectTimeout = 5 * time.Second
	// A connection idle for pingEvery is pinged (grpc-go's minimum), and
	// closed if the ping is not answered within pingTimeout; pingTimeout
	// is also the TCP user timeout, so a path that silently drops the
	// calls in flight is given up after it. The catalog's keepalive
	// policy (catalog/grpcapi) permits pings every 5s.
	pingEvery   = 10 * time.Second
	pingTimeout = 3 * time.Second
)

// reconnect retries a lost connection after at most 0.6s (MaxDelay plus
// jitter), so the first call after a catalog is back waits less than a
// second, however long it was away.
var reconnect = backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond}

// Client calls the catalog. It is safe for concurrent use.
type Client struct {
	conn     *grpc.ClientConn
	rpc      catalogv1.CatalogServiceClient
	health   healthpb.HealthClient
	timeout  time.Duration
	exchange *exchange // nil: one RPC per call
	outages  *outages
}

// New connects lazily to target, any grpc-go target; "dns:///host:port"
// balances round-robin over every address the name resolves to. Each call
// gets timeout unless its context ends sooner. With streams above zero,
// listings and single exercises travel in batches over that many Exchange
// streams; with zero, each is an RPC of its own.
func New(target string, timeout time.Duration, streams int, opts ...grpc.DialOption) (*Client, error) {
	opts = append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig": [{"round_robin": {}}]}`),
		// grpc-go's default backoff grows to 120s, so a catalog back after
		// a long outage would wait that long for the next attempt.
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: reconnect, MinConnectTimeout: connectTimeout}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: pingEvery, Timeout: pingTimeout, PermitWithoutStream: true}),
		// Reflection-free marshalling of the catalog's messages.
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(vtcodec.Codec{})),
	}, opts...)
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, fmt.Errorf("catalog target %q: %w", target, err)
	}
	c := &Client{
		conn:    conn,
		rpc:     catalogv1.NewCatalogServiceClient(conn),
		health:  healthpb.NewHealthClient(conn),
		timeout: timeout,
		outages: newOutages(),
	}
	if streams > 0 {
		c.exchange = newExchange(c.rpc, streams)
	}
	return c, nil
}

// Instrument logs the catalog's outages to log, once as each starts and
// once as it ends, and registers the client's metrics in reg. Call it
// before the first call.
func (c *Client) Instrument(log *slog.Logger, reg prometheus.Registerer) error {
	o := c.outages
	o.log = log
	for _, m := range []prometheus.Collector{o.errors, o.started, o.available} {
		if err := reg.Register(m); err != nil {
			return err
		}
	}
	return nil
}

// Close ends the Exchange streams and closes the connection pool.
func (c *Client) Close() error {
	if c.exchange != nil {
		c.exchange.close()
	}
	return c.conn.Close()
}

// call prepares the context of one call: deadline and request id.
func (c *Client) call(ctx context.Context, requestID string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	if requestID != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, RequestIDHeader, requestID)
	}
	return ctx, cancel
}

// invoke makes a ListExercises or GetExercise call, in a batch over
// Exchange when the client has streams, else as an RPC of its own; pick
// takes the reply out of an exchanged call's result, rpc makes the RPC.
func invoke[R any](ctx context.Context, c *Client, requestID string, call *catalogv1.Call,
	pick func(*catalogv1.CallResult) *R, rpc func(context.Context) (*R, error)) (*R, error) {
	if c.exchange == nil || !c.exchange.available() {
		return unary(ctx, c, requestID, rpc)
	}
	// One deadline for the call: an RPC made after Exchange failed gets
	// what is left of it, not a timeout of its own.
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	call.RequestId = requestID
	res, err := c.exchange.do(ctx, call)
	if status.Code(err) == codes.Unimplemented { // a catalog older than Exchange
		return unary(ctx, c, requestID, rpc)
	}
	c.outages.record(err)
	if err != nil {
		return nil, err
	}
	if r := pick(res); r != nil {
		return r, nil
	}
	return nil, status.Error(codes.Internal, "the catalog answered with another method's result")
}

// unary makes the RPC rpc with the call's deadline and request id.
func unary[R any](ctx context.Context, c *Client, requestID string, rpc func(context.Context) (*R, error)) (*R, error) {
	ctx, cancel := c.call(ctx, requestID)
	defer cancel()
	r, err := rpc(ctx)
	c.outages.record(err)
	return r, err
}

// Ready reports whether the catalog answers SERVING, or why not.
func (c *Client) Ready(ctx context.Context) error {
	ctx, cancel := c.call(ctx, "")
	defer cancel()
	r, err := c.health.Check(ctx, &healthpb.HealthCheckRequest{Service: catalogService})
	if err != nil {
		return fmt.Errorf("catalog health: %w", err)
	}
	if r.Status != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("catalog is %s", r.Status)
	}
	return nil
}

// List returns one page of exercises.
func (c *Client) List(ctx context.Context, requestID string, req ListRequest) (*Page, error) {
	f := req.Filter
	in := &catalogv1.ListExercisesRequest{
		Filter: &catalogv1.ExerciseFilter{
			BodyParts: f.BodyParts, Equipments: f.Equipments, Difficulties: f.Difficulties,
			ExerciseTypes: f.ExerciseTypes, TargetMuscles: f.TargetMuscles, SecondaryMuscles: f.SecondaryMuscles,
			MovementPatterns: f.MovementPatterns, Mechanics: f.Mechanics, Force: f.Forces,
			Laterality: f.Lateralities, Measure: f.Measures,
			Name: f.Name, Query: f.Query,
		},
		Limit:     int32(req.Limit),
		After:     req.After,
		Before:    req.Before,
		RecordCap: int32(req.RecordCap),
		Include:   req.Include.fields(),
		Json:      true,
		Ids:       req.IDs,
	}
	for _, f := range req.Facets {
		in.Facets = append(in.Facets, catalogv1.Facet(f))
	}
	if req.Relation != 0 {
		in.Related = &catalogv1.Related{Id: req.RelatedTo, Relation: catalogv1.Relation(req.Relation)}
	}
	r, err := invoke(ctx, c, requestID, &catalogv1.Call{Method: &catalogv1.Call_ListExercises{ListExercises: in}},
		(*catalogv1.CallResult).GetListExercises,
		func(ctx context.Context) (*catalogv1.ListExercisesResponse, error) {
			return c.rpc.ListExercises(ctx, in)
		})
	if status.Code(err) == codes.NotFound && req.Relation != 0 {
		return nil, noSuchExercise(req.RelatedTo)
	}
	if err != nil {
		return nil, toAPIError(err)
	}
	return &Page{
		json:            r.ExercisesJson,
		exercises:       r.Exercises,
		include:         req.Include,
		Total:           int(r.Total),
		HasNextPage:     r.HasNextPage,
		HasPreviousPage: r.HasPreviousPage,
		NextCursor:      r.NextCursor,
		PreviousCursor:  r.PreviousCursor,
		Version:         r.CatalogueVersion,
		MissingIDs:      r.MissingIds,
		IgnoredWords:    r.IgnoredWords,
		Facets:          facetCounts(r.Facets),
		Alternatives:    alternativesInfo(r.Alternatives),
	}, nil
}

func alternativesInfo(in *catalogv1.AlternativesInfo) *AlternativesInfo {
	if in == nil {
		return nil
	}
	return &AlternativesInfo{Fallback: in.Fallback, MovementPatterns: in.MovementPatterns}
}

func facetCounts(in []*catalogv1.FacetCounts) []FacetCounts {
	if len(in) == 0 {
		return nil
	}
	out := make([]FacetCounts, len(in))
	for i, fc := range in {
		values := make([]ValueCount, len(fc.GetValues()))
		for j, v := range fc.GetValues() {
			values[j] = ValueCount{Value: v.GetValue(), Count: int(v.GetCount())}
		}
		out[i] = FacetCounts{Facet: Facet(fc.GetFacet()), Values: values}
	}
	return out
}

// NewPage returns a page of the given exercises, for a stand-in of the
// catalog (tests of the API); the caller sets the other fields.
func NewPage(records []ExerciseJSON) *Page { return &Page{records: records} }

// Len is the number of exercises on the page.
func (p *Page) Len() int { return len(p.records) + len(p.json) + len(p.exercises) }

// JSON returns the page's i-th exercise, 0 <= i < Len().
func (p *Page) JSON(i int) ExerciseJSON {
	if p.records != nil {
		return p.records[i]
	}
	if p.json != nil {
		return fromJSON(p.json[i])
	}
	return fromProto(p.exercises[i], p.include)
}

// Exercise returns one exercise, with every content field, and the
// catalogue version.
func (c *Client) Exercise(ctx context.Context, requestID, id string) (ExerciseJSON, string, error) {
	in := &catalogv1.GetExerciseRequest{Id: id, Json: true}
	r, err := invoke(ctx, c, requestID, &catalogv1.Call{Method: &catalogv1.Call_GetExercise{GetExercise: in}},
		(*catalogv1.CallResult).GetGetExercise,
		func(ctx context.Context) (*catalogv1.GetExerciseResponse, error) { return c.rpc.GetExercise(ctx, in) })
	if status.Code(err) == codes.NotFound {
		return ExerciseJSON{}, "", noSuchExercise(id)
	}
	if err != nil {
		return ExerciseJSON{}, "", toAPIError(err)
	}
	if r.ExerciseJson != nil {
		return fromJSON(r.ExerciseJson), r.CatalogueVersion, nil
	}
	return fromProto(r.Exercise, AllContent), r.CatalogueVersion, nil
}

// BodyParts returns the body part names and the catalogue version.
func (c *Client) BodyParts(ctx context.Context, requestID string) ([]string, string, error) {
	r, err := unary(ctx, c, requestID, func(ctx context.Context) (*catalogv1.ListBodyPartsResponse, error) {
		return c.rpc.ListBodyParts(ctx, &catalogv1.ListBodyPartsRequest{})
	})
	if err != nil {
		return nil, "", toAPIError(err)
	}
	return r.BodyParts, r.CatalogueVersion, nil
}

// Equipments returns the equipment names and the catalogue version.
func (c *Client) Equipments(ctx context.Context, requestID string) ([]string, string, error) {
	r, err := unary(ctx, c, requestID, func(ctx context.Context) (*catalogv1.ListEquipmentsResponse, error) {
		return c.rpc.ListEquipments(ctx, &catalogv1.ListEquipmentsRequest{})
	})
	if err != nil {
		return nil, "", toAPIError(err)
	}
	return r.Equipments, r.CatalogueVersion, nil
}

// MovementPatterns returns the movement pattern names and the catalogue
// version.
func (c *Client) MovementPatterns(ctx context.Context, requestID string) ([]string, string, error) {
	r, err := unary(ctx, c, requestID, func(ctx context.Context) (*catalogv1.ListMovementPatternsResponse, error) {
		return c.rpc.ListMovementPatterns(ctx, &catalogv1.ListMovementPatternsRequest{})
	})
	if err != nil {
		return nil, "", toAPIError(err)
	}
	return r.MovementPatterns, r.CatalogueVersion, nil
}

// Muscles returns the muscle names and the catalogue version.
func (c *Client) Muscles(ctx context.Context, requestID string) ([]string, string, error) {
	r, err := unary(ctx, c, requestID, func(ctx context.Context) (*catalogv1.ListMusclesResponse, error) {
		return c.rpc.ListMuscles(ctx, &catalogv1.ListMusclesRequest{})
	})
	if err != nil {
		return nil, "", toAPIError(err)
	}
	names := make([]string, len(r.Muscles))
	for i, m := range r.Muscles {
		names[i] = m.Name
	}
	return names, r.CatalogueVersion, nil
}

// ExerciseTypes returns the exercise types and the catalogue version.
func (c *Client) ExerciseTypes(ctx context.Context, requestID string) ([]ExerciseType, string, error) {
	r, err := unary(ctx, c, requestID, func(ctx context.Context) (*catalogv1.ListExerciseTypesResponse, error) {
		return c.rpc.ListExerciseTypes(ctx, &catalogv1.ListExerciseTypesRequest{})
	})
	if err != nil {
		return nil, "", toAPIError(err)
	}
	out := make([]ExerciseType, len(r.ExerciseTypes))
	for i, t := range r.ExerciseTypes {
		out[i] = ExerciseType{Name: t.Name, MediaKey: t.MediaKey, MediaDigest: t.MediaDigest}
	}
	return out, r.CatalogueVersion, nil
}

func fromJSON(x *catalogv1.ExerciseJSON) ExerciseJSON {
	return ExerciseJSON{Head: x.Head, MediaKey: x.MediaKey, MediaDigest: x.MediaDigest, Content: x.Content}
}

// fromProto encodes what a catalog older than ExerciseJSON sends, with the
// content fields of include (those it filled).
func fromProto(x *catalogv1.Exercise, include Content) ExerciseJSON {
	f := exercisejson.Encode(&exercisejson.Record{
		ID: x.Id, Name: x.Name, Equipments: x.Equipments, BodyParts: x.BodyParts, ExerciseTypes: x.ExerciseTypes,
		Difficulty: x.Difficulty, TargetMuscles: x.TargetMuscles, SecondaryMuscles: x.SecondaryMuscles,
		Description: x.Description, Instructions: x.Instructions, Tips: x.Tips, Aliases: x.Aliases,
		Training: fromTraining(x.Training),
	})
	return ExerciseJSON{Head: f.Head(), MediaKey: x.MediaKey, MediaDigest: x.MediaDigest, Content: f.Content(exercisejson.Set(include))}
}

// fromTraining converts a training message; nil when absent.
func fromTraining(t *catalogv1.Training) *exercisejson.Training {
	if t == nil {
		return nil
	}
	p := t.GetPrescription()
	return &exercisejson.Training{
		MovementPattern: t.MovementPattern, Mechanics: t.Mechanics, Force: t.Force, Laterality: t.Laterality, Measure: t.Measure,
		Prescription: exercisejson.Prescription{
			Sets: fromRange(p.GetSets()), Reps: fromRange(p.GetReps()), Seconds: fromRange(p.GetSeconds()), Meters: fromRange(p.GetMeters()),
		},
	}
}

func fromRange(r *catalogv1.Range) []int {
	if r == nil {
		return nil
	}
	return []int{int(r.Low), int(r.High)}
}

func noSuchExercise(id string) error {
	return apierror.New(http.StatusNotFound, "No exercise has the id %q.", id)
}

// Watch follows the version of the catalogue being served until ctx ends.
// It calls report with each version the catalog announces, and with ""
// whenever the stream breaks, since the version is then unknown; it
// reconnects with a growing pause (up to 5s).
func (c *Client) Watch(ctx context.Context, report func(version string)) error {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		stream, err := c.rpc.WatchCatalogue(ctx, &catalogv1.WatchCatalogueRequest{})
		for err == nil {
			var msg *catalogv1.WatchCatalogueResponse
			if msg, err = stream.Recv(); err == nil {
				report(msg.CatalogueVersion)
				pause = 100 * time.Millisecond
			}
		}
		report("")
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
	return nil
}
