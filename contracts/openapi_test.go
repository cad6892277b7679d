package contracts_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/openapitest"
)

// updating reports whether -update asks for golden files to be rewritten.
// The flag is defined once for the package, in events_test.go.
func updating(t *testing.T) bool {
	t.Helper()
	f := flag.Lookup("update")
	if f == nil {
		t.Fatal("no -update flag")
	}
	return f.Value.(flag.Getter).Get().(bool)
}

// TestOpenAPIWellFormed checks what can be checked offline: the document
// parses as OpenAPI 3.1, every reference resolves, every schema is valid
// JSON Schema 2020-12, every operation answers something, and every example
// matches its schema.
func TestOpenAPIWellFormed(t *testing.T) {
	d := openapitest.Load(t)
	for _, field := range []string{"openapi", "info", "servers", "paths", "components", "security"} {
		if _, ok := d.Raw[field]; !ok {
			t.Errorf("no %s", field)
		}
	}
	if got := d.Raw["openapi"]; got != "3.1.0" {
		t.Errorf("openapi: got %v, want 3.1.0", got)
	}
	info, _ := d.Raw["info"].(map[string]any)
	for _, field := range []string{"title", "version", "description"} {
		if s, _ := info[field].(string); s == "" {
			t.Errorf("info.%s: missing", field)
		}
	}
	desc, _ := info["description"].(string)
	for _, want := range []string{"non-commercial", "no key", "Deprecation", "Sunset", "six months"} {
		if !strings.Contains(desc, want) {
			t.Errorf("info.description does not mention %q", want)
		}
	}

	refs := d.Refs()
	if len(refs) == 0 {
		t.Fatal("no references: did the walk break?")
	}
	for _, r := range refs {
		if _, err := d.Resolve(r.Ref); err != nil {
			t.Errorf("%s: $ref %v", r.At, err)
		}
	}

	// Anonymous access is allowed everywhere, and every scheme used exists.
	schemes, _ := d.Raw["components"].(map[string]any)["securitySchemes"].(map[string]any)
	security, _ := d.Raw["security"].([]any)
	anonymous := false
	for _, req := range security {
		m, _ := req.(map[string]any)
		if len(m) == 0 {
			anonymous = true
		}
		for name := range m {
			if _, ok := schemes[name]; !ok {
				t.Errorf("security: no scheme %q", name)
			}
		}
	}
	if !anonymous {
		t.Error("security: no empty requirement {}, so anonymous clients would be refused")
	}

	ops, err := d.Operations()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	checked := map[string]bool{}
	for _, op := range ops {
		name := op.Method + " " + op.Path
		id, _ := op.Object["operationId"].(string)
		if id == "" {
			t.Errorf("%s: no operationId", name)
		} else if other, dup := ids[id]; dup {
			t.Errorf("%s: operationId %s is also %s's", name, id, other)
		}
		ids[id] = name
		responses, _ := op.Object["responses"].(map[string]any)
		if len(responses) == 0 {
			t.Errorf("%s: no responses", name)
		}
		for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(op.Path, -1) {
			if !slices.ContainsFunc(op.Parameters, func(p openapitest.Parameter) bool {
				return p.In == "path" && p.Name == m[1] && p.Object["required"] == true
			}) {
				t.Errorf("%s: no required path parameter %s", name, m[1])
			}
		}
		for _, p := range op.Parameters {
			if !checked[p.Ref] {
				checked[p.Ref] = true
				checkExample(t, d, p.Ref+"/schema", p.Ref+"/example", p.Object["example"])
			}
		}
		for status := range responses {
			r, err := d.Response(op.Method, op.Path, mustStatus(t, status))
			if err != nil {
				t.Errorf("%s %s: %v", name, status, err)
				continue
			}
			for name, h := range r.Headers {
				if _, err := d.Schema(h.Schema); err != nil {
					t.Errorf("%s header %s: %v", r.Ref, name, err)
				}
			}
			for mt, ref := range r.Content {
				if _, err := d.Schema(ref); err != nil {
					t.Errorf("%s %s: %v", r.Ref, mt, err)
				}
				example, err := d.Resolve(strings.TrimSuffix(ref, "/schema"))
				if err != nil {
					t.Fatal(err)
				}
				checkExample(t, d, ref, strings.TrimSuffix(ref, "/schema")+"/example", example.(map[string]any)["example"])
			}
		}
	}

	schemas, _ := d.Raw["components"].(map[string]any)["schemas"].(map[string]any)
	for name, schema := range schemas {
		ref := "#/components/schemas/" + name
		if _, err := d.Schema(ref); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
		examples, _ := schema.(map[string]any)["examples"].([]any)
		for i, ex := range examples {
			checkExample(t, d, ref, ref+"/examples/"+strconv.Itoa(i), ex)
		}
	}
}

