// Package openapitest checks the API against its OpenAPI document
// (contracts.OpenAPI) in tests: it compiles the document's schemas with a
// JSON Schema 2020-12 validator, validates real HTTP responses against the
// operation that answered them, and lists every response field the
// document promises.
package openapitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/zoneprice/zoneprice/contracts"
)

// base is the URI the document is known by inside the validator. It is
// never fetched: nothing is loaded from outside the document.
const base = "urn:zoneprice:openapi.json"

// methods are the operations a path item may hold.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Doc is the parsed document and a validator of its schemas.
type Doc struct {
	// Raw is the document as decoded JSON (numbers as json.Number).
	Raw map[string]any

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// Load parses and returns contracts.OpenAPI().
func Load(tb testing.TB) *Doc {
	tb.Helper()
	d, err := Parse(contracts.OpenAPI())
	if err != nil {
		tb.Fatalf("openapi.json: %v", err)
	}
	return d
}

// Parse parses an OpenAPI document.
func Parse(data []byte) (*Doc, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the document is not a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(base, raw); err != nil {
		return nil, err
	}
	return &Doc{Raw: raw, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
}

// Resolve returns the value a local reference ("#/components/schemas/X")
// points at.
func (d *Doc) Resolve(ref string) (any, error) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("%s: only local references are used", ref)
	}
	var cur any = d.Raw
	if ptr == "" {
		return cur, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%s: not a JSON pointer", ref)
	}
	for tok := range strings.SplitSeq(ptr[1:], "/") {
		tok, err := url.PathUnescape(tok)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("%s: no %q", ref, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("%s: no element %q", ref, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%s: %q is inside a scalar", ref, tok)
		}
	}
	return cur, nil
}

// object resolves ref to a JSON object.
func (d *Doc) object(ref string) (map[string]any, error) {
	v, err := d.Resolve(ref)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not an object", ref)
	}
	return m, nil
}

// follow resolves an OpenAPI Reference Object ({"$ref": …}) to what it
// names and returns that with its location; anything else is returned as
// it is, at loc.
func (d *Doc) follow(v map[string]any, loc string) (map[string]any, string, error) {
	for range 8 {
		ref, ok := v["$ref"].(string)
		if !ok {
			return v, loc, nil
		}
		next, err := d.object(ref)
		if err != nil {
			return nil, "", err
		}
		v, loc = next, ref
	}
	return nil, "", fmt.Errorf("%s: references nest too deep", loc)
}

// Refs returns every "$ref" in the document with where it is, sorted.
func (d *Doc) Refs() []Ref {
	var refs []Ref
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					refs = append(refs, Ref{At: at, Ref: s})
					continue
				}
				walk(x, at+"/"+pointerEscape(k))
			}
		case []any:
			for i, x := range v {
				walk(x, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(d.Raw, "#")
	slices.SortFunc(refs, func(a, b Ref) int { return strings.Compare(a.At, b.At) })
	return refs
}

// Ref is one "$ref" in the document.
type Ref struct {
	// At is the JSON pointer of the object holding it, Ref its value.
	At, Ref string
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Schema compiles the schema at a local reference, once.
func (d *Doc) Schema(ref string) (*jsonschema.Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.schemas[ref]; ok {
		return s, nil
	}
	s, err := d.compiler.Compile(base + ref)
	if err != nil {
		return nil, err
	}
	d.schemas[ref] = s
	return s, nil
}

// Operation is one method of one path.
type Operation struct {
	// Method is upper case ("GET"); Path is the template
	// ("/api/comparison/{zone}").
	Method, Path string
	// Ref is the operation's JSON pointer.
	Ref string
	// Object is the operation object.
	Object map[string]any
	// Parameters are the path item's and the operation's, resolved; the
	// operation's win by name and location.
	Parameters []Parameter
}

// Parameter is a resolved parameter object and where it is defined.
type Parameter struct {
	Name, In string
	Ref      string
	Object   map[string]any
}

// Operations returns every operation, by path.
func (d *Doc) Operations() ([]Operation, error) {
	paths, ok := d.Raw["paths"].(map[string]any)
	if !ok {
		return nil, errors.New("no paths")
	}
	var ops []Operation
	for _, path := range sortedKeys(paths) {
		loc := "#/paths/" + pointerEscape(path)
		item, ok := paths[path].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an object", loc)
		}
		shared, err := d.parameters(item["parameters"], loc+"/parameters")
		if err != nil {
			return nil, err
		}
		for _, m := range methods {
			obj, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			own, err := d.parameters(obj["parameters"], loc+"/"+m+"/parameters")
			if err != nil {
				return nil, err
			}
			params := slices.Clone(own)
			for _, p := range shared {
				if !slices.ContainsFunc(own, func(o Parameter) bool { return o.Name == p.Name && o.In == p.In }) {
					params = append(params, p)
				}
			}
			ops = append(ops, Operation{Method: strings.ToUpper(m), Path: path, Ref: loc + "/" + m, Object: obj, Parameters: params})
		}
	}
	return ops, nil
}

func (d *Doc) parameters(v any, loc string) ([]Parameter, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: not an array", loc)
	}
	var out []Parameter
	for i, p := range list {
		obj, ok := p.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s/%d: not an object", loc, i)
		}
		obj, at, err := d.follow(obj, loc+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		name, _ := obj["name"].(string)
		in, _ := obj["in"].(string)
		if name == "" || in == "" {
			return nil, fmt.Errorf("%s: a parameter needs name and in", at)
		}
		out = append(out, Parameter{Name: name, In: in, Ref: at, Object: obj})
	}
	return out, nil
}

