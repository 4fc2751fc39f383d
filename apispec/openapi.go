package apispec

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// Options sets the document-level fields of generated documents.
type Options struct {
	// Title is info.title. Default: "API".
	Title string
	// Version is info.version. Default: the first resource's
	// metadata.version, else "0.0.0".
	Version string
	// Description is info.description.
	Description string
	// Servers are the server URLs, e.g. "/api" or "https://dns.example".
	Servers []string
	// Fragments are OpenAPI documents (YAML or JSON) merged into the
	// generated one: their paths, operations and components are added; an
	// operation that the resources also generate takes the fragment's
	// fields (responses code by code). A component defined differently on
	// both sides is an error.
	Fragments [][]byte
	// SecuredErrors are status codes of sharedErrors (e.g. 403, 429)
	// added to every operation that needs authentication, after the
	// fragments are merged; an operation's own response of that code
	// wins.
	SecuredErrors []string
	// AsyncFragments are AsyncAPI documents (YAML or JSON) merged into the
	// generated AsyncAPI document, recursively: maps are merged key by
	// key, and any other value of the fragment replaces the generated one.
	AsyncFragments [][]byte
}

// Document is a generated, validated OpenAPI 3.1 document.
type Document struct {
	t    *openapi3.T
	json []byte

	mu     sync.Mutex
	bodies map[string]*jsonschema.Schema
	// checks caches the request body checks by "METHOD template".
	checks map[string]bodyCheck
}

// T returns the kin-openapi form of the document. Callers must not
// modify it.
func (d *Document) T() *openapi3.T { return d.t }

// JSON returns the document as indented JSON.
func (d *Document) JSON() []byte { return slices.Clone(d.json) }

// YAML returns the document as YAML.
func (d *Document) YAML() []byte { return jsonToYAML(d.json) }

// Routes returns "METHOD path" for every operation, with the first
// server's path prepended (a server "/api" and a path "/v1/zones" give
// "GET /api/v1/zones"), sorted.
func (d *Document) Routes() []string {
	prefix := d.serverPath()
	var out []string
	for path, item := range d.t.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+prefix+path)
		}
	}
	sort.Strings(out)
	return out
}

// serverPath is the path of the first server URL, without a trailing slash.
func (d *Document) serverPath() string {
	if len(d.t.Servers) == 0 {
		return ""
	}
	u := d.t.Servers[0].URL
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			u = ""
		}
	}
	return strings.TrimSuffix(u, "/")
}

// OpenAPI generates the OpenAPI 3.1 document of the resources, merges the
// fragments in, and validates the result with kin-openapi.
func OpenAPI(rs []*Resource, opt Options) (*Document, error) {
	m := openAPIMap(rs, opt)
	for i, f := range opt.Fragments {
		var frag map[string]any
		if err := yaml.Unmarshal(f, &frag); err != nil {
			return nil, fmt.Errorf("fragment %d: %v", i+1, err)
		}
		frag, err := normalizeYAML(frag)
		if err != nil {
			return nil, fmt.Errorf("fragment %d: %v", i+1, err)
		}
		if err := mergeFragment(m, frag); err != nil {
			return nil, fmt.Errorf("fragment %d: %v", i+1, err)
		}
	}
	addSecuredErrors(m, opt.SecuredErrors)
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding the document: %v", err)
	}
	loader := openapi3.NewLoader()
	t, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("loading the generated document: %v", err)
	}
	if err := t.Validate(context.Background(), openapi3.IsOpenAPI31OrLater()); err != nil {
		return nil, fmt.Errorf("the generated document is not valid OpenAPI: %v", err)
	}
	out, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the document: %v", err)
	}
	return &Document{t: t, json: append(out, '\n'), bodies: map[string]*jsonschema.Schema{}, checks: map[string]bodyCheck{}}, nil
}

// info builds the info object shared by the generators.
func info(rs []*Resource, opt Options) map[string]any {
	title, version := opt.Title, opt.Version
	if title == "" {
		title = "API"
	}
	if version == "" {
		version = "0.0.0"
		if len(rs) > 0 && rs[0].Metadata.Version != "" {
			version = rs[0].Metadata.Version
		}
	}
	in := map[string]any{"title": title, "version": version}
	if opt.Description != "" {
		in["description"] = opt.Description
	}
	return in
}

