package catalogclient

import (
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestUnknownValueByReason: the pointer to the list of allowed values
// follows the catalog's reason, never the wording of its description.
func TestUnknownValueByReason(t *testing.T) {
	for _, tc := range []struct {
		reason, description string
		hint                bool
	}{
		{reasonUnknownValue, `"chst" is not a known body part`, true},
		{reasonUnknownValue, `"chst" is reworded entirely`, true},
		{"", `"chst" is not a known body part`, false},
	} {
		st, err := status.New(codes.InvalidArgument, "invalid argument").WithDetails(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "filter.body_parts", Description: tc.description, Reason: tc.reason}},
		})
		if err != nil {
			t.Fatal(err)
		}
		msg := toAPIError(st.Err()).Error()
		if got := strings.Contains(msg, "see GET /api/v1/bodyparts"); got != tc.hint {
			t.Errorf("reason %q, %q: %q, want the hint %t", tc.reason, tc.description, msg, tc.hint)
		}
		if !strings.Contains(msg, "bodyParts: ") {
			t.Errorf("%q does not name the parameter", msg)
		}
	}
}