// TestOpenAPIFieldsRequired checks the rule that makes the document a
// compatibility test: every property of every object schema is required,
// so that a response without it fails validation, unless the document says
// when it is absent (a description starting "Present only"). The schemas
// of request content (the webhook API's), whose fields a client may leave
// out, are not responses, and are left alone.
func TestOpenAPIFieldsRequired(t *testing.T) {
	d := openapitest.Load(t)
	requests := requestSchemas(t, d)
	if len(requests) == 0 {
		t.Error("no schema of request content found")
	}
	n := 0
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok && v["type"] != nil {
				n++
				var required []string
				list, _ := v["required"].([]any)
				for _, r := range list {
					required = append(required, r.(string))
				}
				for name, p := range props {
					desc, _ := p.(map[string]any)["description"].(string)
					conditional := strings.HasPrefix(desc, "Present only")
					if slices.Contains(required, name) == conditional {
						t.Errorf("%s/properties/%s: required %v, but its description says %q", at, name, !conditional, desc)
					}
				}
				for _, r := range required {
					if _, ok := props[r]; !ok {
						t.Errorf("%s: requires %s, which it does not describe", at, r)
					}
				}
			}
			for k, x := range v {
				walk(x, at+"/"+k)
			}
		case []any:
			for i, x := range v {
				walk(x, at+"/"+strconv.Itoa(i))
			}
		}
	}
	for name, schema := range d.Raw["components"].(map[string]any)["schemas"].(map[string]any) {
		if !requests["#/components/schemas/"+name] {
			walk(schema, "#/components/schemas/"+name)
		}
	}
	if n < 10 {
		t.Errorf("checked %d object schemas: did the walk break?", n)
	}
}

// requestSchemas are the references of the schemas of every operation's
// request content, and of the schemas they refer to.
func requestSchemas(t *testing.T, d *openapitest.Doc) map[string]bool {
	t.Helper()
	ops, err := d.Operations()
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/schemas/") && !refs[ref] {
				refs[ref] = true
				target, err := d.Resolve(ref)
				if err != nil {
					t.Fatal(err)
				}
				collect(target)
			}
			for _, x := range v {
				collect(x)
			}
		case []any:
			for _, x := range v {
				collect(x)
			}
		}
	}
	for _, op := range ops {
		collect(op.Object["requestBody"])
	}
	return refs
}

