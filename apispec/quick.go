package apispec

import (
	"encoding/json"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// quick is a request schema compiled to a plain check of a decoded body,
// for schemas that use only the keywords request bodies use: type, enum
// of strings, const-free properties with required and additionalProperties,
// items, minItems and maxItems, minLength, maxLength and pattern, integer
// minimum and maximum, format, $ref. It answers only "valid" or "maybe
// not": ValidateValue takes a valid answer as final and sends every other
// body through the library, whose violations the answer lists, so the
// messages are the library's and a body the library accepts is never
// refused. The check must therefore never call valid what the library
// refuses; where in doubt (a number written 1.0, say) it says "maybe not".
// FuzzQuickMatchesLibrary holds it to that.
type quick struct {
	boolean   *bool // a boolean schema: true accepts anything, false nothing
	ref       *quick
	types     uint8 // accepted types (qNull...); 0 for any
	enum      []string
	hasEnum   bool
	format    func(any) error
	props     map[string]*quick
	required  []string
	noExtra   bool   // additionalProperties: false
	extra     *quick // additionalProperties: a schema
	items     *quick
	minItems  int
	maxItems  int // -1: none
	minLength int
	maxLength int // -1: none
	pattern   jsonschema.Regexp
	min, max  *int64
}

// Types a quick check tells apart.
const (
	qNull uint8 = 1 << iota
	qBool
	qNumber
	qInteger
	qString
	qArray
	qObject
)

// compileQuick compiles s, or reports false when s uses a keyword quick
// does not implement (the library then checks every body).
func compileQuick(s *jsonschema.Schema) (*quick, bool) {
	return (&quickCompiler{done: map[*jsonschema.Schema]*quick{}}).compile(s)
}

type quickCompiler struct {
	done map[*jsonschema.Schema]*quick
}

func (c *quickCompiler) compile(s *jsonschema.Schema) (*quick, bool) {
	if q, ok := c.done[s]; ok {
		return q, true
	}
	if s.RecursiveRef != nil || s.DynamicRef != nil || s.Const != nil || s.Not != nil ||
		len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.If != nil || s.Then != nil || s.Else != nil ||
		s.MaxProperties != nil || s.MinProperties != nil || s.PropertyNames != nil || len(s.PatternProperties) > 0 ||
		len(s.Dependencies) > 0 || len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 || s.UnevaluatedProperties != nil ||
		s.UniqueItems || s.Contains != nil || s.MinContains != nil || s.MaxContains != nil || s.Items != nil ||
		s.AdditionalItems != nil || len(s.PrefixItems) > 0 || s.UnevaluatedItems != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil ||
		s.ExclusiveMaximum != nil || s.ExclusiveMinimum != nil || s.MultipleOf != nil || len(s.Extensions) > 0 {
		return nil, false
	}
	q := &quick{maxItems: -1, maxLength: -1, pattern: s.Pattern, boolean: s.Bool}
	c.done[s] = q // before the children: a $ref may lead back here
	if s.Ref != nil {
		r, ok := c.compile(s.Ref)
		if !ok {
			return nil, false
		}
		q.ref = r
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				q.types |= qNull
			case "boolean":
				q.types |= qBool
			case "number":
				q.types |= qNumber
			case "integer":
				q.types |= qInteger
			case "string":
				q.types |= qString
			case "array":
				q.types |= qArray
			case "object":
				q.types |= qObject
			}
		}
	}
	if s.Enum != nil {
		q.hasEnum = true
		for _, v := range s.Enum.Values {
			str, ok := v.(string)
			if !ok {
				return nil, false
			}
			q.enum = append(q.enum, str)
		}
	}
	if s.Format != nil {
		if s.Format.Name == "regex" {
			return nil, false // the library may check it with its own engine
		}
		q.format = s.Format.Validate
	}
	if len(s.Properties) > 0 {
		q.props = make(map[string]*quick, len(s.Properties))
		for k, ps := range s.Properties {
			pq, ok := c.compile(ps)
			if !ok {
				return nil, false
			}
			q.props[k] = pq
		}
	}
	q.required = s.Required
	switch ap := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		q.noExtra = !ap
	case *jsonschema.Schema:
		eq, ok := c.compile(ap)
		if !ok {
			return nil, false
		}
		q.extra = eq
	default:
		return nil, false
	}
	if s.Items2020 != nil {
		iq, ok := c.compile(s.Items2020)
		if !ok {
			return nil, false
		}
		q.items = iq
	}
	if s.MinItems != nil {
		q.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		q.maxItems = *s.MaxItems
	}
	if s.MinLength != nil {
		q.minLength = *s.MinLength
	}
	if s.MaxLength != nil {
		q.maxLength = *s.MaxLength
	}
	var ok bool
	if q.min, ok = ratInt(s.Minimum); !ok {
		return nil, false
	}
	if q.max, ok = ratInt(s.Maximum); !ok {
		return nil, false
	}
	return q, true
}

