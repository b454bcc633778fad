package systemtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// rewordedDescription replaces the description of every field violation.
const rewordedDescription = "is put in other words"

// rewording are server options that give every catalog error other words:
// the status message and each BadRequest description, in unary replies and
// in the errors Exchange carries, codes, fields and reasons kept.
func rewording() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			resp, err := handler(ctx, req)
			return resp, rewordErr(err)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			return rewordErr(handler(srv, rewordingStream{ss}))
		}),
	}
}

// rewordingStream rewords the errors of the Exchange results it sends.
type rewordingStream struct{ grpc.ServerStream }

func (s rewordingStream) SendMsg(m any) error {
	if r, ok := m.(*catalogv1.ExchangeResponse); ok {
		for _, res := range r.Results {
			if e := res.GetError(); e != nil {
				st := reworded(&spb.Status{Code: e.Code, Message: e.Message, Details: e.Details})
				e.Message, e.Details = st.Message, st.Details
			}
		}
	}
	return s.ServerStream.SendMsg(m)
}

func rewordErr(err error) error {
	st, ok := status.FromError(err)
	if err == nil || !ok {
		return err
	}
	return status.FromProto(reworded(st.Proto())).Err()
}

// reworded returns st with other words.
func reworded(st *spb.Status) *spb.Status {
	out := &spb.Status{Code: st.Code, Message: "the catalog says this in other words"}
	for _, d := range st.Details {
		var br errdetails.BadRequest
		if d.MessageIs(&br) {
			if err := d.UnmarshalTo(&br); err != nil {
				panic(err)
			}
			for _, v := range br.FieldViolations {
				v.Description = rewordedDescription
			}
			var err error
			if d, err = anypb.New(&br); err != nil {
				panic(err)
			}
		}
		out.Details = append(out.Details, d)
	}
	return out
}

// TestCatalogWordsDecideNothing runs the error cases of TestAPI against a
// catalog whose every error message and field description is reworded:
// each answers the status and code of its golden file all the same.
func TestCatalogWordsDecideNothing(t *testing.T) {
	reworded := 0 // cases whose message shows the catalog's other words
	for _, tt := range apiCases(t) {
		golden, err := os.ReadFile(filepath.Join("testdata", "golden", tt.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		wantStatus, _, _ := strings.Cut(string(golden), "\n")
		if wantStatus < "status: 400" {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.reword = true
			s := start(t, opts)
			for _, r := range tt.before {
				s.do(t, r)
			}
			resp, body := s.do(t, tt.req)
			gotStatus, _, _ := strings.Cut(describe(t, resp, body), "\n")
			if gotStatus != wantStatus {
				t.Errorf("%s, want %s", gotStatus, wantStatus)
			}
			_, wantBody, _ := strings.Cut(string(golden), "\n\n")
			if want, got := envelopeCode(t, []byte(wantBody)), envelopeCode(t, body); got != want {
				t.Errorf("code %q, want %q", got, want)
			}
			if strings.Contains(string(body), rewordedDescription) {
				reworded++
			}
		})
	}
	if reworded == 0 {
		t.Error("no error shows the reworded descriptions: the catalog's words were not changed")
	}
}

// envelopeCode is the error code of a JSON error envelope; "" for any
// other body.
func envelopeCode(t *testing.T, body []byte) string {
	t.Helper()
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	if len(body) > 0 && json.Unmarshal(body, &env) != nil {
		t.Logf("not JSON: %.80s", body)
	}
	return env.Error.Code
}
