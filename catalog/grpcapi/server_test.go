package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/exercisedb/exercisedb/catalog/exercise"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/internal/testlog"
	"github.com/exercisedb/exercisedb/pkg/logging"
)

type harness struct {
	svc    *Service
	health *health.Server
	conn   *grpc.ClientConn
	client catalogv1.CatalogServiceClient
	log    *testlog.Buffer
	cat    *exercise.Catalogue
	reg    *prometheus.Registry
}

// start serves the catalog over bufconn; loaded says whether the
// catalogue is in place and health SERVING.
func start(t *testing.T, loaded bool) *harness {
	t.Helper()
	return startWith(t, loaded, "testdata/small.json")
}

// startWith is start with another catalogue file.
func startWith(t *testing.T, loaded bool, file string) *harness {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := exercise.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{svc: &Service{}, log: &testlog.Buffer{}, cat: cat, reg: prometheus.NewRegistry()}
	log := slog.New(slog.NewJSONHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, hs := NewServer(h.svc, logging.NewLines(log, nil, ""), h.reg)
	reflection.Register(srv)
	h.health = hs
	if loaded {
		h.svc.Swap(cat)
		SetServing(hs, true)
	}
	ln := bufconn.Listen(1 << 20)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	h.conn, err = grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.conn.Close() })
	h.client = catalogv1.NewCatalogServiceClient(h.conn)
	return h
}