// TestOpenAPILimitedAnswers checks what the key check and the rate limit
// in front of every API operation (GET and HEAD under /api/) may answer,
// whatever the handler behind them does: 401 for a key that is wrong or
// malformed, 429 over the limit, 503 for a key the pod cannot check yet.
// It also checks that every response documents the deprecation headers,
// which a deprecated route's every answer carries, and the RateLimit
// fields as optional, since an unlimited tier gets none.
func TestOpenAPILimitedAnswers(t *testing.T) {
	d := openapitest.Load(t)
	ops, err := d.Operations()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, op := range ops {
		if !strings.HasPrefix(op.Path, "/api/") || (op.Method != "GET" && op.Method != "HEAD") {
			continue
		}
		n++
		for _, status := range []int{401, 429, 503} {
			if _, err := d.Response(op.Method, op.Path, status); err != nil {
				t.Errorf("%s %s: %v", op.Method, op.Path, err)
			}
		}
	}
	if n < 10 {
		t.Errorf("checked %d API operations: did the walk break?", n)
	}
	responses, _ := d.Raw["components"].(map[string]any)["responses"].(map[string]any)
	for name := range responses {
		r, err := d.NamedResponse(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range []string{"Deprecation", "Sunset", "Link"} {
			if got, ok := r.Headers[h]; !ok || got.Required {
				t.Errorf("%s: header %s documented %v, required %v; want it documented, optional", name, h, ok, got.Required)
			}
		}
		for _, h := range []string{"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset", "Ratelimit-Policy"} {
			if got, ok := r.Headers[h]; ok && got.Required {
				t.Errorf("%s: header %s is required, but a tier without a limit gets none", name, h)
			}
		}
	}
	invalid, _ := responses["InvalidAPIKey"].(map[string]any)["description"].(string)
	for _, want := range []string{"unknown or revoked", "Authorization", "Bearer"} {
		if !strings.Contains(invalid, want) {
			t.Errorf("InvalidAPIKey's description does not mention %q, one of the causes of a 401: %s", want, invalid)
		}
	}
}

// mustStatus turns a response key into a status the lookup finds it by.
func mustStatus(t *testing.T, key string) int {
	t.Helper()
	if n, err := strconv.Atoi(strings.ReplaceAll(key, "XX", "99")); err == nil {
		return n
	}
	t.Fatalf("response key %q is not a status or range", key)
	return 0
}

// checkExample validates an example, when there is one, against its schema.
func checkExample(t *testing.T, d *openapitest.Doc, schemaRef, at string, example any) {
	t.Helper()
	if example == nil {
		return
	}
	s, err := d.Schema(schemaRef)
	if err != nil {
		t.Errorf("%s: %v", schemaRef, err)
		return
	}
	if err := s.Validate(example); err != nil {
		t.Errorf("%s does not match its schema: %v", at, err)
	}
}

// TestOpenAPIProblemCodes checks that the document's problem codes are
// exactly the Code constants of problem.go, so a new code cannot go
// undocumented. ProblemCode is one string with a pattern, which both client
// generators take (an enum beside a second pattern is a union neither
// does): its examples list the codes, and its pattern must take exactly
// those and the HTTP layer's http-4xx.
func TestOpenAPIProblemCodes(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "problem.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s is not a string literal", name.Name)
				}
				code, _ := strconv.Unquote(lit.Value)
				want = append(want, code)
			}
		}
	}
	if len(want) < 9 {
		t.Fatalf("found %d Code constants in problem.go, want at least 9: did the parse break?", len(want))
	}
	d := openapitest.Load(t)
	v, err := d.Resolve("#/components/schemas/ProblemCode")
	if err != nil {
		t.Fatal(err)
	}
	schema := v.(map[string]any)
	var got, http []string
	for _, e := range schema["examples"].([]any) {
		if c := e.(string); strings.HasPrefix(c, "http-") {
			http = append(http, c)
		} else {
			got = append(got, c)
		}
	}
	if len(http) == 0 {
		t.Errorf("ProblemCode examples: none of the HTTP layer's http-4xx")
	}
	if want := "^(?:" + strings.Join(got, "|") + "|http-4[0-9]{2})$"; schema["pattern"] != want {
		t.Errorf("ProblemCode pattern: got %v, want %s: the codes of its examples and http-4xx", schema["pattern"], want)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ProblemCode examples: got %v, want the Code constants %v", got, want)
	}
}

// TestOpenAPICategoryIDs checks that the category parameter takes exactly
// the categories the service defines.
func TestOpenAPICategoryIDs(t *testing.T) {
	var want []string
	for _, c := range contracts.Categories() {
		want = append(want, c.ID)
	}
	got := enum(t, openapitest.Load(t), "#/components/schemas/CategoryID")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("CategoryID enum: got %v, want the ids of categories.json %v", got, want)
	}
}

func enum(t *testing.T, d *openapitest.Doc, ref string) []string {
	t.Helper()
	v, err := d.Resolve(ref + "/enum")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// TestOpenAPIVersionIsChangelogDate ties the document's version to the
// changelog: a change to the API comes with an entry, and the entry dates
// the document.
func TestOpenAPIVersionIsChangelogDate(t *testing.T) {
	f, err := os.Open("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var newest string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if date, ok := strings.CutPrefix(sc.Text(), "## "); ok {
			if _, err := time.Parse(time.DateOnly, date); err == nil {
				newest = date
				break
			}
		}
	}
	if newest == "" {
		t.Fatal("CHANGELOG.md has no dated entry (## YYYY-MM-DD)")
	}
	info := openapitest.Load(t).Raw["info"].(map[string]any)
	if got := info["version"]; got != newest {
		t.Errorf("info.version: got %v, want the newest changelog entry's date %s", got, newest)
	}
}

