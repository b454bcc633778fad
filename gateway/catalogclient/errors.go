package catalogclient

import (
	"fmt"
	"net/http"
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

// reasonUnknownValue is the catalog's reason for a filter value outside its
// vocabulary.
const reasonUnknownValue = "UNKNOWN_VALUE"

// params maps the catalog's field paths to the public query parameters,
// and says where the allowed values are listed.
var params = map[string]struct{ name, allowed string }{
	"limit":                    {"limit", ""},
	"after":                    {"after", ""},
	"before":                   {"before", ""},
	"id":                       {"exerciseId", ""},
	"related.id":               {"exerciseId", ""},
	"filter.body_parts":        {"bodyParts", "/api/v1/bodyparts"},
	"filter.equipments":        {"equipments", "/api/v1/equipments"},
	"filter.difficulties":      {"difficulty", ""},
	"filter.exercise_types":    {"exerciseTypes", "/api/v1/exercisetypes"},
	"filter.target_muscles":    {"targetMuscles", "/api/v1/muscles"},
	"filter.secondary_muscles": {"secondaryMuscles", "/api/v1/muscles"},
	"filter.movement_patterns": {"movementPatterns", "/api/v1/movementpatterns"},
	"filter.mechanics":         {"mechanics", ""},
	"filter.force":             {"force", ""},
	"filter.laterality":        {"laterality", ""},
	"filter.measure":           {"measure", ""},
	"filter.name":              {"name", ""},
	"filter.query":             {"q", ""},
	"ids":                      {"ids", ""},
	"facets":                   {"facets", ""},
}

// toAPIError is the one switch from gRPC status to the public error.
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

// badRequest names each parameter and value the catalog refused.
func badRequest(st *status.Status) error {
	var parts []string
	for _, d := range st.Details() {
		br, ok := d.(*errdetails.BadRequest)
		if !ok {
			continue
		}
		for _, v := range br.FieldViolations {
			p, known := params[v.Field]
			if !known {
				p.name = v.Field
			}
			msg := p.name + ": " + v.Description
			if p.allowed != "" && v.GetReason() == reasonUnknownValue {
				msg += "; see GET " + p.allowed + " for the allowed values"
			}
			parts = append(parts, msg)
		}
	}
	if len(parts) == 0 {
		return apierror.Internal(fmt.Errorf("catalog refused a request without saying why: %s", st.Message()))
	}
	return apierror.New(http.StatusBadRequest, "%s.", strings.Join(parts, "; "))
}

// beyondCap explains a cursor beyond the plan's record cap.
func beyondCap(st *status.Status) error {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Reason == reasonBeyondRecordCap {
			m := info.Metadata
			return apierror.New(http.StatusForbidden,
				"%s: cursor %q lies beyond the first %s records of this listing, which is all your plan can reach; upgrade the plan to page further.",
				params[m["field"]].name, m["cursor"], m["record_cap"])
		}
	}
	return apierror.Internal(fmt.Errorf("catalog answered OUT_OF_RANGE without a reason: %s", st.Message()))
}