func TestListExercises(t *testing.T) {
	h := start(t, true)
	resp, err := h.client.ListExercises(context.Background(), &catalogv1.ListExercisesRequest{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := &catalogv1.ListExercisesResponse{
		Exercises: []*catalogv1.Exercise{{
			Id: "bp", Name: "barbell bench press", BodyParts: []string{"chest"}, Equipments: []string{"barbell"},
			ExerciseTypes: []string{"strength"}, Difficulty: "beginner", TargetMuscles: []string{"pectoralis major"},
			SecondaryMuscles: []string{"latissimus dorsi"},
		}},
		Total: 2, HasNextPage: true, NextCursor: "bp", CatalogueVersion: h.cat.Version(),
	}
	if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	resp, err = h.client.ListExercises(context.Background(), &catalogv1.ListExercisesRequest{
		Filter: &catalogv1.ExerciseFilter{BodyParts: []string{" BACK"}}, After: "bp",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Exercises) != 1 || resp.Exercises[0].MediaKey != "exercises/pu" || resp.HasNextPage || resp.HasPreviousPage || resp.Total != 1 {
		t.Errorf("filtered page after bp = %v", resp)
	}
}

// TestListExercisesByIDs checks ids on both encodings: the records in the
// order given, each once, the unknown ids in missing_ids, the cap applied.
func TestListExercisesByIDs(t *testing.T) {
	h := start(t, true)
	for _, json := range []bool{false, true} {
		resp, err := h.client.ListExercises(context.Background(), &catalogv1.ListExercisesRequest{
			Ids: []string{"pu", "nope", "bp", "pu", "gone"}, Json: json,
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range resp.Exercises {
			got = append(got, x.Id)
		}
		for _, x := range resp.ExercisesJson {
			got = append(got, x.MediaKey) // the fixture's media keys name the ids
		}
		want := []string{"pu", "bp"}
		if json {
			want = []string{"exercises/pu", ""}
		}
		if diff := cmp.Diff(want, got); diff != "" || resp.Total != 2 || resp.HasNextPage || resp.NextCursor != "" ||
			!slices.Equal(resp.MissingIds, []string{"nope", "gone"}) {
			t.Errorf("json %v: %v (-want +got):\n%s", json, resp, diff)
		}
	}
	resp, err := h.client.ListExercises(context.Background(), &catalogv1.ListExercisesRequest{Ids: []string{"pu", "nope", "bp"}, RecordCap: 1})
	if err != nil || len(resp.Exercises) != 1 || resp.Exercises[0].Id != "pu" || resp.Total != 1 || !slices.Equal(resp.MissingIds, []string{"nope"}) {
		t.Errorf("capped at 1: %v, %v", resp, err)
	}
}

func TestErrors(t *testing.T) {
	h := start(t, true)
	ctx := context.Background()
	tests := []struct {
		name    string
		call    func() error
		code    codes.Code
		details []any
	}{
		{
			name: "unknown filter values and a bad limit",
			call: func() error {
				_, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{
					Limit: 500, Filter: &catalogv1.ExerciseFilter{BodyParts: []string{"chst"}, Difficulties: []string{"expert"}},
				})
				return err
			},
			code: codes.InvalidArgument,
			details: []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
				{Field: "limit", Description: `"500" must be between 1 and 100`},
				{Field: "filter.body_parts", Description: `"chst" is not a known body part`, Reason: exercise.ReasonUnknownValue},
				{Field: "filter.difficulties", Description: `"expert" is not a known difficulty (one of: beginner, advanced)`, Reason: exercise.ReasonUnknownValue},
			}}},
		},
		{
			name: "both cursors",
			call: func() error {
				_, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{After: "bp", Before: "pu"})
				return err
			},
			code: codes.InvalidArgument,
			details: []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
				{Field: "before", Description: `"pu" cannot be combined with after: send one cursor`},
			}}},
		},
		{
			name: "cursor not in a ranked list", // in gRPC terms, not the gateway's exerciseId
			call: func() error {
				_, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Filter: &catalogv1.ExerciseFilter{Query: "bench"}, After: "pu"})
				return err
			},
			code: codes.InvalidArgument,
			details: []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
				{Field: "after", Description: `"pu" is not a record of this list (a cursor must be the id of a record on one of its pages)`},
			}}},
		},
		{
			name: "cursor beyond the record cap",
			call: func() error {
				_, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{RecordCap: 1, After: "pu"})
				return err
			},
			code: codes.OutOfRange,
			details: []any{&errdetails.ErrorInfo{Reason: ReasonBeyondRecordCap, Domain: ErrorDomain,
				Metadata: map[string]string{"field": "after", "cursor": "pu", "record_cap": "1"}}},
		},
		{
			name: "ids with a filter, a cursor and a relation",
			call: func() error {
				_, err := h.client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Ids: []string{"bp"},
					Filter: &catalogv1.ExerciseFilter{Name: "press"}, Before: "pu", Related: &catalogv1.Related{Id: "bp", Relation: catalogv1.Relation_RELATION_VARIATIONS}})
				return err
			},
			code: codes.InvalidArgument,
			details: []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
				{Field: "filter.name", Description: `"press" cannot be combined with ids, which names the records itself, all on one page`},
				{Field: "before", Description: `"pu" cannot be combined with ids, which names the records itself, all on one page`},
				{Field: "related.relation", Description: `"RELATION_VARIATIONS" cannot be combined with ids, which names the records itself, all on one page`},
			}}},
		},
		{
			name: "unknown exercise",
			call: func() error {
				_, err := h.client.GetExercise(ctx, &catalogv1.GetExerciseRequest{Id: "nope"})
				return err
			},
			code: codes.NotFound,
		},
		{
			name: "malformed exercise id",
			call: func() error {
				_, err := h.client.GetExercise(ctx, &catalogv1.GetExerciseRequest{Id: ""})
				return err
			},
			code: codes.InvalidArgument,
			details: []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
				{Field: "id", Description: `"" is not a well-formed exercise id (1 to 32 characters of A-Z, a-z, 0-9, _ and -)`},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(tt.call())
			if st.Code() != tt.code {
				t.Fatalf("code = %v (%s), want %v", st.Code(), st.Message(), tt.code)
			}
			if diff := cmp.Diff(tt.details, st.Details(), protocmp.Transform(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvalidArgumentReportsABoundedNumberOfViolations(t *testing.T) {
	h := start(t, true)
	unknown := make([]string, exercise.MaxFilterValues)
	for i := range unknown {
		unknown[i] = fmt.Sprintf("x%d", i)
	}
	f := &catalogv1.ExerciseFilter{BodyParts: unknown, Equipments: unknown, Difficulties: unknown,
		ExerciseTypes: unknown, TargetMuscles: unknown, SecondaryMuscles: unknown}
	_, err := h.client.ListExercises(context.Background(), &catalogv1.ListExercisesRequest{Filter: f})
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("code = %v (%s), want InvalidArgument", st.Code(), st.Message())
	}
	if n := strings.Count(st.Message(), `is not a known`); n != maxViolations {
		t.Errorf("message names %d violations, want %d", n, maxViolations)
	}
	if want, msg := fmt.Sprintf("; and %d more", 6*exercise.MaxFilterValues-maxViolations), st.Message(); !strings.HasSuffix(msg, want) {
		t.Errorf("message ends with %q, want %q", msg[max(0, len(msg)-len(want)):], want)
	}
	br, ok := st.Details()[0].(*errdetails.BadRequest)
	if !ok || len(br.FieldViolations) != maxViolations {
		t.Errorf("details: %T, %d violations, want a BadRequest of %d", st.Details()[0], len(br.GetFieldViolations()), maxViolations)
	}

	// One value more than a field may hold is one violation naming it.
	f = &catalogv1.ExerciseFilter{BodyParts: append(unknown, "chest")}
	_, err = h.client.ListExercises(context.Background(), &catalogv1.ListExercisesRequest{Filter: f})
	want := []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{
		Field:       "filter.body_parts",
		Description: `"chest" is one value too many: a field holds at most 100 values, and this one has 101`,
	}}}}
	if diff := cmp.Diff(want, status.Convert(err).Details(), protocmp.Transform()); diff != "" {
		t.Errorf("101 values: details (-want +got):\n%s", diff)
	}
}