// Operation returns the operation for method and path template.
func (d *Doc) Operation(method, path string) (Operation, error) {
	ops, err := d.Operations()
	if err != nil {
		return Operation{}, err
	}
	for _, op := range ops {
		if op.Method == strings.ToUpper(method) && op.Path == path {
			return op, nil
		}
	}
	return Operation{}, fmt.Errorf("%s %s is not documented", method, path)
}

// Response is a resolved response object.
type Response struct {
	// Ref is the JSON pointer of the response object.
	Ref string
	// Headers are the documented response headers by canonical name.
	Headers map[string]Header
	// Content maps each media type to the JSON pointer of its schema.
	Content map[string]string
}

// Header is a documented response header.
type Header struct {
	Name     string
	Required bool
	// Schema is the JSON pointer of the header's schema.
	Schema string
	// Integer is whether the schema's type is integer.
	Integer bool
}

// response returns the response op documents for status: the exact code,
// else its range ("4XX"), else "default".
func (op Operation) response(d *Doc, status int) (Response, error) {
	responses, ok := op.Object["responses"].(map[string]any)
	if !ok {
		return Response{}, fmt.Errorf("%s: no responses", op.Ref)
	}
	code := strconv.Itoa(status)
	for _, key := range []string{code, code[:1] + "XX", "default"} {
		if r, ok := responses[key].(map[string]any); ok {
			return d.responseAt(r, op.Ref+"/responses/"+key)
		}
	}
	return Response{}, fmt.Errorf("%s %s documents no %d response", op.Method, op.Path, status)
}

// Response returns what method and path template document for status.
func (d *Doc) Response(method, path string, status int) (Response, error) {
	op, err := d.Operation(method, path)
	if err != nil {
		return Response{}, err
	}
	return op.response(d, status)
}

// NamedResponse returns components/responses/name: the responses that
// every path may give (NotFound, MethodNotAllowed).
func (d *Doc) NamedResponse(name string) (Response, error) {
	ref := "#/components/responses/" + name
	r, err := d.object(ref)
	if err != nil {
		return Response{}, err
	}
	return d.responseAt(r, ref)
}

func (d *Doc) responseAt(r map[string]any, loc string) (Response, error) {
	r, loc, err := d.follow(r, loc)
	if err != nil {
		return Response{}, err
	}
	out := Response{Ref: loc, Headers: map[string]Header{}, Content: map[string]string{}}
	headers, _ := r["headers"].(map[string]any)
	for name, h := range headers {
		obj, ok := h.(map[string]any)
		if !ok {
			return Response{}, fmt.Errorf("%s/headers/%s: not an object", loc, name)
		}
		obj, at, err := d.follow(obj, loc+"/headers/"+pointerEscape(name))
		if err != nil {
			return Response{}, err
		}
		if _, ok := obj["schema"].(map[string]any); !ok {
			return Response{}, fmt.Errorf("%s: a header needs a schema", at)
		}
		schema, _, err := d.follow(obj["schema"].(map[string]any), at+"/schema")
		if err != nil {
			return Response{}, err
		}
		required, _ := obj["required"].(bool)
		out.Headers[http.CanonicalHeaderKey(name)] = Header{Name: name, Required: required, Schema: at + "/schema",
			Integer: schema["type"] == "integer"}
	}
	content, _ := r["content"].(map[string]any)
	for mt, m := range content {
		obj, ok := m.(map[string]any)
		if !ok {
			return Response{}, fmt.Errorf("%s/content/%s: not an object", loc, mt)
		}
		if _, ok := obj["schema"]; !ok {
			return Response{}, fmt.Errorf("%s/content/%s: no schema", loc, mt)
		}
		out.Content[mt] = loc + "/content/" + pointerEscape(mt) + "/schema"
	}
	return out, nil
}

