package catalogclient

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestRefusalsTyped: a refused value is reported by field and reason, in
// the catalog's terms, whatever the words of the status.
func TestRefusalsTyped(t *testing.T) {
	bad, err := status.New(codes.InvalidArgument, "any words").WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{
			{Field: "filter.body_parts", Description: `"chst" is reworded entirely`, Reason: "UNKNOWN_VALUE"},
			{Field: "limit", Description: "is too big"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	capped, err := status.New(codes.OutOfRange, "other words").WithDetails(&errdetails.ErrorInfo{
		Reason: reasonBeyondRecordCap, Metadata: map[string]string{"field": "after", "cursor": "qzwm42zn", "record_cap": "100"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		st   *status.Status
		want error
	}{
		{bad, &ArgumentError{Violations: []Violation{
			{Field: FieldBodyParts, Reason: ReasonUnknownValue, Description: `"chst" is reworded entirely`},
			{Field: FieldLimit, Description: "is too big"},
		}}},
		{capped, &BeyondCapError{Field: FieldAfter, Cursor: "qzwm42zn", RecordCap: 100}},
	} {
		if diff := cmp.Diff(tc.want, toAPIError(tc.st.Err())); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.st.Code(), diff)
		}
	}
}
