package grpcapi

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/exercisedb/exercisedb/catalog/changelog"
	"github.com/exercisedb/exercisedb/catalog/exercise"
	"github.com/exercisedb/exercisedb/catalog/media"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/pkg/exercisejson"
)

// Service implements catalogv1.CatalogServiceServer over the current
// catalogue. Until the first Swap it answers UNAVAILABLE. Swap replaces the
// catalogue atomically: a call in flight finishes on the catalogue it
// started with.
type Service struct {
	catalogv1.UnimplementedCatalogServiceServer
	current atomic.Pointer[served]

	// Changelog is what each catalogue version changed, as shipped with
	// the catalogue (dataset.Changelog); nil means no versions to give.
	// Set it before serving.
	Changelog *changelog.File

	// Renderer draws and caches media files; nil means a renderer with
	// DefaultMediaCache's bounds, made on first use.
	Renderer     *media.Renderer
	rendererOnce sync.Once

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced by every Swap
	stopping chan struct{} // closed by Stop
}

// served is a catalogue and the media of its records, swapped together so
// that a call sees the digests of the records it lists.
type served struct {
	*exercise.Catalogue
	media *media.Library
}

// Catalogue returns the catalogue currently served, nil before the first
// Swap.
func (s *Service) Catalogue() *exercise.Catalogue {
	if c := s.current.Load(); c != nil {
		return c.Catalogue
	}
	return nil
}

// Swap makes c the catalogue served from now on, and tells watchers.
func (s *Service) Swap(c *exercise.Catalogue) {
	s.current.Store(&served{Catalogue: c, media: media.NewLibrary(c.All(), c.Vocabularies().ExerciseTypes)})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	close(s.changed)
	s.changed = make(chan struct{})
}

// Stop ends the watch streams, so that they do not hold a graceful
// shutdown open; their clients reconnect elsewhere.
func (s *Service) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	select {
	case <-s.stopping:
	default:
		close(s.stopping)
	}
}

func (s *Service) init() {
	if s.changed == nil {
		s.changed, s.stopping = make(chan struct{}), make(chan struct{})
	}
}

// watch returns the current catalogue and channels that close when it is
// replaced and when the service stops.
func (s *Service) watch() (*exercise.Catalogue, <-chan struct{}, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	return s.Catalogue(), s.changed, s.stopping
}

// WatchCatalogue implements catalogv1.CatalogServiceServer.
func (s *Service) WatchCatalogue(_ *catalogv1.WatchCatalogueRequest, stream grpc.ServerStreamingServer[catalogv1.WatchCatalogueResponse]) error {
	var sent string
	for {
		c, changed, stopping := s.watch()
		if c != nil && c.Version() != sent {
			if err := stream.Send(&catalogv1.WatchCatalogueResponse{CatalogueVersion: c.Version(), Records: int32(c.Len())}); err != nil {
				return err
			}
			sent = c.Version()
		}
		select {
		case <-changed:
		case <-stopping:
			return status.Error(codes.Unavailable, "the catalog is shutting down")
		case <-stream.Context().Done():
			return nil
		}
	}
}

// errLoading answers calls that arrive before the catalogue is loaded.
var errLoading = status.Error(codes.Unavailable, "the catalogue is still loading")

// load returns the current catalogue, or errLoading.
func (s *Service) load() (*served, error) {
	c := s.current.Load()
	if c == nil {
		return nil, errLoading
	}
	return c, nil
}

