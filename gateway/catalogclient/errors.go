package catalogclient

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/exercisedb/exercisedb/gateway/apierror"
)

// retryAfter is what a client is told to wait when the catalog is down.
const retryAfter = 5 * time.Second

// reasonBeyondRecordCap is the catalog's ErrorInfo reason for a cursor
// beyond the record cap.
const reasonBeyondRecordCap = "CURSOR_BEYOND_RECORD_CAP"

// Field is a field of a catalog request as the catalog's errors name it:
// its path in the request message.
type Field string

// The fields a caller fills, by way of ListRequest and the other methods.
const (
	FieldLimit            Field = "limit"
	FieldAfter            Field = "after"
	FieldBefore           Field = "before"
	FieldID               Field = "id"
	FieldRelatedID        Field = "related.id"
	FieldBodyParts        Field = "filter.body_parts"
	FieldEquipments       Field = "filter.equipments"
	FieldDifficulties     Field = "filter.difficulties"
	FieldExerciseTypes    Field = "filter.exercise_types"
	FieldTargetMuscles    Field = "filter.target_muscles"
	FieldSecondaryMuscles Field = "filter.secondary_muscles"
	FieldMovementPatterns Field = "filter.movement_patterns"
	FieldMechanics        Field = "filter.mechanics"
	FieldForces           Field = "filter.force"
	FieldLateralities     Field = "filter.laterality"
	FieldMeasures         Field = "filter.measure"
	FieldName             Field = "filter.name"
	FieldQuery            Field = "filter.query"
	FieldIDs              Field = "ids"
	FieldFacets           Field = "facets"
	FieldSince            Field = "since"
)

// Reason says in a word why the catalog refused a value, for programs to
// read instead of its description.
type Reason string

// ReasonUnknownValue is the reason of a filter value outside the
// catalogue's vocabulary.
const ReasonUnknownValue Reason = "UNKNOWN_VALUE"

// Violation is one value the catalog refused.
type Violation struct {
	Field Field
	// Reason is empty when the catalog gave none.
	Reason Reason
	// Description is the catalog's own words, for people; nothing is
	// decided on them.
	Description string
}

// ArgumentError is the catalog's refusal of a request's arguments
// (INVALID_ARGUMENT), each bad value a Violation.
type ArgumentError struct {
	Violations []Violation
}

func (e *ArgumentError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = string(v.Field) + ": " + v.Description
	}
	return "catalog: invalid argument: " + strings.Join(parts, "; ")
}

// BeyondCapError is the catalog's refusal of a cursor that lies beyond the
// request's record cap (OUT_OF_RANGE).
type BeyondCapError struct {
	Field     Field // FieldAfter or FieldBefore
	Cursor    string
	RecordCap int
}

func (e *BeyondCapError) Error() string {
	return fmt.Sprintf("catalog: %s %q lies beyond the first %d records", e.Field, e.Cursor, e.RecordCap)
}

// toAPIError is the one switch from gRPC status to the gateway's errors:
// an *ArgumentError or a *BeyondCapError, which name catalog fields and
// are for the caller to word, or an *apierror.Error.
func toAPIError(err error) error {
	st := status.Convert(err)
	switch st.Code() {
	case codes.InvalidArgument:
		return badRequest(st)
	case codes.OutOfRange:
		return beyondCap(st)
	case codes.NotFound:
		return apierror.New(http.StatusNotFound, "The catalog has no such record.")
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.ResourceExhausted, codes.Aborted:
		return apierror.Unavailable(retryAfter, err, "The exercise catalogue is unavailable right now; retry in a few seconds.")
	default:
		return apierror.Internal(err)
	}
}

// badRequest reads the violations of an INVALID_ARGUMENT status.
func badRequest(st *status.Status) error {
	var bad ArgumentError
	for _, d := range st.Details() {
		br, ok := d.(*errdetails.BadRequest)
		if !ok {
			continue
		}
		for _, v := range br.FieldViolations {
			bad.Violations = append(bad.Violations, Violation{Field: Field(v.Field), Reason: Reason(v.GetReason()), Description: v.Description})
		}
	}
	if len(bad.Violations) == 0 {
		return apierror.Internal(fmt.Errorf("catalog refused a request without saying why: %s", st.Message()))
	}
	return &bad
}

// beyondCap reads the cursor and cap of an OUT_OF_RANGE status.
func beyondCap(st *status.Status) error {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Reason == reasonBeyondRecordCap {
			m := info.Metadata
			n, err := strconv.Atoi(m["record_cap"])
			if err != nil {
				return apierror.Internal(fmt.Errorf("catalog answered %s with record_cap %q", reasonBeyondRecordCap, m["record_cap"]))
			}
			return &BeyondCapError{Field: Field(m["field"]), Cursor: m["cursor"], RecordCap: n}
		}
	}
	return apierror.Internal(fmt.Errorf("catalog answered OUT_OF_RANGE without a reason: %s", st.Message()))
}
