package grpcapi

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

func list(r *catalogv1.ListExercisesRequest) *catalogv1.Call {
	return &catalogv1.Call{Method: &catalogv1.Call_ListExercises{ListExercises: r}}
}

func get(id string) *catalogv1.Call {
	return &catalogv1.Call{Method: &catalogv1.Call_GetExercise{GetExercise: &catalogv1.GetExerciseRequest{Id: id}}}
}

// unary makes call as a unary RPC and returns its outcome as Exchange
// would carry it.
func unary(t *testing.T, h *harness, call *catalogv1.Call) *catalogv1.CallResult {
	t.Helper()
	ctx := context.Background()
	var (
		out = &catalogv1.CallResult{}
		err error
	)
	switch m := call.Method.(type) {
	case *catalogv1.Call_ListExercises:
		var r *catalogv1.ListExercisesResponse
		if r, err = h.client.ListExercises(ctx, m.ListExercises); err == nil {
			out.Outcome = &catalogv1.CallResult_ListExercises{ListExercises: r}
		}
	case *catalogv1.Call_GetExercise:
		var r *catalogv1.GetExerciseResponse
		if r, err = h.client.GetExercise(ctx, m.GetExercise); err == nil {
			out.Outcome = &catalogv1.CallResult_GetExercise{GetExercise: r}
		}
	default:
		t.Fatalf("no unary method for %v", call)
	}
	if err != nil {
		p := status.Convert(err).Proto()
		out.Outcome = &catalogv1.CallResult_Error{Error: &catalogv1.CallError{Code: p.Code, Message: p.Message, Details: p.Details}}
	}
	return out
}

func TestExchangeAnswersEachCallAsTheUnaryMethod(t *testing.T) {
	h := start(t, true)
	calls := []*catalogv1.Call{
		list(&catalogv1.ListExercisesRequest{Limit: 1}),
		list(&catalogv1.ListExercisesRequest{After: "bp", Filter: &catalogv1.ExerciseFilter{BodyParts: []string{"back"}}}),
		list(&catalogv1.ListExercisesRequest{Limit: 500, Filter: &catalogv1.ExerciseFilter{BodyParts: []string{"chst"}}}),
		list(&catalogv1.ListExercisesRequest{After: "bp", Before: "pu"}),
		list(&catalogv1.ListExercisesRequest{RecordCap: 1, After: "pu"}),
		get("pu"),
		get("nope"),
		get(""),
	}
	stream, err := h.client.Exchange(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Two batches before reading: answers come back in order.
	first, second := calls[:5], calls[5:]
	for _, batch := range [][]*catalogv1.Call{first, second} {
		if err := stream.Send(&catalogv1.ExchangeRequest{Calls: batch}); err != nil {
			t.Fatal(err)
		}
	}
	for _, batch := range [][]*catalogv1.Call{first, second} {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) != len(batch) {
			t.Fatalf("%d results for %d calls", len(resp.Results), len(batch))
		}
		for i, call := range batch {
			if diff := cmp.Diff(unary(t, h, call), resp.Results[i], protocmp.Transform()); diff != "" {
				t.Errorf("call %v: Exchange differs from the unary method (-unary +exchange):\n%s", call, diff)
			}
		}
	}
}

func TestExchangeRefusesACallWithoutMethod(t *testing.T) {
	h := start(t, true)
	stream, err := h.client.Exchange(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&catalogv1.ExchangeRequest{Calls: []*catalogv1.Call{{RequestId: "req_x"}, get("pu")}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if e := resp.Results[0].GetError(); e == nil || codes.Code(e.Code) != codes.InvalidArgument || !strings.Contains(e.Message, "list_exercises") {
		t.Errorf("call without method: %v, want InvalidArgument naming the methods", resp.Results[0])
	}
	if resp.Results[1].GetGetExercise() == nil {
		t.Errorf("the next call of the batch: %v, want its exercise", resp.Results[1])
	}
}

func TestExchangeBoundsTheCallsOfABatch(t *testing.T) {
	h := start(t, true)
	stream, err := h.client.Exchange(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	full := slices.Repeat([]*catalogv1.Call{get("pu")}, MaxExchangeCalls)
	if err := stream.Send(&catalogv1.ExchangeRequest{Calls: full}); err != nil {
		t.Fatal(err)
	}
	if resp, err := stream.Recv(); err != nil || len(resp.Results) != MaxExchangeCalls {
		t.Fatalf("a batch of %d calls: %d results, %v", MaxExchangeCalls, len(resp.GetResults()), err)
	}
	if err := stream.Send(&catalogv1.ExchangeRequest{Calls: append(full, get("pu"))}); err != nil {
		t.Fatal(err)
	}
	_, err = stream.Recv()
	st := status.Convert(err)
	want := []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{
		Field: "calls", Description: "a batch of 257 calls is too large; send at most 256",
	}}}}
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("a batch of %d calls: %v, want InvalidArgument", MaxExchangeCalls+1, err)
	}
	if diff := cmp.Diff(want, st.Details(), protocmp.Transform()); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}

func TestExchangeLogsAndCountsEachCall(t *testing.T) {
	h := start(t, true)
	stream, err := h.client.Exchange(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, b := get("pu"), get("nope")
	a.RequestId, b.RequestId = "req_a", "req_"+strings.Repeat("b", 200)
	if err := stream.Send(&catalogv1.ExchangeRequest{Calls: []*catalogv1.Call{a, b}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	log := h.log.String()
	for _, want := range []string{
		`"method":"/exercisedb.catalog.v1.CatalogService/GetExercise","code":"OK"`,
		`"request_id":"req_a"`,
		`"code":"NotFound"`,
		`"request_id":"req_` + strings.Repeat("b", 124) + `"`, // bounded to 128
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, strings.Repeat("b", 125)) {
		t.Error("a long request id is logged whole")
	}
	mfs, err := h.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[string]float64{"OK": 1, "NotFound": 1} {
		got := 0.0
		for _, mf := range mfs {
			if mf.GetName() != "exercisedb_catalog_exchange_calls_total" {
				continue
			}
			for _, m := range mf.Metric {
				labels := map[string]string{}
				for _, l := range m.Label {
					labels[l.GetName()] = l.GetValue()
				}
				if labels["method"] == "GetExercise" && labels["code"] == code {
					got = m.Counter.GetValue()
				}
			}
		}
		if got != want {
			t.Errorf("GetExercise calls with code %s = %v, want %v", code, got, want)
		}
	}
}

func TestExchangeEndsWhenTheServiceStops(t *testing.T) {
	h := start(t, true)
	stream, err := h.client.Exchange(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&catalogv1.ExchangeRequest{Calls: []*catalogv1.Call{get("pu")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	h.svc.Stop() // the stream is idle: Stop must still end it
	if _, err := stream.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("after Stop: %v, want Unavailable", err)
	}
}

// CallError must stay wire-compatible with google.rpc.Status, so that a
// client can read it as one.
func TestCallErrorIsARPCStatus(t *testing.T) {
	st, err := status.New(codes.InvalidArgument, "bad").WithDetails(&spb.Status{Message: "detail"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := proto.Marshal(callError(st.Err()))
	if err != nil {
		t.Fatal(err)
	}
	var back spb.Status
	if err := proto.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st.Proto(), &back, protocmp.Transform()); diff != "" {
		t.Errorf("CallError read as google.rpc.Status (-want +got):\n%s", diff)
	}
}
