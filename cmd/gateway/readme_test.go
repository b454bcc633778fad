package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exercisedb/exercisedb/internal/docexample"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestREADMEExamples runs every gateway example of the README (the curl
// commands to 127.0.0.1:8080) against the real binaries, configured as
// `make run` configures them (dev/gateway.yaml, a Pro key), and compares
// the output with the README's.
func TestREADMEExamples(t *testing.T) {
	g, key := startDevSystem(t)
	runCurlExamples(t, "README.md", 10, g, key)
}

// TestGuideExamples runs the app developer's guide the same way: its curl
// commands, and its Go and JavaScript programs, whose output must match
// the output blocks that follow them.
func TestGuideExamples(t *testing.T) {
	const guide = "docs/guide.md"
	g, key := startDevSystem(t)
	runCurlExamples(t, guide, 10, g, key)
	md := readDoc(t, guide)
	runGoPrograms(t, guide, docexample.Programs(md, "go"), g, key)
	runJSPrograms(t, guide, docexample.Programs(md, "js"), g, key)
}

// startDevSystem starts the catalog and a gateway configured as `make run`
// configures them, and returns the gateway with a key on the Pro plan of
// the GIF product and the Ultra plan of the video product.
func startDevSystem(t *testing.T) (*gateway, string) {
	t.Helper()
	cat := startCatalog(t)
	config := devConfig(t, cat.grpc)
	key := newKey(t, config, "key_docs", "exercisedb=Pro", "exercisedb-video=Ultra")
	return startGateway(t, config), key
}

func readDoc(t *testing.T, doc string) string {
	t.Helper()
	md, err := os.ReadFile(filepath.Join("../..", doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(md)
}

// runCurlExamples runs the curl commands to 127.0.0.1:8080 of doc (a path
// from the repository's root) against g, with the key in $KEY, and
// compares their output with the document's. Fewer than atLeast such
// examples means the parser or the document changed.
func runCurlExamples(t *testing.T, doc string, atLeast int, g *gateway, key string) {
	t.Helper()
	var examples []docexample.Example
	for _, ex := range docexample.Parse(readDoc(t, doc)) {
		if strings.HasPrefix(ex.Command, "curl ") && strings.Contains(ex.Command, "127.0.0.1:8080") {
			examples = append(examples, ex)
		}
	}
	if len(examples) < atLeast {
		t.Fatalf("found %d gateway examples in %s; the parser or the document changed", len(examples), doc)
	}
	for _, ex := range examples {
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(ex.Command, "127.0.0.1:8080", g.http))
		cmd.Env = append(os.Environ(), "KEY="+key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s:%d: %s: %v\n%s", doc, ex.Line, ex.Command, err, out)
			continue
		}
		checkDocOutput(t, doc, ex.Line, ex.Command, ex.Output, string(out), g)
	}
}

// checkDocOutput compares what a command or program printed with what
// the document shows.
func checkDocOutput(t *testing.T, doc string, line int, what string, want []string, out string, g *gateway) {
	t.Helper()
	// Media URLs name the gateway as clients reach it: here its port.
	got := strings.ReplaceAll(strings.ReplaceAll(out, "\r\n", "\n"), g.http, "127.0.0.1:8080")
	if !docexample.Match(want, got) {
		t.Errorf("%s:%d: %s\nprints:\n%s\n%s shows:\n%s", doc, line, what, got, doc, strings.Join(want, "\n"))
	}
}

// runGoPrograms builds the Go programs of doc inside the module (so that
// they import pkg/client as a reader's would import it), runs each with
// $KEY set and its base URL pointed at g, and compares what it prints.
func runGoPrograms(t *testing.T, doc string, progs []docexample.Program, g *gateway, key string) {
	t.Helper()
	if len(progs) == 0 {
		t.Fatalf("%s has no Go program; the parser or the document changed", doc)
	}
	// A directory starting with a dot is outside ./... and is removed
	// after the test.
	dir, err := os.MkdirTemp("../..", ".docprogram-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var pkgs []string
	for i, p := range progs {
		pkg := filepath.Join(dir, fmt.Sprintf("p%d", i))
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		src := strings.ReplaceAll(p.Source, "127.0.0.1:8080", g.http)
		if err := os.WriteFile(filepath.Join(pkg, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(filepath.Base(dir), fmt.Sprintf("p%d", i))))
	}
	bin := t.TempDir()
	build := exec.Command("go", append([]string{"build", "-o", bin + "/"}, pkgs...)...)
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: building its Go programs: %v\n%s", doc, err, out)
	}
	for i, p := range progs {
		cmd := exec.Command(filepath.Join(bin, fmt.Sprintf("p%d", i)))
		cmd.Env = append(os.Environ(), "KEY="+key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s:%d: the Go program: %v\n%s", doc, p.Line, err, out)
			continue
		}
		checkDocOutput(t, doc, p.Line, "the Go program", p.Output, string(out), g)
	}
}

// runJSPrograms runs the JavaScript programs of doc with Node (ES
// modules, the fetch of the platform), with $KEY set and their base URL
// pointed at g. Without node they are skipped, unless CI is set.
func runJSPrograms(t *testing.T, doc string, progs []docexample.Program, g *gateway, key string) {
	t.Helper()
	if len(progs) == 0 {
		t.Fatalf("%s has no JavaScript program; the parser or the document changed", doc)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but node is not installed: %v", err)
		}
		t.Logf("node is not installed: the JavaScript programs of %s are not run", doc)
		return
	}
	dir := t.TempDir()
	for i, p := range progs {
		file := filepath.Join(dir, fmt.Sprintf("p%d.mjs", i))
		if err := os.WriteFile(file, []byte(strings.ReplaceAll(p.Source, "127.0.0.1:8080", g.http)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(node, file)
		cmd.Env = append(os.Environ(), "KEY="+key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s:%d: the JavaScript program: %v\n%s", doc, p.Line, err, out)
			continue
		}
		checkDocOutput(t, doc, p.Line, "the JavaScript program", p.Output, string(out), g)
	}
}

// devConfig copies dev/gateway.yaml into a temporary directory, moving its
// listeners to free ports (the public one named in media.public_url too,
// so that its media URLs resolve), its catalog to catalogAddr and its log
// to JSON. docs_url is kept, so error bodies read as in the README.
func devConfig(t *testing.T, catalogAddr string) string {
	t.Helper()
	data, err := os.ReadFile("../../dev/gateway.yaml")
	if err != nil {
		t.Fatal(err)
	}
	public := testnet.FreeAddr(t) // the gateway binds it at once
	s := string(data)
	for _, r := range [][2]string{
		{"\nlisten: 127.0.0.1:8080", "\nlisten: " + public},
		{"  public_url: http://127.0.0.1:8080", "  public_url: http://" + public},
		{"\nadmin_listen: 127.0.0.1:9091", "\nadmin_listen: 127.0.0.1:0"},
		{"  target: 127.0.0.1:9090", "  target: " + catalogAddr},
		{"  format: text", "  format: json"},
	} {
		if !strings.Contains(s, r[0]) {
			t.Fatalf("dev/gateway.yaml no longer contains %q", r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	path := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