func TestReferenceLists(t *testing.T) {
	h := start(t, true)
	ctx := context.Background()
	bp, err := h.client.ListBodyParts(ctx, &catalogv1.ListBodyPartsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"back", "chest"}, bp.BodyParts); diff != "" {
		t.Errorf("body parts (-want +got):\n%s", diff)
	}
	ms, err := h.client.ListMuscles(ctx, &catalogv1.ListMusclesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	wantMuscles := []*catalogv1.Muscle{{Name: "latissimus dorsi", BodyPart: "back"}, {Name: "pectoralis major", BodyPart: "chest"}}
	if diff := cmp.Diff(wantMuscles, ms.Muscles, protocmp.Transform()); diff != "" {
		t.Errorf("muscles (-want +got):\n%s", diff)
	}
	ts, err := h.client.ListExerciseTypes(ctx, &catalogv1.ListExerciseTypesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.ExerciseTypes) != 1 || len(ts.ExerciseTypes[0].MediaDigest) != 16 {
		t.Fatalf("types: %v, want one with a media digest", ts.ExerciseTypes)
	}
	if diff := cmp.Diff([]*catalogv1.ExerciseType{{Name: "strength", MediaKey: "types/strength", MediaDigest: ts.ExerciseTypes[0].MediaDigest}}, ts.ExerciseTypes, protocmp.Transform()); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	eq, err := h.client.ListEquipments(ctx, &catalogv1.ListEquipmentsRequest{})
	if err != nil || !cmp.Equal(eq.Equipments, []string{"barbell", "body weight"}) || eq.CatalogueVersion != h.cat.Version() {
		t.Errorf("equipments = %v, %v", eq, err)
	}
	d, err := h.client.ListDifficulties(ctx, &catalogv1.ListDifficultiesRequest{})
	if err != nil || !cmp.Equal(d.Difficulties, []string{"beginner", "advanced"}) {
		t.Errorf("difficulties = %v, %v", d, err)
	}
}

func TestHealthFollowsLoading(t *testing.T) {
	h := start(t, false)
	ctx := context.Background()
	hc := healthpb.NewHealthClient(h.conn)
	check := func(service string) healthpb.HealthCheckResponse_ServingStatus {
		t.Helper()
		r, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	if got := check(ServiceName); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("before loading: %v", got)
	}
	if _, err := h.client.ListBodyParts(ctx, &catalogv1.ListBodyPartsRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("call before loading: %v, want Unavailable", err)
	}
	h.svc.Swap(h.cat)
	SetServing(h.health, true)
	for _, s := range []string{"", ServiceName} {
		if got := check(s); got != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("after loading, service %q: %v", s, got)
		}
	}
	h.health.Shutdown()
	if got := check(ServiceName); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("after Shutdown: %v", got)
	}
}

