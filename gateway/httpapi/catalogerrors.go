package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/catalogclient"
)

// publicParam is the query parameter that fills a catalog field, and the
// path that lists its allowed values ("" when none does).
type publicParam struct{ name, allowed string }

// publicParams names the catalog's fields as the public API does.
var publicParams = map[catalogclient.Field]publicParam{
	catalogclient.FieldLimit:            {"limit", ""},
	catalogclient.FieldAfter:            {"after", ""},
	catalogclient.FieldBefore:           {"before", ""},
	catalogclient.FieldID:               {"exerciseId", ""},
	catalogclient.FieldRelatedID:        {"exerciseId", ""},
	catalogclient.FieldBodyParts:        {"bodyParts", "/api/v1/bodyparts"},
	catalogclient.FieldEquipments:       {"equipments", "/api/v1/equipments"},
	catalogclient.FieldDifficulties:     {"difficulty", ""},
	catalogclient.FieldExerciseTypes:    {"exerciseTypes", "/api/v1/exercisetypes"},
	catalogclient.FieldTargetMuscles:    {"targetMuscles", "/api/v1/muscles"},
	catalogclient.FieldSecondaryMuscles: {"secondaryMuscles", "/api/v1/muscles"},
	catalogclient.FieldMovementPatterns: {"movementPatterns", "/api/v1/movementpatterns"},
	catalogclient.FieldMechanics:        {"mechanics", ""},
	catalogclient.FieldForces:           {"force", ""},
	catalogclient.FieldLateralities:     {"laterality", ""},
	catalogclient.FieldMeasures:         {"measure", ""},
	catalogclient.FieldName:             {"name", ""},
	catalogclient.FieldQuery:            {"q", ""},
	catalogclient.FieldIDs:              {"ids", ""},
	catalogclient.FieldFacets:           {"facets", ""},
	catalogclient.FieldSince:            {"since", ""},
}

// paramOf is the public parameter of f; a field without one is named as
// the catalog names it.
func paramOf(f catalogclient.Field) publicParam {
	if p, ok := publicParams[f]; ok {
		return p
	}
	return publicParam{name: string(f)}
}

// publicError words the catalog's refusals of a request's values in the
// public API's parameter names; it returns any other error as it is.
func publicError(err error) error {
	var (
		bad    *catalogclient.ArgumentError
		capped *catalogclient.BeyondCapError
	)
	switch {
	case errors.As(err, &bad):
		parts := make([]string, len(bad.Violations))
		for i, v := range bad.Violations {
			p := paramOf(v.Field)
			parts[i] = p.name + ": " + v.Description
			if p.allowed != "" && v.Reason == catalogclient.ReasonUnknownValue {
				parts[i] += "; see GET " + p.allowed + " for the allowed values"
			}
		}
		return apierror.New(http.StatusBadRequest, "%s.", strings.Join(parts, "; "))
	case errors.As(err, &capped):
		return apierror.New(http.StatusForbidden,
			"%s: cursor %q lies beyond the first %d records of this listing, which is all your plan can reach; upgrade the plan to page further.",
			paramOf(capped.Field).name, capped.Cursor, capped.RecordCap)
	}
	return err
}
