package openapitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Clients is a Go module in a temporary directory that holds a client of
// an OpenAPI document made by each generator the module generators pins,
// with the generator's default settings: oapi-codegen's in the package
// oapiclient, ogen's in ogenclient. The module's path is that of
// generators, so a program in it imports
// github.com/zoneprice/zoneprice/contracts/openapitest/generators/ogenclient.
type Clients struct {
	// Dir is the module's directory.
	Dir string
}

// Bin returns the path of the program that GenerateClients built from the
// package main in the module's folder cmd/name.
func (c Clients) Bin(name string) string { return filepath.Join(c.Dir, "bin", name) }

// GenerateClients writes doc into a new module made of generators' go.mod
// and go.sum, generates a client from it with oapi-codegen and one with
// ogen (go tool, each with nothing but its output named), adds files (a
// path in the module to its content: programs that use the clients), and
// runs go vet and go build on the whole, the programs into Bin. Each step
// fails tb with the tool's output. So does a schema ogen could not give a
// type and left as any, which would lose what the document says.
//
// The module cache and build cache are the user's: the first run builds
// the generators and the packages the clients import, later runs take
// them from the caches. Nothing is fetched once `go mod download` has run
// in generators.
func GenerateClients(tb testing.TB, doc []byte, files map[string][]byte) Clients {
	tb.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("openapitest: cannot tell where its source is")
	}
	src := filepath.Join(filepath.Dir(self), "generators")
	c := Clients{Dir: tb.TempDir()}
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			tb.Fatalf("openapitest: the generators' module: %v", err)
		}
		writeFile(tb, filepath.Join(c.Dir, name), data)
	}
	writeFile(tb, filepath.Join(c.Dir, "openapi.json"), doc)

	c.run(tb, "tool", "oapi-codegen", "-package", "oapiclient", "-o", filepath.Join("oapiclient", "client.gen.go"), "openapi.json")
	out := c.run(tb, "tool", "ogen", "-package", "ogenclient", "-target", "ogenclient", "openapi.json")
	for line := range strings.Lines(out) {
		if strings.Contains(line, "using any") {
			tb.Errorf("ogen typed a schema of the document as any: %s", strings.TrimSpace(line))
		}
	}
	for name, data := range files {
		writeFile(tb, filepath.Join(c.Dir, filepath.FromSlash(name)), data)
	}
	c.run(tb, "vet", "./...")
	c.run(tb, "build", "-o", "bin"+string(filepath.Separator), "./...")
	return c
}

// run runs the go command in the module and returns what it wrote.
func (c Clients) run(tb testing.TB, args ...string) string {
	tb.Helper()
	cmd := exec.CommandContext(tb.Context(), "go", args...)
	cmd.Dir = c.Dir
	// The module alone, no workspace of the caller's; and -trimpath, which
	// leaves the temporary directory out of the build cache's keys, so that
	// the next run finds the same generated code compiled.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	tb.Logf("go %s: %s", strings.Join(args[:2], " "), time.Since(start).Round(time.Millisecond))
	return string(out)
}

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}