// TestAPIFieldsGolden is the compatibility guard: testdata/api-fields.golden
// lists every response field the document has ever promised, and none may
// disappear from the document. (The query service's tests validate real
// responses against the document, where fields are required, so none may
// disappear from the server either.) New fields are fine: -update adds
// them. Removing one is a breaking change: announce it (CHANGELOG.md,
// contracts.Deprecations), wait for the sunset, then delete its line here.
func TestAPIFieldsGolden(t *testing.T) {
	got, err := openapitest.Load(t).Fields()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 50 {
		t.Fatalf("the document lists %d fields: did the walk break?", len(got))
	}
	path := filepath.Join("testdata", "api-fields.golden")
	if updating(t) {
		var b bytes.Buffer
		b.WriteString("# Every response field the API documents, by operation and status; see TestAPIFieldsGolden.\n")
		for _, f := range got {
			b.WriteString(f + "\n")
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestAPIFieldsGolden -update to create it)", err)
	}
	var missing, added []string
	var want []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
			if !slices.Contains(got, line) {
				missing = append(missing, line)
			}
		}
	}
	for _, f := range got {
		if !slices.Contains(want, f) {
			added = append(added, f)
		}
	}
	for _, f := range missing {
		t.Errorf("documented field removed: %s (a breaking change: see CHANGELOG.md's compatibility promise)", f)
	}
	if len(added) > 0 {
		t.Logf("%d new fields not in %s yet; run with -update to record them:\n%s", len(added), path, strings.Join(added, "\n"))
	}
}

// TestAPIFieldsGoldenCatchesRemoval checks the guard itself: the document
// with one field deleted lists one field fewer, which TestAPIFieldsGolden
// would report.
func TestAPIFieldsGoldenCatchesRemoval(t *testing.T) {
	var raw map[string]any
	if err := json.Unmarshal(contracts.OpenAPI(), &raw); err != nil {
		t.Fatal(err)
	}
	row := raw["components"].(map[string]any)["schemas"].(map[string]any)["ComparisonRow"].(map[string]any)
	delete(row["properties"].(map[string]any), "observed_at")
	edited, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	d, err := openapitest.Parse(edited)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Fields()
	if err != nil {
		t.Fatal(err)
	}
	const gone = "GET /api/comparison/{zone} 200 prices[].observed_at"
	if slices.Contains(got, gone) {
		t.Errorf("after deleting observed_at the document still lists %s", gone)
	}
	full, err := openapitest.Load(t).Fields()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(full, gone) {
		t.Errorf("the full document does not list %s", gone)
	}
}

// TestDeprecations checks the deprecation table against the promise: six
// months' notice, a changelog link, and a route the document has.
func TestDeprecations(t *testing.T) {
	d := openapitest.Load(t)
	paths := d.Raw["paths"].(map[string]any)
	for _, dep := range contracts.Deprecations() {
		if err := dep.Validate(); err != nil {
			t.Errorf("%s: %v", dep.Path, err)
		}
		if _, ok := paths[dep.Path]; !ok {
			t.Errorf("%s: deprecated, but not documented (it stays documented until its sunset)", dep.Path)
		}
		if !strings.HasPrefix(dep.Link, contracts.ChangelogURL) {
			t.Errorf("%s: link %s is not an entry of the changelog %s", dep.Path, dep.Link, contracts.ChangelogURL)
		}
	}
}

func TestDeprecationValidate(t *testing.T) {
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	good := contracts.Deprecation{
		Path: "/api/domains", What: "the min field", Deprecated: at, Sunset: at.AddDate(0, 6, 0),
		Link: contracts.ChangelogURL + "#2027-01-01",
	}
	tests := []struct {
		name    string
		edit    func(*contracts.Deprecation)
		wantErr string
	}{
		{"valid", func(*contracts.Deprecation) {}, ""},
		{"relative path", func(d *contracts.Deprecation) { d.Path = "api/domains" }, "path"},
		{"nothing said", func(d *contracts.Deprecation) { d.What = "" }, "what"},
		{"no date", func(d *contracts.Deprecation) { d.Deprecated = time.Time{} }, "deprecated"},
		{"short notice", func(d *contracts.Deprecation) { d.Sunset = at.AddDate(0, 6, -1) }, "sunset"},
		{"no sunset", func(d *contracts.Deprecation) { d.Sunset = time.Time{} }, "sunset"},
		{"relative link", func(d *contracts.Deprecation) { d.Link = "CHANGELOG.md" }, "link"},
		{"link breaking the header", func(d *contracts.Deprecation) { d.Link = "https://example.org/>; rel=x" }, "link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := good
			tt.edit(&d)
			err := d.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("got %v, want an error about %s", err, tt.wantErr)
			}
		})
	}
}