// ListExercises implements catalogv1.CatalogServiceServer.
func (s *Service) ListExercises(_ context.Context, req *catalogv1.ListExercisesRequest) (*catalogv1.ListExercisesResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	f := req.GetFilter()
	filter := exercise.Filter{
		BodyParts:        f.GetBodyParts(),
		Equipments:       f.GetEquipments(),
		Difficulties:     f.GetDifficulties(),
		ExerciseTypes:    f.GetExerciseTypes(),
		TargetMuscles:    f.GetTargetMuscles(),
		SecondaryMuscles: f.GetSecondaryMuscles(),
		MovementPatterns: f.GetMovementPatterns(),
		Mechanics:        f.GetMechanics(),
		Forces:           f.GetForce(),
		Lateralities:     f.GetLaterality(),
		Measures:         f.GetMeasure(),
		Name:             f.GetName(),
		Query:            f.GetQuery(),
	}
	pr := exercise.PageRequest{
		Limit:     int(req.GetLimit()),
		After:     req.GetAfter(),
		Before:    req.GetBefore(),
		RecordCap: int(req.GetRecordCap()),
	}
	var (
		page      exercise.Page
		missing   []string
		conflicts []exercise.FieldError // of ids with related
	)
	rel := req.GetRelated()
	switch {
	case len(req.GetIds()) > 0:
		page, missing, err = c.Fetch(req.GetIds(), filter, pr)
		if rel != nil {
			conflicts = append(conflicts, exercise.FieldError{Field: exercise.FieldRelation, Value: rel.GetRelation().String(),
				Description: "cannot be combined with ids, which names the records itself, all on one page"})
		}
	case rel != nil:
		page, err = c.Related(relations[rel.GetRelation()], rel.GetId(), filter, pr)
		relabelRelated(err, rel.GetRelation())
	default:
		page, err = c.List(filter, pr)
	}
	include, unknown := contentMask(req.GetInclude())
	unknown = append(unknown, conflicts...)
	facets, badFacets := facetList(req.GetFacets(), rel != nil || len(req.GetIds()) > 0)
	unknown = append(unknown, badFacets...)
	var counts []exercise.FacetCounts
	if err == nil && len(facets) > 0 && len(unknown) == 0 {
		counts, err = c.Facets(filter, facets, pr.RecordCap)
	}
	if err != nil || unknown != nil {
		if rel != nil {
			err = notFound(err, "related.id", rel.GetId())
		}
		return nil, withViolations(err, unknown)
	}
	out := &catalogv1.ListExercisesResponse{
		Total:            int32(page.Total),
		HasNextPage:      page.HasNextPage,
		HasPreviousPage:  page.HasPreviousPage,
		NextCursor:       page.NextCursor,
		PreviousCursor:   page.PreviousCursor,
		CatalogueVersion: c.Version(),
		MissingIds:       missing,
		IgnoredWords:     page.IgnoredWords,
		Facets:           facetsProto(counts),
	}
	if page.MovementPatterns != nil {
		out.Alternatives = &catalogv1.AlternativesInfo{Fallback: page.Fallback, MovementPatterns: page.MovementPatterns}
	}
	if req.GetJson() {
		out.ExercisesJson = make([]*catalogv1.ExerciseJSON, len(page.Exercises))
		msgs := make([]catalogv1.ExerciseJSON, len(page.Exercises)) // one allocation for the page
		for i := range page.Exercises {
			out.ExercisesJson[i] = c.toJSON(&msgs[i], c.PageJSON(&page, i), page.Exercises[i], include)
		}
		return out, nil
	}
	out.Exercises = make([]*catalogv1.Exercise, len(page.Exercises))
	for i := range page.Exercises {
		out.Exercises[i] = c.toProto(page.Exercises[i], include)
	}
	return out, nil
}

// GetExercise implements catalogv1.CatalogServiceServer.
func (s *Service) GetExercise(_ context.Context, req *catalogv1.GetExerciseRequest) (*catalogv1.GetExerciseResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	x, err := c.Exercise(req.GetId())
	if err != nil {
		return nil, toStatus(notFound(err, "id", req.GetId()))
	}
	if req.GetJson() {
		return &catalogv1.GetExerciseResponse{ExerciseJson: c.toJSON(&catalogv1.ExerciseJSON{}, c.JSON(x.ID), &x, allContent), CatalogueVersion: c.Version()}, nil
	}
	return &catalogv1.GetExerciseResponse{Exercise: c.toProto(&x, allContent), CatalogueVersion: c.Version()}, nil
}

// ListBodyParts implements catalogv1.CatalogServiceServer.
func (s *Service) ListBodyParts(context.Context, *catalogv1.ListBodyPartsRequest) (*catalogv1.ListBodyPartsResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	return &catalogv1.ListBodyPartsResponse{BodyParts: exercise.Names(c.Vocabularies().BodyParts), CatalogueVersion: c.Version()}, nil
}

// ListEquipments implements catalogv1.CatalogServiceServer.
func (s *Service) ListEquipments(context.Context, *catalogv1.ListEquipmentsRequest) (*catalogv1.ListEquipmentsResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	return &catalogv1.ListEquipmentsResponse{Equipments: exercise.Names(c.Vocabularies().Equipments), CatalogueVersion: c.Version()}, nil
}