func TestHealthWatchEndsWhenTheServiceStops(t *testing.T) {
	h := start(t, true)
	hc := healthpb.NewHealthClient(h.conn)
	// A stream that is not ended fails the test at this deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	watch := func(service string, want healthpb.HealthCheckResponse_ServingStatus) grpc.ServerStreamingClient[healthpb.HealthCheckResponse] {
		t.Helper()
		w, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := w.Recv(); err != nil || r.Status != want {
			t.Fatalf("watch %q: %v %v, want %v", service, r, err, want)
		}
		return w
	}
	serving := watch("", healthpb.HealthCheckResponse_SERVING)
	unknown := watch("nope", healthpb.HealthCheckResponse_SERVICE_UNKNOWN)
	h.svc.Stop() // still SERVING: the watcher must hear NOT_SERVING first
	h.health.Shutdown()
	if r, err := serving.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("after Shutdown: %v %v, want NOT_SERVING", r, err)
	}
	for name, w := range map[string]grpc.ServerStreamingClient[healthpb.HealthCheckResponse]{"serving": serving, "unknown": unknown} {
		if r, err := w.Recv(); status.Code(err) != codes.Unavailable {
			t.Errorf("%s watcher after Stop: %v %v, want the stream to end with Unavailable", name, r, err)
		}
	}
	// A watch begun after the stop ends after its first status.
	late := watch(ServiceName, healthpb.HealthCheckResponse_NOT_SERVING)
	if r, err := late.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("watch begun after Stop: %v %v, want the stream to end with Unavailable", r, err)
	}
}

func TestReflectionListsServices(t *testing.T) {
	h := start(t, true)
	stream, err := reflectionpb.NewServerReflectionClient(h.conn).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.Name)
	}
	for _, want := range []string{ServiceName, "grpc.health.v1.Health"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("reflection lists %v, missing %s", names, want)
		}
	}
	if ServiceName != catalogv1.CatalogService_ServiceDesc.ServiceName {
		t.Errorf("ServiceName = %q, generated %q", ServiceName, catalogv1.CatalogService_ServiceDesc.ServiceName)
	}
}

func TestRequestIDIsLogged(t *testing.T) {
	h := start(t, true)
	ctx := metadata.AppendToOutgoingContext(context.Background(), RequestIDHeader, "req_abc123")
	if _, err := h.client.GetExercise(ctx, &catalogv1.GetExerciseRequest{Id: "pu"}); err != nil {
		t.Fatal(err)
	}
	log := h.log.String()
	if !strings.Contains(log, `"request_id":"req_abc123"`) || !strings.Contains(log, `"method":"/exercisedb.catalog.v1.CatalogService/GetExercise"`) {
		t.Errorf("log does not record the call with its request id:\n%s", log)
	}
}

func TestUnknownErrorsAreInternalAndHidden(t *testing.T) {
	err := toStatus(errors.New("disk on fire at /var/x"))
	st := status.Convert(err)
	if st.Code() != codes.Internal || st.Message() != "internal error" {
		t.Errorf("status = %v %q, want Internal with a fixed message", st.Code(), st.Message())
	}
}

func TestWatchCatalogue(t *testing.T) {
	h := start(t, true)
	stream, err := h.client.WatchCatalogue(context.Background(), &catalogv1.WatchCatalogueRequest{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := stream.Recv()
	if err != nil || first.CatalogueVersion != h.cat.Version() || first.Records != 2 {
		t.Fatalf("first message = %v, %v; want version %s and 2 records", first, err, h.cat.Version())
	}
	data, err := os.ReadFile("testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	grown := strings.Replace(string(data), `"id": "bp"`, `"id": "bq"`, 1)
	next, err := exercise.Load([]byte(grown))
	if err != nil {
		t.Fatal(err)
	}
	h.svc.Swap(h.cat) // the same version again: nothing to report
	h.svc.Swap(next)
	second, err := stream.Recv()
	if err != nil || second.CatalogueVersion != next.Version() {
		t.Fatalf("after Swap: %v, %v; want version %s", second, err, next.Version())
	}
	h.svc.Stop()
	if _, err := stream.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("after Stop: %v, want Unavailable", err)
	}
}
