package systemtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// generatedClientProgram uses a client that oapi-codegen generated from
// /openapi.json. The assignments to Error and ErrorEnvelope are the point:
// they compile only if every error response decodes into the document's
// one shared error type, with code, docs, message and requestId.
const generatedClientProgram = `package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"

	"generated/exercisedb"
)

func main() {
	c, err := exercisedb.NewClientWithResponses(os.Args[1])
	if err != nil {
		panic(err)
	}
	host := "api.example.test"
	params := &exercisedb.BodyPartsParams{XGatewayHost: &host}
	ctx := context.Background()
	anonymous, err := c.BodyPartsWithResponse(ctx, params)
	if err != nil {
		panic(err)
	}
	var envelopes = []*exercisedb.ErrorEnvelope{anonymous.JSON400, anonymous.JSON401, anonymous.JSON403, anonymous.JSON404,
		anonymous.JSON412, anonymous.JSON429, anonymous.JSON500, anonymous.JSON503}
	_ = envelopes
	var e exercisedb.Error = anonymous.JSON401.Error
	withKey, err := c.BodyPartsWithResponse(ctx, params, func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Gateway-Key", os.Args[2])
		return nil
	})
	if err != nil {
		panic(err)
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"status": anonymous.StatusCode(), "code": e.Code, "docs": e.Docs, "message": e.Message, "requestId": e.RequestId,
		"statusWithKey": withKey.StatusCode(), "first": withKey.JSON200.Data[0].Name,
	})
}
`

// TestGeneratedClient generates Go code from /openapi.json with
// oapi-codegen, pinned in tools/openapi: with its default options (types,
// client, server and embedded document), which must not fail, and as a
// client, which a small program then uses against the gateway. The
// program builds against tools/openapi's go.sum, so it resolves no
// module that the pinned tool module does not already name.
func TestGeneratedClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oapi-codegen and a program")
	}
	s := start(t, options{})
	_, doc := s.do(t, request{path: "/openapi.json", host: "-"})
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docFile := filepath.Join(dir, "openapi.json")
	write(t, docFile, doc)
	oapiCodegen := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", append([]string{"tool", "-modfile=tools/openapi/go.mod", "oapi-codegen"}, args...)...)
		cmd.Dir = root // go tool -modfile needs a main module
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("oapi-codegen %q: %v\n%s", args, err, out)
		}
	}
	oapiCodegen("-package", "exercisedb", "-o", filepath.Join(dir, "default.gen.go"), docFile)

	mod := filepath.Join(dir, "program")
	oapiCodegen("-generate", "types,client", "-package", "exercisedb", "-o", filepath.Join(mod, "exercisedb", "client.gen.go"), docFile)
	// Every error of every operation decodes into ErrorEnvelope, not into
	// a type of its own that may lose fields.
	client, err := os.ReadFile(filepath.Join(mod, "exercisedb", "client.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	errorTypes := regexp.MustCompile(`(?m)^\s+JSON[45]\d\d \*(\w+)$`).FindAllSubmatch(client, -1)
	if len(errorTypes) == 0 {
		t.Fatal("the generated client has no error responses")
	}
	for _, m := range errorTypes {
		if !regexp.MustCompile(`(?m)^type ` + string(m[1]) + ` = ErrorEnvelope$`).Match(client) {
			t.Errorf("the generated client decodes %s into %s, which is not ErrorEnvelope", m[0], m[1])
		}
	}
	goMod, err := os.ReadFile(filepath.Join(root, "tools/openapi/go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "tools/openapi/go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mod, "go.mod"), regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(goMod, []byte("module generated")))
	write(t, filepath.Join(mod, "go.sum"), goSum)
	write(t, filepath.Join(mod, "main.go"), []byte(generatedClientProgram))
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "program.bin"), ".")
	build.Dir = mod
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building a program with the generated client: %v\n%s", err, out)
	}

	out, err := exec.Command(filepath.Join(dir, "program.bin"), s.gateway.URL, testKeys["key_pro"].key).Output()
	if err != nil {
		t.Fatalf("the program: %v\n%s", err, out)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if id, _ := got["requestId"].(string); !requestIDPattern.MatchString(id) {
		t.Errorf("requestId = %q", id)
	}
	delete(got, "requestId")
	want := map[string]any{
		"status": 401.0, "code": "UNAUTHORIZED", "docs": "https://docs.example.test/docs/errors/code/UNAUTHORIZED",
		"message": "Missing API key: send it in the X-Gateway-Key header.", "statusWithKey": 200.0, "first": "back",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the generated client decoded (-want +got):\n%s", diff)
	}
}

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