// ListDifficulties implements catalogv1.CatalogServiceServer.
func (s *Service) ListDifficulties(context.Context, *catalogv1.ListDifficultiesRequest) (*catalogv1.ListDifficultiesResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	return &catalogv1.ListDifficultiesResponse{Difficulties: exercise.Names(c.Vocabularies().Difficulties), CatalogueVersion: c.Version()}, nil
}

// ListMovementPatterns implements catalogv1.CatalogServiceServer.
func (s *Service) ListMovementPatterns(context.Context, *catalogv1.ListMovementPatternsRequest) (*catalogv1.ListMovementPatternsResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	return &catalogv1.ListMovementPatternsResponse{MovementPatterns: exercise.Names(c.Vocabularies().MovementPatterns), CatalogueVersion: c.Version()}, nil
}

// ListMuscles implements catalogv1.CatalogServiceServer.
func (s *Service) ListMuscles(context.Context, *catalogv1.ListMusclesRequest) (*catalogv1.ListMusclesResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	ms := c.Vocabularies().Muscles
	out := &catalogv1.ListMusclesResponse{Muscles: make([]*catalogv1.Muscle, len(ms)), CatalogueVersion: c.Version()}
	for i, m := range ms {
		out.Muscles[i] = &catalogv1.Muscle{Name: m.Name, BodyPart: m.BodyPart}
	}
	return out, nil
}

// ListExerciseTypes implements catalogv1.CatalogServiceServer.
func (s *Service) ListExerciseTypes(context.Context, *catalogv1.ListExerciseTypesRequest) (*catalogv1.ListExerciseTypesResponse, error) {
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	ts := c.Vocabularies().ExerciseTypes
	out := &catalogv1.ListExerciseTypesResponse{ExerciseTypes: make([]*catalogv1.ExerciseType, len(ts)), CatalogueVersion: c.Version()}
	for i, t := range ts {
		out.ExerciseTypes[i] = &catalogv1.ExerciseType{Name: t.Name, MediaKey: t.MediaKey, MediaDigest: c.media.Digest(t.MediaKey)}
	}
	return out, nil
}

// relations maps the proto's relations to the catalogue's; an unspecified
// one maps to the zero Relation, which the catalogue refuses.
var relations = map[catalogv1.Relation]exercise.Relation{
	catalogv1.Relation_RELATION_VARIATIONS:   exercise.Variations,
	catalogv1.Relation_RELATION_ALTERNATIVES: exercise.Alternatives,
}

// content is a set of content fields, one bit per catalogv1.ContentField.
type content uint8

const allContent content = 1<<catalogv1.ContentField_CONTENT_FIELD_DESCRIPTION |
	1<<catalogv1.ContentField_CONTENT_FIELD_INSTRUCTIONS |
	1<<catalogv1.ContentField_CONTENT_FIELD_TIPS |
	1<<catalogv1.ContentField_CONTENT_FIELD_ALIASES |
	1<<catalogv1.ContentField_CONTENT_FIELD_TRAINING

// contentMask returns the set of fields, and a violation for each value
// that is not a content field, up to maxViolations of them (a request may
// repeat one a million times). CONTENT_FIELD_UNSPECIFIED is ignored.
func contentMask(fields []catalogv1.ContentField) (content, []exercise.FieldError) {
	var (
		m   content
		bad []exercise.FieldError
	)
	for _, f := range fields {
		switch {
		case f == catalogv1.ContentField_CONTENT_FIELD_UNSPECIFIED:
		case f > 0 && f < 8 && allContent&(1<<f) != 0:
			m |= 1 << f
		case len(bad) < maxViolations:
			bad = append(bad, exercise.FieldError{Field: fieldInclude, Value: f.String(),
				Description: "is not a content field (want CONTENT_FIELD_DESCRIPTION, CONTENT_FIELD_INSTRUCTIONS, CONTENT_FIELD_TIPS, CONTENT_FIELD_ALIASES or CONTENT_FIELD_TRAINING)"})
		}
	}
	return m, bad
}

