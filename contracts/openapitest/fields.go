package openapitest

import (
	"fmt"
	"mime"
	"slices"
	"strings"
)

// Fields lists every response body field the document describes, one
// entry per field and response: "GET /api/domains 200
// zones[].min.register.price", "[]" marking array elements. Only GET is
// listed, as HEAD answers the same without a body; fields of every schema a
// response may match are included, present always or only sometimes.
func (d *Doc) Fields() ([]string, error) {
	ops, err := d.Operations()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, op := range ops {
		if op.Method != "GET" {
			continue
		}
		responses, _ := op.Object["responses"].(map[string]any)
		for _, status := range sortedKeys(responses) {
			obj, ok := responses[status].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/responses/%s: not an object", op.Ref, status)
			}
			r, err := d.responseAt(obj, op.Ref+"/responses/"+status)
			if err != nil {
				return nil, err
			}
			for mt, ref := range r.Content {
				if m, _, err := mime.ParseMediaType(mt); err != nil || (m != "application/json" && !strings.HasSuffix(m, "+json")) {
					continue
				}
				node, err := d.object(ref)
				if err != nil {
					return nil, err
				}
				prefix := op.Method + " " + op.Path + " " + status + " "
				if err := d.fields(node, ref, "", 0, func(field string) { seen[prefix+field] = true }); err != nil {
					return nil, err
				}
			}
		}
	}
	out := sortedKeys(seen)
	slices.Sort(out)
	return out, nil
}

// fields calls add with the path of every property below node, which is
// at loc and describes the value at path.
func (d *Doc) fields(node map[string]any, loc, path string, depth int, add func(string)) error {
	if depth > 32 {
		return fmt.Errorf("%s: schemas nest too deep (a recursive schema?)", loc)
	}
	if ref, ok := node["$ref"].(string); ok {
		target, err := d.object(ref)
		if err != nil {
			return fmt.Errorf("%s: %w", loc, err)
		}
		if err := d.fields(target, ref, path, depth+1, add); err != nil {
			return err
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := node[kw].([]any)
		for i, sub := range list {
			if m, ok := sub.(map[string]any); ok {
				if err := d.fields(m, fmt.Sprintf("%s/%s/%d", loc, kw, i), path, depth+1, add); err != nil {
					return err
				}
			}
		}
	}
	props, _ := node["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		p := name
		if path != "" {
			p = path + "." + name
		}
		add(p)
		if m, ok := props[name].(map[string]any); ok {
			if err := d.fields(m, loc+"/properties/"+pointerEscape(name), p, depth+1, add); err != nil {
				return err
			}
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		return d.fields(items, loc+"/items", path+"[]", depth+1, add)
	}
	return nil
}
