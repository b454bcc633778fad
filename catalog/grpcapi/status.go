package grpcapi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	"github.com/exercisedb/exercisedb/catalog/exercise"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// ReasonBeyondRecordCap is the ErrorInfo reason of an OUT_OF_RANGE status
// for a cursor beyond the request's record cap.
const ReasonBeyondRecordCap = "CURSOR_BEYOND_RECORD_CAP"

// ErrorDomain is the ErrorInfo domain of this service's errors.
const ErrorDomain = "catalog.exercisedb"

// fieldPaths maps catalogue request fields to proto field paths.
var fieldPaths = map[string]string{
	exercise.FieldLimit:            "limit",
	exercise.FieldAfter:            "after",
	exercise.FieldBefore:           "before",
	exercise.FieldRecordCap:        "record_cap",
	exercise.FieldBodyParts:        "filter.body_parts",
	exercise.FieldEquipments:       "filter.equipments",
	exercise.FieldDifficulties:     "filter.difficulties",
	exercise.FieldExerciseTypes:    "filter.exercise_types",
	exercise.FieldTargetMuscles:    "filter.target_muscles",
	exercise.FieldSecondaryMuscles: "filter.secondary_muscles",
	exercise.FieldMovementPatterns: "filter.movement_patterns",
	exercise.FieldMechanics:        "filter.mechanics",
	exercise.FieldForce:            "filter.force",
	exercise.FieldLaterality:       "filter.laterality",
	exercise.FieldMeasure:          "filter.measure",
	exercise.FieldName:             "filter.name",
	exercise.FieldQuery:            "filter.query",
	exercise.FieldID:               "id",
	exercise.FieldRelation:         "related.relation",
	exercise.FieldRelatedID:        "related.id",
	fieldInclude:                   "include",
	exercise.FieldIDs:              "ids",
	exercise.FieldFilter:           "filter",
	fieldFacets:                    "facets",
}

// fieldInclude names ListExercisesRequest.include in a FieldError; the
// catalogue knows nothing of content masks.
const fieldInclude = "include"

// fieldFacets names ListExercisesRequest.facets in a FieldError.
const fieldFacets = "facets"

// relabelRelated adapts the violations in err, an error of a related
// listing: the id is the field related.id, and the relation is reported
// as sent, since an unknown number has no catalogue Relation to name it.
func relabelRelated(err error, rel catalogv1.Relation) {
	var bad *exercise.ArgumentError
	if errors.As(err, &bad) {
		for i, v := range bad.Violations {
			switch v.Field {
			case exercise.FieldID:
				bad.Violations[i].Field = exercise.FieldRelatedID
			case exercise.FieldRelation:
				// RELATION_UNSPECIFIED, or the number of an unknown value.
				bad.Violations[i].Value = rel.String()
				bad.Violations[i].Description = "is not a relation (want RELATION_VARIATIONS or RELATION_ALTERNATIVES)"
			}
		}
	}
}

// notFound returns err, an error of a lookup of id in the field path,
// with the field and id that toStatus names when it is ErrNotFound.
func notFound(err error, path, id string) error {
	if errors.Is(err, exercise.ErrNotFound) {
		return &unknownID{path: path, id: id}
	}
	return err
}

// unknownID is an ErrNotFound that knows the request field and the id.
type unknownID struct{ path, id string }

func (e *unknownID) Error() string {
	return e.path + " " + strconv.Quote(e.id) + ": no exercise has this id"
}
func (e *unknownID) Unwrap() error { return exercise.ErrNotFound }

// withViolations is toStatus for err, a catalogue error or nil, with more
// violations found by the adapter: they are reported with err's own, and
// a request with any is INVALID_ARGUMENT whatever else err says.
func withViolations(err error, more []exercise.FieldError) error {
	if len(more) == 0 {
		return toStatus(err)
	}
	var bad *exercise.ArgumentError
	if errors.As(err, &bad) {
		return invalidArgument(append(bad.Violations, more...))
	}
	return invalidArgument(more)
}

// toStatus is the one place where catalogue errors become gRPC statuses.
// An error it does not know becomes INTERNAL with a fixed message; the
// logging interceptor records the real one.
func toStatus(err error) error {
	var (
		bad     *exercise.ArgumentError
		capErr  *exercise.CapError
		unknown *unknownID
	)
	switch {
	case errors.As(err, &bad):
		return invalidArgument(bad.Violations)
	case errors.As(err, &capErr):
		return withDetails(codes.OutOfRange, capErr.Error(), &errdetails.ErrorInfo{
			Reason: ReasonBeyondRecordCap,
			Domain: ErrorDomain,
			Metadata: map[string]string{
				"field":      fieldPaths[capErr.Field],
				"cursor":     capErr.Value,
				"record_cap": strconv.Itoa(capErr.RecordCap),
			},
		})
	case errors.As(err, &unknown):
		return status.Errorf(codes.NotFound, "%s %q: no exercise has this id", unknown.path, shorten(unknown.id))
	case errors.Is(err, exercise.ErrNotFound):
		return status.Error(codes.NotFound, "no exercise has this id")
	default:
		return &internalError{err: err}
	}
}

// maxViolations bounds the field violations an INVALID_ARGUMENT status
// reports, in its message and in its BadRequest: a request with thousands
// of bad values would otherwise cost a reply as large as the request and
// the time to build it. The message says how many more there were.
const maxViolations = 20

// invalidArgument reports the first maxViolations of vs.
func invalidArgument(vs []exercise.FieldError) error {
	shown := vs[:min(len(vs), maxViolations)]
	br := &errdetails.BadRequest{FieldViolations: make([]*errdetails.BadRequest_FieldViolation, len(shown))}
	var msg strings.Builder
	msg.WriteString("invalid argument:")
	for i, v := range shown {
		path := fieldPaths[v.Field]
		desc := fmt.Sprintf("%q %s", shorten(v.Value), v.Description)
		br.FieldViolations[i] = &errdetails.BadRequest_FieldViolation{Field: path, Description: desc, Reason: v.Reason}
		if i > 0 {
			msg.WriteByte(';')
		}
		msg.WriteByte(' ')
		msg.WriteString(path)
		msg.WriteString(": ")
		msg.WriteString(desc)
	}
	if more := len(vs) - len(shown); more > 0 {
		fmt.Fprintf(&msg, "; and %d more", more)
	}
	return withDetails(codes.InvalidArgument, msg.String(), br)
}

func withDetails(code codes.Code, msg string, details ...protoadapt.MessageV1) error {
	st := status.New(code, msg)
	if withD, err := st.WithDetails(details...); err == nil {
		st = withD
	}
	return st.Err()
}

// internalError hides an unexpected error from the caller while keeping it
// for the log.
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

// GRPCStatus makes the caller see a fixed message.
func (e *internalError) GRPCStatus() *status.Status {
	return status.New(codes.Internal, "internal error")
}

// shorten keeps an echoed value readable: a 3,000-character name is not
// worth repeating in full.
func shorten(v string) string {
	const max = 64
	if len(v) <= max {
		return v
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "..."
}
