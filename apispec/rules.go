package apispec

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The methods each level supports. post creates in the collection; put
// replaces and patch merges one instance.
var (
	resourceMethods = []string{"get", "post", "delete"}
	instanceMethods = []string{"get", "put", "patch", "delete"}
)

// checkRules applies the rules the meta-schema does not state.
func checkRules(r *Resource) ErrorList {
	var errs ErrorList
	fail := func(ptr, format string, args ...any) {
		p := r.pos.at(ptr)
		errs = append(errs, Error{File: r.File, Line: p.line, Column: p.col, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}

	for i, m := range r.Methods.Resource {
		if !slices.Contains(resourceMethods, m) {
			fail(pointer("methods", "resource", strconv.Itoa(i)), "%s is not a collection method (collection: %s); put and patch belong in methods.instance", m, strings.Join(resourceMethods, ", "))
		}
	}
	for i, m := range r.Methods.Instance {
		if !slices.Contains(instanceMethods, m) {
			fail(pointer("methods", "instance", strconv.Itoa(i)), "%s is not an instance method (instance: %s); post belongs in methods.resource", m, strings.Join(instanceMethods, ", "))
		}
	}

	if r.Metadata.VersionInPath != nil && r.VersionInPathAlias != nil && *r.Metadata.VersionInPath != *r.VersionInPathAlias {
		fail("/versionInPath", "versionInPath contradicts metadata.version_in_path")
	}

	for level, descs := range map[string]map[string]string{"resource": r.Descriptions.Resource, "instance": r.Descriptions.Instance} {
		for m := range descs {
			if !slices.Contains(r.levelMethods(level), m) {
				fail(pointer("descriptions", level, m), "description for %s, which methods.%s does not list", m, level)
			}
		}
	}

	if k := r.Schema.Key; k != nil && k.Schema != nil {
		if t, ok := k.Schema["type"].(string); ok && t != "string" && t != "integer" && t != "number" {
			fail("/schema/key/schema/type", "a key is a path segment: its type must be string, integer or number, not %s", t)
		}
	}

	checkRequired(r.Schema.Items, "/schema/items", fail)

	checkParams := func(list []QueryParam, base string, isDefault bool) {
		seen := map[string]bool{}
		for i, q := range list {
			ptr := base + "/" + strconv.Itoa(i)
			if seen[q.Name] {
				fail(ptr+"/name", "duplicate query parameter %q", q.Name)
			}
			seen[q.Name] = true
			if q.Default != nil && q.Schema != nil {
				if _, ok := q.Schema["default"]; ok {
					fail(ptr+"/default", "default is given both here and in schema")
				}
			}
			if isDefault && len(q.Methods) > 0 {
				fail(ptr+"/methods", "default_query_params apply to every GET; methods is not allowed here")
			}
			for j, m := range q.Methods {
				if !slices.Contains(r.Methods.Resource, m) {
					fail(ptr+"/methods/"+strconv.Itoa(j), "query parameter %q names %s, which methods.resource does not list", q.Name, m)
				}
			}
			checkRequired(q.Schema, ptr+"/schema", fail)
		}
	}
	checkParams(r.Schema.QueryParams, "/schema/query_params", false)
	checkParams(r.Schema.DefaultQueryParams, "/schema/default_query_params", true)
	checkParams(r.DefaultQueryParamsAlias, "/default_query_params", true)

	if s := r.Security; s != nil {
		for level, list := range map[string][]string{"resource": s.Resource, "instance": s.Instance} {
			for i, m := range list {
				if !slices.Contains(r.levelMethods(level), m) {
					fail(pointer("security", level, strconv.Itoa(i)), "security lists %s, which methods.%s does not list", m, level)
				}
			}
		}
	}
	return errs
}

// levelMethods returns the methods of "resource" or "instance".
func (r *Resource) levelMethods(level string) []string {
	if level == "resource" {
		return r.Methods.Resource
	}
	return r.Methods.Instance
}

// checkRequired reports required names that are not properties, in an
// item schema and its nested object schemas.
func checkRequired(s map[string]any, ptr string, fail func(string, string, ...any)) {
	if s == nil {
		return
	}
	props, _ := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok && props != nil {
		for i, n := range req {
			name, _ := n.(string)
			if _, ok := props[name]; !ok {
				fail(ptr+"/required/"+strconv.Itoa(i), "required names %q, which is not in properties", name)
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if sub, ok := props[n].(map[string]any); ok {
			checkRequired(sub, ptr+"/properties/"+escape(n), fail)
		}
	}
	if sub, ok := s["items"].(map[string]any); ok {
		checkRequired(sub, ptr+"/items", fail)
	}
	if sub, ok := s["additionalProperties"].(map[string]any); ok {
		checkRequired(sub, ptr+"/additionalProperties", fail)
	}
}

// crossCheck finds conflicts between resources: a kind or component name
// used twice, and a security scheme name with two definitions.
func crossCheck(rs []*Resource) ErrorList {
	var errs ErrorList
	kinds := map[string]*Resource{}
	comps := map[string]*Resource{}
	type def struct {
		r   *Resource
		def map[string]any
	}
	schemes := map[string]def{}
	for _, r := range rs {
		p := r.pos.at("/kind")
		if o, ok := kinds[r.BasePath()]; ok {
			errs = append(errs, Error{File: r.File, Line: p.line, Column: p.col, Pointer: "/kind", Message: fmt.Sprintf("path %s is already defined by %s", r.BasePath(), o.File)})
		} else {
			kinds[r.BasePath()] = r
			c := componentName(r.Kind)
			if o, ok := comps[c]; ok {
				errs = append(errs, Error{File: r.File, Line: p.line, Column: p.col, Pointer: "/kind", Message: fmt.Sprintf("kind %q gives the component name %s, which %s's kind %q gives too", r.Kind, c, o.File, o.Kind)})
			}
			comps[c] = r
		}
		if r.Security == nil {
			continue
		}
		for _, name := range sortedKeys(r.Security.Scheme) {
			d := r.Security.Scheme[name]
			if o, ok := schemes[name]; ok && !reflect.DeepEqual(o.def, d) {
				ptr := pointer("security", "scheme", name)
				p := r.pos.at(ptr)
				errs = append(errs, Error{File: r.File, Line: p.line, Column: p.col, Pointer: ptr, Message: fmt.Sprintf("security scheme %q differs from its definition in %s", name, o.r.File)})
				continue
			}
			schemes[name] = def{r, d}
		}
	}
	return errs
}

// normalize applies aliases: a parameter-level default moves into the
// parameter's schema.
func normalize(r *Resource) {
	fix := func(list []QueryParam) {
		for i := range list {
			q := &list[i]
			if q.Schema == nil {
				q.Schema = map[string]any{"type": "string"}
			}
			if q.Default != nil {
				q.Schema["default"] = q.Default
				q.Default = nil
			}
			q.In = ""
		}
	}
	fix(r.Schema.QueryParams)
	fix(r.Schema.DefaultQueryParams)
	fix(r.DefaultQueryParamsAlias)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// componentName derives the item component's name from a kind: PascalCase
// of its words (split at - and _), with the last word singularised.
func componentName(kind string) string {
	words := strings.FieldsFunc(kind, func(r rune) bool { return r == '-' || r == '_' })
	if len(words) == 0 {
		return "Item"
	}
	words[len(words)-1] = singular(words[len(words)-1])
	return pascal(words)
}

// pluralName is the kind in PascalCase, e.g. PostalCodes.
func pluralName(kind string) string {
	return pascal(strings.FieldsFunc(kind, func(r rune) bool { return r == '-' || r == '_' }))
}

func pascal(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]))
		b.WriteString(w[1:])
	}
	return b.String()
}

// singular is a small English singulariser: it handles -ies, -sses, -xes,
// -ches, -shes and a plain -s, and leaves -ss, -us and -is words alone.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 3:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s") && len(w) > 1:
		return w[:len(w)-1]
	}
	return w
}
