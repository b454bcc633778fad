package exercise

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of the catalogue; match them with errors.Is.
var (
	// ErrNotFound: no exercise has the requested id.
	ErrNotFound = errors.New("exercise not found")
	// ErrInvalidArgument: the request is malformed; the error is an
	// *ArgumentError that lists each offending field.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrBeyondRecordCap: a cursor sorts after the last record the request's
	// record cap lets it reach; the error is a *CapError.
	ErrBeyondRecordCap = errors.New("cursor beyond record cap")
)

// Request fields, as named in FieldError.
const (
	FieldLimit            = "limit"
	FieldAfter            = "after"
	FieldBefore           = "before"
	FieldRecordCap        = "recordCap"
	FieldBodyParts        = "bodyParts"
	FieldEquipments       = "equipments"
	FieldDifficulties     = "difficulties"
	FieldExerciseTypes    = "exerciseTypes"
	FieldTargetMuscles    = "targetMuscles"
	FieldSecondaryMuscles = "secondaryMuscles"
	FieldMovementPatterns = "movementPatterns"
	FieldMechanics        = "mechanics"
	FieldForce            = "force"
	FieldLaterality       = "laterality"
	FieldMeasure          = "measure"
	FieldName             = "name"
	FieldQuery            = "query"
	FieldID               = "id"
	FieldRelation         = "relation"
	// FieldRelatedID is the id of the exercise a related listing is of,
	// for adapters that name it apart from an exercise lookup's id.
	FieldRelatedID = "relatedId"
	// FieldIDs is the list of ids of a Fetch.
	FieldIDs = "ids"
	// FieldFilter is the filter as a whole, when a part of it that has no
	// name of its own here is refused.
	FieldFilter = "filter"
)

// A FieldError says what is wrong with one request field.
type FieldError struct {
	Field string // one of the Field constants
	Value string // the offending value as sent
	// Description explains the problem in a sentence fragment that does
	// not repeat the field or the value.
	Description string
	// Reason, when set, says in a word what the problem is, for programs
	// to read instead of the description: ReasonUnknownValue.
	Reason string
}

// ReasonUnknownValue is the Reason of a filter value that is not in its
// vocabulary.
const ReasonUnknownValue = "UNKNOWN_VALUE"

// ArgumentError lists every invalid field of a request.
type ArgumentError struct {
	Violations []FieldError
}

func (e *ArgumentError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = fmt.Sprintf("%s %q: %s", v.Field, v.Value, v.Description)
	}
	return "invalid argument: " + strings.Join(parts, "; ")
}

// Is makes errors.Is(err, ErrInvalidArgument) hold.
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArgument }

func (e *ArgumentError) add(field, value, format string, args ...any) {
	e.Violations = append(e.Violations, FieldError{Field: field, Value: value, Description: fmt.Sprintf(format, args...)})
}

// orNil returns e if it holds a violation, else nil.
func (e *ArgumentError) orNil() error {
	if len(e.Violations) == 0 {
		return nil
	}
	return e
}

// CapError reports a cursor that lies beyond the reachable records.
type CapError struct {
	Field     string // FieldAfter or FieldBefore
	Value     string // the cursor
	RecordCap int
}

func (e *CapError) Error() string {
	return fmt.Sprintf("%s %q lies beyond the first %d records this request may reach", e.Field, e.Value, e.RecordCap)
}

// Is makes errors.Is(err, ErrBeyondRecordCap) hold.
func (e *CapError) Is(target error) bool { return target == ErrBeyondRecordCap }