// facetList returns the facets asked for, each once, and a violation for
// each number that names no facet, or for facets on a list that is not
// the general listing (related or ids).
func facetList(in []catalogv1.Facet, notListing bool) ([]exercise.Facet, []exercise.FieldError) {
	var (
		out []exercise.Facet
		bad []exercise.FieldError
	)
	for _, f := range in {
		switch {
		case f == catalogv1.Facet_FACET_UNSPECIFIED:
		case f >= catalogv1.Facet_FACET_BODY_PARTS && f <= catalogv1.Facet_FACET_MOVEMENT_PATTERNS:
			// The enum's numbers are exercise.Facet's.
			if ef := exercise.Facet(f); !slices.Contains(out, ef) {
				out = append(out, ef)
			}
		case len(bad) < maxViolations:
			bad = append(bad, exercise.FieldError{Field: fieldFacets, Value: f.String(),
				Description: "is not a facet (want FACET_BODY_PARTS, FACET_EQUIPMENTS, FACET_DIFFICULTY, FACET_EXERCISE_TYPES, FACET_TARGET_MUSCLES or FACET_MOVEMENT_PATTERNS)"})
		}
	}
	if notListing && len(out) > 0 {
		bad = append(bad, exercise.FieldError{Field: fieldFacets, Value: out[0].String(),
			Description: "cannot be combined with related or ids: facets count the general listing"})
	}
	return out, bad
}

func facetsProto(counts []exercise.FacetCounts) []*catalogv1.FacetCounts {
	if len(counts) == 0 {
		return nil
	}
	out := make([]*catalogv1.FacetCounts, len(counts))
	for i, fc := range counts {
		values := make([]*catalogv1.ValueCount, len(fc.Values))
		for j, v := range fc.Values {
			values[j] = &catalogv1.ValueCount{Value: v.Value, Count: int32(v.Count)}
		}
		out[i] = &catalogv1.FacetCounts{Facet: catalogv1.Facet(fc.Facet), Values: values}
	}
	return out
}

func (m content) has(f catalogv1.ContentField) bool { return m&(1<<f) != 0 }

// toJSON fills out with x's public JSON f, sharing its bytes.
func (c *served) toJSON(out *catalogv1.ExerciseJSON, f *exercisejson.Fragments, x *exercise.Exercise, include content) *catalogv1.ExerciseJSON {
	// content's bits start at CONTENT_FIELD_DESCRIPTION, 1; the Set's at 0.
	out.Head, out.MediaKey, out.Content = f.Head(), x.MediaKey, f.Content(exercisejson.Set(include>>1))
	out.MediaDigest = c.media.Digest(x.MediaKey)
	return out
}

func (c *served) toProto(x *exercise.Exercise, include content) *catalogv1.Exercise {
	out := &catalogv1.Exercise{
		Id:               x.ID,
		Name:             x.Name,
		BodyParts:        x.BodyParts,
		Equipments:       x.Equipments,
		ExerciseTypes:    x.ExerciseTypes,
		Difficulty:       x.Difficulty,
		TargetMuscles:    x.TargetMuscles,
		SecondaryMuscles: x.SecondaryMuscles,
		MediaKey:         x.MediaKey,
		MediaDigest:      c.media.Digest(x.MediaKey),
	}
	if include.has(catalogv1.ContentField_CONTENT_FIELD_DESCRIPTION) {
		out.Description = x.Description
	}
	if include.has(catalogv1.ContentField_CONTENT_FIELD_INSTRUCTIONS) {
		out.Instructions = x.Instructions
	}
	if include.has(catalogv1.ContentField_CONTENT_FIELD_TIPS) {
		out.Tips = x.Tips
	}
	if include.has(catalogv1.ContentField_CONTENT_FIELD_ALIASES) {
		out.Aliases = x.Aliases
	}
	if include.has(catalogv1.ContentField_CONTENT_FIELD_TRAINING) && x.Training != nil {
		out.Training = trainingProto(x.Training)
	}
	return out
}

func trainingProto(t *exercise.Training) *catalogv1.Training {
	p := &t.Prescription
	return &catalogv1.Training{
		MovementPattern: t.MovementPattern,
		Mechanics:       t.Mechanics,
		Force:           t.Force,
		Laterality:      t.Laterality,
		Measure:         t.Measure,
		Prescription: &catalogv1.Prescription{
			Sets: rangeProto(p.Sets), Reps: rangeProto(p.Reps), Seconds: rangeProto(p.Seconds), Meters: rangeProto(p.Meters),
		},
	}
}

// rangeProto converts a [low, high] range; nil when absent.
func rangeProto(r []int) *catalogv1.Range {
	if len(r) != 2 {
		return nil
	}
	return &catalogv1.Range{Low: int32(r[0]), High: int32(r[1])}
}