// WhenGiven returns the schemas a 200 body must also match because the
// request gave query parameters that declare one ("x-when-given"), such as
// DomainListWithCost for years.
func (d *Doc) WhenGiven(op Operation, query url.Values) []string {
	var refs []string
	for _, p := range op.Parameters {
		if p.In != "query" || !query.Has(p.Name) {
			continue
		}
		if w, ok := p.Object["x-when-given"].(map[string]any); ok {
			if ref, ok := w["$ref"].(string); ok {
				refs = append(refs, ref)
			}
		}
	}
	return refs
}

// Check is what a response must match besides its documented response.
type Check struct {
	// Schemas are further schemas the body must match (WhenGiven).
	Schemas []string
	// Head is a HEAD request: the body must be empty.
	Head bool
}

// Undeclared are the response headers a document need not declare: those
// of HTTP's own framing and the content's type, which OpenAPI describes
// elsewhere (content) or not at all, and the date every server sends.
// Every other header a response carries must be declared on it.
var Undeclared = []string{"Date", "Content-Length", "Content-Type", "Connection", "Transfer-Encoding"}

// UndeclaredHeaders returns the names of the headers in h that r does not
// declare, but those of Undeclared, sorted.
func (r Response) UndeclaredHeaders(h http.Header) []string {
	var out []string
	for _, name := range sortedKeys(h) {
		if _, ok := r.Headers[name]; !ok && !slices.Contains(Undeclared, name) {
			out = append(out, name)
		}
	}
	return out
}

// Validate checks a real response against the documented one: its content
// type is documented (or, for a response without content, it has no
// body), every header it carries is declared (but Undeclared), every
// required header is present, every documented header present matches its
// schema, and the body matches the content's schema and ck.Schemas. body
// is the decoded body (gzip already undone).
func (d *Doc) Validate(r Response, resp *http.Response, body []byte, ck Check) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, name := range r.UndeclaredHeaders(resp.Header) {
		fail("header %s: sent, not declared by %s", name, r.Ref)
	}
	for name, h := range r.Headers {
		values := resp.Header.Values(name)
		if len(values) == 0 {
			if h.Required {
				fail("header %s: missing (required by %s)", name, r.Ref)
			}
			continue
		}
		s, err := d.Schema(h.Schema)
		if err != nil {
			fail("header %s: schema: %v", name, err)
			continue
		}
		for _, v := range values {
			var inst any = v
			if h.Integer {
				if _, err := strconv.ParseInt(v, 10, 64); err != nil {
					fail("header %s: %q is not an integer", name, v)
					continue
				}
				inst = json.Number(v)
			}
			if err := s.Validate(inst); err != nil {
				fail("header %s: %q: %v", name, v, err)
			}
		}
	}
	if len(r.Content) == 0 {
		if len(body) != 0 {
			fail("body: %d bytes, but %s documents none", len(body), r.Ref)
		}
		return errs
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		fail("content type %q: %v", ct, err)
		return errs
	}
	ref, ok := r.Content[mt]
	if !ok {
		fail("content type %q: %s documents %v", mt, r.Ref, sortedKeys(r.Content))
		return errs
	}
	if ck.Head {
		if len(body) != 0 {
			fail("HEAD: got a %d byte body", len(body))
		}
		return errs
	}
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return errs
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		fail("body is not JSON: %v", err)
		return errs
	}
	for _, ref := range append([]string{ref}, ck.Schemas...) {
		s, err := d.Schema(ref)
		if err != nil {
			fail("schema %s: %v", ref, err)
			continue
		}
		if err := s.Validate(inst); err != nil {
			fail("body against %s: %v", ref, err)
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
