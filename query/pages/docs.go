package pages

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
)

// docsPage is /docs, made from the OpenAPI document the API serves: its
// introduction, and for every tag its operations with their parameters,
// responses and the fields of their bodies. Nothing on it is written twice:
// a field the document gains appears here with the next build.
type docsPage struct {
	body *cache.Body
}

// Docs serves /docs. The page is part of the build, like the document: it
// is made once, in New, and served before the pod is ready.
func (p *Pages) Docs() echo.HandlerFunc {
	return func(c *echo.Context) error {
		return p.write(c, p.docs.body)
	}
}

// The OpenAPI document as the docs page reads it; schemas stay generic, as
// they nest and refer to each other.
type (
	openapiDoc struct {
		Info struct {
			Title, Version, Summary, Description string
		} `json:"info"`
		Tags []struct {
			Name, Description string
		} `json:"tags"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]parameterJSON  `json:"parameters"`
			Responses  map[string]responseJSON   `json:"responses"`
			Schemas    map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	operationJSON struct {
		OperationID string                  `json:"operationId"`
		Tags        []string                `json:"tags"`
		Summary     string                  `json:"summary"`
		Description string                  `json:"description"`
		Parameters  []parameterJSON         `json:"parameters"`
		RequestBody *responseJSON           `json:"requestBody"`
		Responses   map[string]responseJSON `json:"responses"`
	}
	parameterJSON struct {
		Ref         string         `json:"$ref"`
		Name        string         `json:"name"`
		In          string         `json:"in"`
		Required    bool           `json:"required"`
		Description string         `json:"description"`
		Schema      map[string]any `json:"schema"`
		Example     any            `json:"example"`
	}
	responseJSON struct {
		Ref         string `json:"$ref"`
		Description string `json:"description"`
		Content     map[string]struct {
			Schema map[string]any `json:"schema"`
		} `json:"content"`
	}
)

type docsView struct {
	Head
	Title, Version, Summary string
	Intro                   []block
	Sections                []docsSection
}

type docsSection struct {
	ID, Name    string
	Description template.HTML
	Ops         []docsOp
}

type docsOp struct {
	ID, Method, Path, Example, Summary string
	Description                        []block
	Params                             []docsParam
	Request                            []docsField
	Responses                          []docsResponse
	Fields                             []docsField
}

type docsParam struct {
	Name, In, Type, Example string
	Required                bool
	Description             template.HTML
}

type docsResponse struct {
	Status      string
	Description template.HTML
}

type docsField struct {
	Name, Type  string
	Description template.HTML
}

// block is a paragraph, heading, list or table of the document's
// Markdown, the little of it the descriptions use.
type block struct {
	Heading   template.HTML
	Paragraph template.HTML
	List      []template.HTML
	Table     [][]template.HTML
}

// methods are the operations shown, in this order; HEAD repeats GET
// without a body, and OPTIONS is the CORS preflight.
var methods = []string{"get", "post", "put", "patch", "delete"}

func newDocsPage(p *Pages, raw []byte) (docsPage, error) {
	var d openapiDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		return docsPage{}, fmt.Errorf("read the OpenAPI document: %w", err)
	}
	v := docsView{
		Head:  Head{Title: "API documentation", Description: d.Info.Summary, Nav: "docs"},
		Title: d.Info.Title, Version: d.Info.Version, Summary: d.Info.Summary,
		Intro: blocks(d.Info.Description),
	}
	paths := make([]string, 0, len(d.Paths))
	for path := range d.Paths {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, tag := range d.Tags {
		sec := docsSection{ID: "tag-" + tag.Name, Name: tag.Name, Description: inline(tag.Description)}
		for _, path := range paths {
			item := d.Paths[path]
			var shared []parameterJSON
			if raw, ok := item["parameters"]; ok {
				if err := json.Unmarshal(raw, &shared); err != nil {
					return docsPage{}, fmt.Errorf("%s parameters: %w", path, err)
				}
			}
			for _, m := range methods {
				raw, ok := item[m]
				if !ok {
					continue
				}
				var op operationJSON
				if err := json.Unmarshal(raw, &op); err != nil {
					return docsPage{}, fmt.Errorf("%s %s: %w", m, path, err)
				}
				if !slices.Contains(op.Tags, tag.Name) {
					continue
				}
				sec.Ops = append(sec.Ops, d.operation(m, path, op, append(slices.Clone(shared), op.Parameters...)))
			}
		}
		v.Sections = append(v.Sections, sec)
	}
	b, err := p.render("docs.html", v)
	if err != nil {
		return docsPage{}, err
	}
	return docsPage{body: cache.NewBody(b, time.Time{})}, nil
}

func (d *openapiDoc) operation(method, path string, op operationJSON, params []parameterJSON) docsOp {
	o := docsOp{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Summary: op.Summary, Description: blocks(op.Description)}
	example := path
	var query []string
	for _, p := range params {
		if p.Ref != "" {
			p = d.Components.Parameters[refName(p.Ref)]
		}
		if p.In == "header" {
			continue // the conditional, compression and request id headers every route takes
		}
		dp := docsParam{Name: p.Name, In: p.In, Required: p.Required, Type: d.typeOf(p.Schema), Description: inline(p.Description)}
		if p.Example != nil {
			dp.Example = fmt.Sprint(p.Example)
		}
		switch {
		case p.In == "path":
			example = strings.ReplaceAll(example, "{"+p.Name+"}", dp.Example)
		case p.In == "query" && dp.Example != "" && len(query) < 2 && p.Name != "cursor":
			query = append(query, p.Name+"="+dp.Example)
		}
		o.Params = append(o.Params, dp)
	}
	if len(query) > 0 {
		example += "?" + strings.Join(query, "&")
	}
	o.Example = o.Method + " " + example
	if op.RequestBody != nil {
		if s := d.bodySchema(*op.RequestBody); s != nil {
			d.fields(s, "", 0, nil, &o.Request)
		}
	}
	statuses := make([]string, 0, len(op.Responses))
	for s := range op.Responses {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	for _, s := range statuses {
		r := op.Responses[s]
		if r.Ref != "" {
			r = d.Components.Responses[refName(r.Ref)]
		}
		o.Responses = append(o.Responses, docsResponse{Status: s, Description: inline(firstSentence(r.Description))})
		if strings.HasPrefix(s, "2") && o.Fields == nil {
			if schema := d.bodySchema(r); schema != nil {
				d.fields(schema, "", 0, nil, &o.Fields)
			}
		}
	}
	return o
}

// bodySchema is a response's or request's JSON schema, nil without one.
func (d *openapiDoc) bodySchema(r responseJSON) map[string]any {
	if r.Ref != "" {
		r = d.Components.Responses[refName(r.Ref)]
	}
	for ct, c := range r.Content {
		if strings.Contains(ct, "json") {
			return c.Schema
		}
	}
	return nil
}

func refName(ref string) string { return ref[strings.LastIndexByte(ref, '/')+1:] }

// resolve follows a schema's $ref, and says which schema it named.
func (d *openapiDoc) resolve(s map[string]any) (map[string]any, string) {
	name := ""
	for range 8 {
		ref, ok := s["$ref"].(string)
		if !ok {
			break
		}
		name = refName(ref)
		s = d.Components.Schemas[name]
	}
	return s, name
}

// typeOf names a schema's type for people: "string", "integer or null",
// "array of Minimum", "one of: …".
func (d *openapiDoc) typeOf(s map[string]any) string {
	if s == nil {
		return ""
	}
	s, name := d.resolve(s)
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			types = append(types, fmt.Sprint(x))
		}
	}
	for i, t := range types {
		switch {
		case t == "array":
			if items, ok := s["items"].(map[string]any); ok {
				types[i] = "array of " + d.typeOf(items)
			}
		case t == "object" && name != "":
			types[i] = name
		}
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok {
			for _, a := range alts {
				if am, ok := a.(map[string]any); ok {
					types = append(types, d.typeOf(am))
				}
			}
		}
	}
	out := strings.Join(types, " or ")
	if enum, ok := s["enum"].([]any); ok {
		vals := make([]string, len(enum))
		for i, e := range enum {
			vals[i] = fmt.Sprint(e)
		}
		out += ": " + strings.Join(vals, ", ")
	}
	return out
}

// fields lists an object schema's properties, those of nested objects and
// of arrays' items under dotted names ("zones[].min.register"), the
// required ones first in the document's order. A schema met again below
// itself is not expanded twice.
func (d *openapiDoc) fields(s map[string]any, prefix string, depth int, seen []string, out *[]docsField) {
	s, name := d.resolve(s)
	if name != "" {
		if slices.Contains(seen, name) {
			return
		}
		seen = append(seen, name)
	}
	if items, ok := s["items"].(map[string]any); ok {
		d.fields(items, prefix+"[]", depth, seen, out)
		return
	}
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 || depth > 4 {
		return
	}
	var order []string
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			order = append(order, fmt.Sprint(r))
		}
	}
	var rest []string
	for k := range props {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range append(order, rest...) {
		ps, ok := props[k].(map[string]any)
		if !ok {
			continue
		}
		desc, _ := ps["description"].(string)
		if desc == "" {
			r, _ := d.resolve(ps)
			desc, _ = r["description"].(string)
		}
		full := k
		if prefix != "" {
			full = prefix + "." + k
		}
		*out = append(*out, docsField{Name: full, Type: d.typeOf(ps), Description: inline(desc)})
		d.fields(ps, full, depth+1, seen, out)
	}
}

// firstSentence is a description's first sentence: the response table
// shows what each status means, the rest is in the descriptions above.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	link     = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^)\s"]+)\)`)
)

