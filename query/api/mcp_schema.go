package api

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// openAPIDoc is what the MCP tools take from the API's OpenAPI document:
// each route's parameters, which become its tool's arguments, and its
// answer's schema, which becomes its tool's output schema. The tools can
// then never say other than the API.
type openAPIDoc struct {
	version string
	// params are each path's query and path parameters, by name.
	params map[string]map[string]openAPIParam
	// defs are the document's component schemas, their references
	// rewritten for a self-contained JSON Schema ($defs).
	defs json.RawMessage
	raw  map[string]any
}

// openAPIParam is one argument of a tool: one parameter of its route.
type openAPIParam struct {
	in       string // "query" or "path"
	kind     string // its schema's type: string, integer, array
	required bool
	schema   map[string]any
}

func newOpenAPIDoc(doc []byte) (*openAPIDoc, error) {
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	d := &openAPIDoc{raw: raw, params: map[string]map[string]openAPIParam{}}
	d.version, _ = get(raw, "info", "version").(string)
	schemas, err := json.Marshal(get(raw, "components", "schemas"))
	if err != nil {
		return nil, err
	}
	d.defs = json.RawMessage(strings.ReplaceAll(string(schemas), `"#/components/schemas/`, `"#/$defs/`))
	for _, r := range mcpRoutes {
		if d.params[r.path], err = d.routeParams(r.path); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// get walks m by keys; nil where a key is missing.
func get(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

// resolve follows a local $ref.
func (d *openAPIDoc) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil && m["$ref"] != nil {
		ref, _ := m["$ref"].(string)
		m, _ = get(d.raw, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...).(map[string]any)
	}
	return m
}

// routeParams are path's query and path parameters, the path's own and
// its GET's.
func (d *openAPIDoc) routeParams(path string) (map[string]openAPIParam, error) {
	item, _ := get(d.raw, "paths", path).(map[string]any)
	if item == nil {
		return nil, fmt.Errorf("openapi document: no path %s", path)
	}
	out := map[string]openAPIParam{}
	lists := []any{item["parameters"], get(item, "get", "parameters")}
	for _, list := range lists {
		ps, _ := list.([]any)
		for _, v := range ps {
			p := d.resolve(v)
			name, _ := p["name"].(string)
			in, _ := p["in"].(string)
			if in != "query" && in != "path" || name == "format" {
				continue // a tool's result is the JSON body, never CSV
			}
			schema := d.resolve(p["schema"])
			kind, _ := schema["type"].(string)
			prop := map[string]any{}
			for k, v := range schema {
				prop[k] = v
			}
			if desc, ok := p["description"].(string); ok {
				prop["description"] = desc
			}
			out[name] = openAPIParam{in: in, kind: kind, required: in == "path", schema: prop}
		}
	}
	return out, nil
}

// tool is r's tool: its arguments' schema from its route's parameters,
// its output's from the route's 200 answer.
func (d *openAPIDoc) tool(r mcpRoute) (*sdk.Tool, error) {
	props := map[string]any{}
	required := []string{}
	for name, p := range d.params[r.path] {
		props[name] = p.schema
		if p.required {
			required = append(required, name)
		}
	}
	input := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	ok := d.resolve(get(d.raw, "paths", r.path, "get", "responses", "200"))
	ref, _ := get(ok, "content", "application/json", "schema", "$ref").(string)
	if ref == "" {
		return nil, fmt.Errorf("openapi document: %s answers no JSON schema by reference", r.path)
	}
	output := map[string]any{"$ref": strings.Replace(ref, "#/components/schemas/", "#/$defs/", 1), "$defs": d.defs}
	summary, _ := get(d.raw, "paths", r.path, "get", "summary").(string)
	return &sdk.Tool{Name: r.name, Title: summary, Description: r.description + mcpGuide, InputSchema: input, OutputSchema: output,
		Annotations: &sdk.ToolAnnotations{Title: summary, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}}, nil
}