// openAPIMap builds the document as plain maps.
// It is a little over 80 lines: one pass over the resources writing each
// top-level section of the document in order, which reads best whole.
func openAPIMap(rs []*Resource, opt Options) map[string]any {
	schemas := map[string]any{
		"Error": map[string]any{
			"type":                 "object",
			"description":          "The body of every error response.",
			"required":             []any{"error", "message"},
			"additionalProperties": false,
			"properties": map[string]any{
				"error":   map[string]any{"type": "string", "description": "The HTTP reason phrase, e.g. Bad Request."},
				"message": map[string]any{"type": "string", "description": "What went wrong and why."},
			},
		},
	}
	responses := map[string]any{}
	for _, e := range sharedErrors {
		if e.optional && !slices.Contains(opt.SecuredErrors, e.code) {
			continue
		}
		responses[e.name] = map[string]any{
			"description": e.description,
			"content":     jsonContent(ref("schemas", "Error")),
		}
	}
	components := map[string]any{"schemas": schemas, "responses": responses}
	schemes := map[string]any{}
	paths := map[string]any{}
	var tags []any

	for _, r := range rs {
		c := componentName(r.Kind)
		schemas[c] = cleanSchema(r.Schema.Items, false)
		if slices.Contains(r.Methods.Instance, "patch") {
			schemas[c+"Patch"] = cleanSchema(r.Schema.Items, true)
		}
		tag := map[string]any{"name": r.Kind}
		if r.Metadata.Description != "" {
			tag["description"] = r.Metadata.Description
		}
		tags = append(tags, tag)
		if r.Security != nil {
			for name, s := range r.Security.Scheme {
				schemes[name] = s
			}
		}
		if len(r.Methods.Resource) > 0 {
			item := map[string]any{}
			for _, m := range r.Methods.Resource {
				item[m] = operation(r, "resource", m)
			}
			paths[r.BasePath()] = item
		}
		if len(r.Methods.Instance) > 0 && r.Schema.Key != nil {
			k := r.Schema.Key
			p := map[string]any{"name": k.Name, "in": "path", "required": true, "schema": keySchema(k)}
			if k.Description != "" {
				p["description"] = k.Description
			}
			item := map[string]any{"parameters": []any{p}}
			for _, m := range r.Methods.Instance {
				item[m] = operation(r, "instance", m)
			}
			paths[r.InstancePath()] = item
		}
	}
	if len(schemes) > 0 {
		components["securitySchemes"] = schemes
	}
	doc := map[string]any{
		"openapi":    "3.1.0",
		"info":       info(rs, opt),
		"paths":      paths,
		"components": components,
	}
	if len(tags) > 0 {
		doc["tags"] = tags
	}
	if len(opt.Servers) > 0 {
		var ss []any
		for _, s := range opt.Servers {
			ss = append(ss, map[string]any{"url": s})
		}
		doc["servers"] = ss
	}
	return doc
}

// sharedErrors are the error responses in components.responses.
// Optional ones are in components only when Options.SecuredErrors names
// them.
var sharedErrors = []struct {
	code, name, description string
	optional                bool
}{
	{"400", "BadRequest", "The request is malformed or fails validation.", false},
	{"401", "Unauthorized", "The bearer token is missing, malformed, unknown or expired.", false},
	{"403", "Forbidden", "The token is valid, but its scope does not allow this request; the message names what is missing.", true},
	{"404", "NotFound", "No such resource.", false},
	{"409", "Conflict", "The resource already exists or is in a conflicting state.", false},
	{"429", "TooManyRequests", "A rate limit was exceeded; Retry-After says when to try again.", true},
	{"500", "InternalError", "The server or the name server failed.", false},
}

// addSecuredErrors adds the shared error responses of codes to every
// operation of m that has a non-empty security requirement.
func addSecuredErrors(m map[string]any, codes []string) {
	paths, _ := m["paths"].(map[string]any)
	for _, item := range paths {
		ops, _ := item.(map[string]any)
		for _, op := range ops {
			o, ok := op.(map[string]any)
			if !ok {
				continue
			}
			sec, _ := o["security"].([]any)
			if len(sec) == 0 {
				continue
			}
			res, _ := o["responses"].(map[string]any)
			if res == nil {
				continue
			}
			for _, c := range codes {
				if _, has := res[c]; !has {
					res[c] = errorResponse(c)
				}
			}
		}
	}
}