// ratInt converts a bound to an int64; false when it is not one.
func ratInt(r *big.Rat) (*int64, bool) {
	if r == nil {
		return nil, true
	}
	if !r.IsInt() || !r.Num().IsInt64() {
		return nil, false
	}
	n := r.Num().Int64()
	return &n, true
}

// valid reports whether v certainly satisfies the schema.
func (q *quick) valid(v any) bool {
	if q.boolean != nil {
		return *q.boolean
	}
	if q.ref != nil && !q.ref.valid(v) {
		return false
	}
	switch v := v.(type) {
	case nil:
		return !q.hasEnum && q.format == nil && (q.types == 0 || q.types&qNull != 0)
	case bool:
		return !q.hasEnum && q.format == nil && (q.types == 0 || q.types&qBool != 0)
	case json.Number:
		return q.number(v)
	case string:
		return q.str(v)
	case []any:
		return q.array(v)
	case map[string]any:
		return q.object(v)
	}
	return false
}

func (q *quick) number(v json.Number) bool {
	if q.hasEnum || q.format != nil {
		return false
	}
	if q.types != 0 && q.types&(qNumber|qInteger) == 0 {
		return false
	}
	// Only plain integers are judged here; anything else (fractions,
	// exponents, out of int64 range) goes to the library.
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return false
	}
	return (q.min == nil || n >= *q.min) && (q.max == nil || n <= *q.max)
}

func (q *quick) str(v string) bool {
	if q.types != 0 && q.types&qString == 0 {
		return false
	}
	if q.hasEnum {
		found := false
		for _, e := range q.enum {
			if e == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if q.minLength > 0 || q.maxLength >= 0 {
		n := utf8.RuneCountInString(v)
		if n < q.minLength || q.maxLength >= 0 && n > q.maxLength {
			return false
		}
	}
	if q.pattern != nil && !q.pattern.MatchString(v) {
		return false
	}
	return q.format == nil || q.format(v) == nil
}

func (q *quick) array(v []any) bool {
	if q.hasEnum || q.types != 0 && q.types&qArray == 0 {
		return false
	}
	if len(v) < q.minItems || q.maxItems >= 0 && len(v) > q.maxItems {
		return false
	}
	if q.format != nil && q.format(v) != nil {
		return false
	}
	if q.items != nil {
		for _, it := range v {
			if !q.items.valid(it) {
				return false
			}
		}
	}
	return true
}

func (q *quick) object(v map[string]any) bool {
	if q.hasEnum || q.types != 0 && q.types&qObject == 0 {
		return false
	}
	if q.format != nil && q.format(v) != nil {
		return false
	}
	for _, r := range q.required {
		if _, ok := v[r]; !ok {
			return false
		}
	}
	for k, pv := range v {
		if pq, ok := q.props[k]; ok {
			if !pq.valid(pv) {
				return false
			}
			continue
		}
		if q.noExtra {
			return false
		}
		if q.extra != nil && !q.extra.valid(pv) {
			return false
		}
	}
	return true
}
