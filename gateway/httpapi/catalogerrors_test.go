package httpapi

import (
	"net/http"
	"testing"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/catalogclient"
)

// TestPublicError: the catalog's refusals are worded in public parameter
// names, and the pointer to the allowed values follows the reason, never
// the description's words.
func TestPublicError(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		want   string
	}{
		{&catalogclient.ArgumentError{Violations: []catalogclient.Violation{
			{Field: catalogclient.FieldBodyParts, Reason: catalogclient.ReasonUnknownValue, Description: `"chst" is reworded entirely`},
		}}, http.StatusBadRequest, `bodyParts: "chst" is reworded entirely; see GET /api/v1/bodyparts for the allowed values.`},
		{&catalogclient.ArgumentError{Violations: []catalogclient.Violation{
			{Field: catalogclient.FieldBodyParts, Description: `"chst" is not a known body part`},
			{Field: catalogclient.FieldRelatedID, Description: "is malformed"},
			{Field: "record_cap", Description: "is negative"},
		}}, http.StatusBadRequest, `bodyParts: "chst" is not a known body part; exerciseId: is malformed; record_cap: is negative.`},
		{&catalogclient.BeyondCapError{Field: catalogclient.FieldBefore, Cursor: "qzwm42zn", RecordCap: 100}, http.StatusForbidden,
			`before: cursor "qzwm42zn" lies beyond the first 100 records of this listing, which is all your plan can reach; upgrade the plan to page further.`},
	} {
		e := apierror.From(publicError(tc.err))
		if e.Status != tc.status || e.Message != tc.want {
			t.Errorf("%v: %d %q, want %d %q", tc.err, e.Status, e.Message, tc.status, tc.want)
		}
	}
}