func errorResponse(code string) map[string]any {
	for _, e := range sharedErrors {
		if e.code == code {
			return ref("responses", e.name)
		}
	}
	panic("no shared error response " + code)
}

// operation builds one operation of a resource.
func operation(r *Resource, level, method string) map[string]any {
	c := componentName(r.Kind)
	plural := pluralName(r.Kind)
	op := map[string]any{"tags": []any{r.Kind}}
	res := map[string]any{"500": errorResponse("500")}
	var summary, id string
	var params []any
	if level == "resource" {
		switch method {
		case "get":
			id, summary = "list"+plural, "List "+r.Kind
			res["200"] = map[string]any{"description": "The " + r.Kind + ".", "content": jsonContent(map[string]any{"type": "array", "items": ref("schemas", c)})}
		case "post":
			id, summary = "create"+c, "Create one of "+r.Kind
			op["requestBody"] = map[string]any{"required": true, "content": jsonContent(ref("schemas", c))}
			res["201"] = map[string]any{
				"description": "Created.",
				"headers":     map[string]any{"Location": map[string]any{"description": "The new instance's path.", "schema": map[string]any{"type": "string"}}},
				"content":     jsonContent(ref("schemas", c)),
			}
			res["400"] = errorResponse("400")
			res["409"] = errorResponse("409")
		case "delete":
			id, summary = "deleteAll"+plural, "Delete all "+r.Kind
			res["204"] = map[string]any{"description": "Deleted."}
		}
		params = queryParams(r, method)
	} else {
		res["404"] = errorResponse("404")
		switch method {
		case "get":
			id, summary = "get"+c, "Get one of "+r.Kind
			res["200"] = map[string]any{"description": "The " + c + ".", "content": jsonContent(ref("schemas", c))}
		case "put":
			id, summary = "replace"+c, "Replace one of "+r.Kind
			op["requestBody"] = map[string]any{"required": true, "content": jsonContent(ref("schemas", c))}
			res["200"] = map[string]any{"description": "Replaced.", "content": jsonContent(ref("schemas", c))}
			res["400"] = errorResponse("400")
		case "patch":
			id, summary = "update"+c, "Update one of "+r.Kind
			op["requestBody"] = map[string]any{
				"required":    true,
				"description": "A JSON Merge Patch (RFC 7396): the members to change; null removes a member.",
				"content":     map[string]any{"application/merge-patch+json": map[string]any{"schema": ref("schemas", c+"Patch")}},
			}
			res["200"] = map[string]any{"description": "Updated.", "content": jsonContent(ref("schemas", c))}
			res["400"] = errorResponse("400")
		case "delete":
			id, summary = "delete"+c, "Delete one of "+r.Kind
			res["204"] = map[string]any{"description": "Deleted."}
		}
	}
	if method == "get" {
		params = addDefaultParams(params, r.defaultParams())
	}
	if len(params) > 0 {
		op["parameters"] = params
		res["400"] = errorResponse("400")
	}
	descs := r.Descriptions.Resource
	if level == "instance" {
		descs = r.Descriptions.Instance
	}
	if d := descs[method]; d != "" {
		summary = d
	}
	op["operationId"] = id
	op["summary"] = summary
	if reqs := securityFor(r, level, method); reqs != nil {
		op["security"] = reqs
		res["401"] = errorResponse("401")
	}
	op["responses"] = res
	return op
}

// queryParams returns the collection parameters that apply to method.
func queryParams(r *Resource, method string) []any {
	var out []any
	for _, q := range r.Schema.QueryParams {
		if len(q.Methods) > 0 && !slices.Contains(q.Methods, method) {
			continue
		}
		out = append(out, param(q))
	}
	return out
}

// addDefaultParams appends the default parameters whose names are not
// taken yet.
func addDefaultParams(params []any, defaults []QueryParam) []any {
	have := map[string]bool{}
	for _, p := range params {
		have[p.(map[string]any)["name"].(string)] = true
	}
	for _, q := range defaults {
		if !have[q.Name] {
			params = append(params, param(q))
			have[q.Name] = true
		}
	}
	return params
}

