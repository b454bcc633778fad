package systemtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// typeScriptProgram uses the types openapi-typescript generated from
// /openapi.json into schema.d.ts. Each field is assigned to a string, so
// the program type-checks only if the listing's 401 body has all four
// fields of the error, required, and its 200 body lists exercises with
// names.
const typeScriptProgram = `import type { paths } from "./schema";

type Listing = paths["/api/v1/exercises"]["get"]["responses"][200]["content"]["application/json"];
type Unauthorized = paths["/api/v1/exercises"]["get"]["responses"][401]["content"]["application/json"];

export function describeError(body: Unauthorized): string {
  const code: string = body.error.code;
  const docs: string = body.error.docs;
  const message: string = body.error.message;
  const requestId: string = body.error.requestId;
  return code + ": " + message + " (" + docs + ", request " + requestId + ")";
}

export function firstName(body: Listing): string {
  const name: string = body.data[0].name;
  return name;
}
`

// TestGeneratedTypeScript generates TypeScript types from /openapi.json
// with openapi-typescript's default options, pinned with TypeScript in
// tools/openapi-ts's package-lock.json and installed by npm ci into a
// copy of that directory, then type-checks a small program with them
// (tsc --strict). It checks as well that the program does not
// type-check once requestId is taken out of the document's error.
//
// npm ci fetches packages, so the test is skipped unless
// EXERCISEDB_NPM_TESTS is set (.ci/run sets it); set, it fails without
// node and npm.
func TestGeneratedTypeScript(t *testing.T) {
	if os.Getenv("EXERCISEDB_NPM_TESTS") == "" {
		t.Skip("runs npm ci; set EXERCISEDB_NPM_TESTS=1 to run it")
	}
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed, and EXERCISEDB_NPM_TESTS requires it (apt-get install nodejs npm)", tool)
		}
	}
	tools := t.TempDir()
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join("../../tools/openapi-ts", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(tools, name), data)
	}
	run := func(dir, name string, args ...string) ([]byte, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
		return cmd.CombinedOutput()
	}
	if out, err := run(tools, "npm", "ci", "--no-audit", "--no-fund"); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}

	// typeCheck generates schema.d.ts from doc beside the program and
	// returns tsc's output, failing the test if generating fails.
	typeCheck := func(t *testing.T, doc []byte) ([]byte, error) {
		t.Helper()
		dir := t.TempDir()
		write(t, filepath.Join(dir, "openapi.json"), doc)
		write(t, filepath.Join(dir, "program.ts"), []byte(typeScriptProgram))
		if out, err := run(tools, "npx", "--no", "--", "openapi-typescript", filepath.Join(dir, "openapi.json"), "-o", filepath.Join(dir, "schema.d.ts")); err != nil {
			t.Fatalf("openapi-typescript: %v\n%s", err, out)
		}
		// Without "--", npx would take --strict and --noEmit for its own.
		return run(tools, "npx", "--no", "--", "tsc", "--strict", "--noEmit", filepath.Join(dir, "program.ts"))
	}

	_, doc := start(t, options{}).do(t, request{path: "/openapi.json", host: "-"})
	if out, err := typeCheck(t, doc); err != nil {
		t.Fatalf("tsc --strict on a program using the generated types: %v\n%s", err, out)
	}

	// The same program against the document without the error's
	// requestId: tsc must refuse it, so the generated Error has no index
	// signature that would let a lost field through.
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	schema := d["components"].(map[string]any)["schemas"].(map[string]any)["Error"].(map[string]any)
	delete(schema["properties"].(map[string]any), "requestId")
	schema["required"] = slices.DeleteFunc(schema["required"].([]any), func(v any) bool { return v == "requestId" })
	withoutRequestID, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	out, err := typeCheck(t, withoutRequestID)
	if err == nil {
		t.Fatal("the program type-checks against a document whose Error has no requestId")
	}
	if !strings.Contains(string(out), "'requestId'") {
		t.Errorf("tsc failed without naming requestId:\n%s", out)
	}
}