// inline is Markdown's inline code and links, escaped: the text is
// escaped first, so only the markup this makes is HTML.
func inline(s string) template.HTML {
	e := html.EscapeString(s)
	e = codeSpan.ReplaceAllString(e, "<code>$1</code>")
	e = link.ReplaceAllString(e, `<a href="$2">$1</a>`)
	return template.HTML(e) //nolint:gosec // built from escaped text
}

// blocks reads the Markdown of a description: paragraphs, "## " headings,
// "- " lists and "|" tables.
func blocks(md string) []block {
	var out []block
	for part := range strings.SplitSeq(strings.TrimSpace(md), "\n\n") {
		part = strings.TrimSpace(part)
		lines := strings.Split(part, "\n")
		switch {
		case part == "":
		case strings.HasPrefix(part, "#"):
			out = append(out, block{Heading: inline(strings.TrimSpace(strings.TrimLeft(part, "#")))})
		case strings.HasPrefix(part, "- "):
			var b block
			for _, l := range lines {
				if item, ok := strings.CutPrefix(l, "- "); ok {
					b.List = append(b.List, inline(item))
				} else if n := len(b.List); n > 0 {
					b.List[n-1] += " " + inline(strings.TrimSpace(l))
				}
			}
			out = append(out, b)
		case strings.HasPrefix(part, "|"):
			var b block
			for _, l := range lines {
				cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
				if strings.Trim(l, "|- :") == "" {
					continue // the header's rule
				}
				row := make([]template.HTML, len(cells))
				for i, c := range cells {
					row[i] = inline(strings.TrimSpace(c))
				}
				b.Table = append(b.Table, row)
			}
			out = append(out, b)
		default:
			out = append(out, block{Paragraph: inline(strings.Join(lines, " "))})
		}
	}
	return out
}