func param(q QueryParam) map[string]any {
	p := map[string]any{"name": q.Name, "in": "query", "schema": cleanSchema(q.Schema, false)}
	if q.Description != "" {
		p["description"] = q.Description
	}
	if q.Required {
		p["required"] = true
	}
	return p
}

// securityFor returns the operation's security requirements: one per
// scheme of the resource, so that any one of them suffices; nil when the
// operation is public.
func securityFor(r *Resource, level, method string) []any {
	s := r.Security
	if s == nil {
		return nil
	}
	all := len(s.Resource) == 0 && len(s.Instance) == 0
	list := s.Resource
	if level == "instance" {
		list = s.Instance
	}
	if !all && !slices.Contains(list, method) {
		return nil
	}
	var reqs []any
	for _, name := range sortedKeys(s.Scheme) {
		reqs = append(reqs, map[string]any{name: []any{}})
	}
	return reqs
}

func keySchema(k *Key) map[string]any {
	if k.Schema == nil {
		return map[string]any{"type": "string"}
	}
	return cleanSchema(k.Schema, false)
}

func ref(section, name string) map[string]any {
	return map[string]any{"$ref": "#/components/" + section + "/" + name}
}

func jsonContent(schema map[string]any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

// cleanSchema deep-copies a schema without firestone's non-schema keys
// (expose), and, for patch schemas, without required lists.
func cleanSchema(s map[string]any, patch bool) map[string]any {
	out, _ := cleanValue(s, patch).(map[string]any)
	return out
}

func cleanValue(v any, patch bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k == "expose" || (patch && k == "required") {
				continue
			}
			if k == "properties" {
				props := map[string]any{}
				for pn, ps := range x.(map[string]any) {
					props[pn] = cleanValue(ps, patch)
				}
				out[k] = props
				continue
			}
			if k == "default" || k == "enum" || k == "const" || k == "examples" {
				out[k] = x // data, not schemas
				continue
			}
			out[k] = cleanValue(x, patch)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cleanValue(x, patch)
		}
		return out
	}
	return v
}

// mergeFragment merges an OpenAPI fragment into the generated document.
func mergeFragment(doc, frag map[string]any) error {
	for key, fv := range frag {
		switch key {
		case "openapi", "info", "jsonSchemaDialect":
			continue
		case "paths":
			paths := doc["paths"].(map[string]any)
			for p, fi := range asMap(fv) {
				item, ok := paths[p].(map[string]any)
				if !ok {
					paths[p] = fi
					continue
				}
				for m, fop := range asMap(fi) {
					op, ok := item[m].(map[string]any)
					if !ok {
						item[m] = fop
						continue
					}
					for k, x := range asMap(fop) {
						if k == "responses" {
							rs := op["responses"].(map[string]any)
							for code, resp := range asMap(x) {
								if resp == nil {
									delete(rs, code) // the fragment removes a generated response
									continue
								}
								rs[code] = resp
							}
							continue
						}
						op[k] = x
					}
				}
			}
		case "components":
			comps := doc["components"].(map[string]any)
			for section, fs := range asMap(fv) {
				sec, ok := comps[section].(map[string]any)
				if !ok {
					sec = map[string]any{}
					comps[section] = sec
				}
				for name, def := range asMap(fs) {
					if old, ok := sec[name]; ok && !jsonEqual(old, def) {
						return fmt.Errorf("components.%s.%s is defined differently by the resources and the fragment", section, name)
					}
					sec[name] = def
				}
			}
		case "tags":
			have := map[string]bool{}
			tags, _ := doc["tags"].([]any)
			for _, t := range tags {
				have[asMap(t)["name"].(string)] = true
			}
			for _, t := range fv.([]any) {
				if n, _ := asMap(t)["name"].(string); !have[n] {
					tags = append(tags, t)
				}
			}
			doc["tags"] = tags
		default:
			doc[key] = fv
		}
	}
	return nil
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// normalizeYAML turns a yaml.v3-decoded value into JSON-compatible maps.
func normalizeYAML(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	err = json.Unmarshal(b, &out)
	return out, err
}

// jsonToYAML re-encodes a JSON document as YAML (keys sorted).
func jsonToYAML(b []byte) []byte {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return nil
	}
	return out
}
