package jsonbody

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// fastDecode fills dst (a pointer to a zero value) from v, a body
// already parsed by Parse, and reports whether it could. It handles
// what the API's request bodies hold (structs of strings, bools, unsigned
// and signed integers, pointers, slices and string maps) when the body
// names each field exactly and every value has the field's JSON type; it
// then yields exactly what encoding/json's strict decode of the same bytes
// yields (FuzzFastDecode checks it). Anything else, such as a key in
// another case, an unknown field, a number written 1.0 or a type
// mismatch, makes it report false, and Decode has encoding/json decode
// the bytes (which names the error precisely). It saves the second scan of the
// bytes and the reflection-heavy decode of a large batch.
func fastDecode(v any, dst any) bool {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || !rv.Elem().IsZero() {
		return false // encoding/json keeps what a body does not name
	}
	if !fastValue(v, rv.Elem()) {
		rv.Elem().SetZero() // encoding/json starts from a zero value again
		return false
	}
	return true
}

func fastValue(v any, dst reflect.Value) bool {
	if dst.Type().PkgPath() != "" && customDecoding(dst.Type()) {
		return false
	}
	if v == nil {
		// encoding/json leaves a value unchanged on null (a pointer, a
		// slice, a map becomes nil): dst is a zero value already.
		switch dst.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Struct:
			return true
		}
		return false
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if !fastValue(v, p.Elem()) {
			return false
		}
		dst.Set(p)
		return true
	case reflect.String:
		s, ok := v.(string)
		if !ok || dst.Type() != reflect.TypeFor[string]() {
			return false
		}
		dst.SetString(s)
		return true
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return false
		}
		dst.SetBool(b)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok || !plainInteger(string(n)) {
			return false
		}
		u, err := strconv.ParseUint(string(n), 10, dst.Type().Bits())
		if err != nil {
			return false
		}
		dst.SetUint(u)
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok || !plainInteger(strings.TrimPrefix(string(n), "-")) {
			return false
		}
		i, err := strconv.ParseInt(string(n), 10, dst.Type().Bits())
		if err != nil {
			return false
		}
		dst.SetInt(i)
		return true
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok || dst.Type().Elem().Kind() == reflect.Uint8 { // []byte is base64 text
			return false
		}
		s := reflect.MakeSlice(dst.Type(), len(a), len(a))
		for i, it := range a {
			if !fastValue(it, s.Index(i)) {
				return false
			}
		}
		dst.Set(s)
		return true
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || dst.Type().Key() != reflect.TypeFor[string]() || dst.Type().Elem() != reflect.TypeFor[string]() {
			return false
		}
		out := make(map[string]string, len(m))
		for k, mv := range m {
			s, ok := mv.(string)
			if !ok {
				return false
			}
			out[k] = s
		}
		dst.Set(reflect.ValueOf(out))
		return true
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		fields, ok := structFields(dst.Type())
		if !ok {
			return false
		}
		for k, fv := range m {
			i, ok := fields[k]
			if !ok {
				return false // unknown, or named in another case
			}
			if !fastValue(fv, dst.Field(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// plainInteger reports whether s is a JSON integer without sign, fraction
// or exponent.
func plainInteger(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// customTypes caches customDecoding by type.
var customTypes sync.Map // reflect.Type -> bool

// customDecoding reports whether encoding/json decodes t by its own
// method (json.Unmarshaler or encoding.TextUnmarshaler).
func customDecoding(t reflect.Type) bool {
	if c, ok := customTypes.Load(t); ok {
		return c.(bool)
	}
	p := reflect.PointerTo(t)
	c := p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) ||
		t.Implements(reflect.TypeFor[json.Unmarshaler]()) || t.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
	customTypes.Store(t, c)
	return c
}

// fieldTables caches structFields by type.
var fieldTables sync.Map // reflect.Type -> map[string]int (nil: unsupported)

// structFields maps the JSON names of t's fields to their indexes, or
// reports false when t has a field fastDecode leaves to encoding/json
// (embedded, unexported with a name, a ",string" option, an interface).
func structFields(t reflect.Type) (map[string]int, bool) {
	if f, ok := fieldTables.Load(t); ok {
		m := f.(map[string]int)
		return m, m != nil
	}
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous || !f.IsExported() || strings.Contains(opts, "string") || f.Type.Kind() == reflect.Interface {
			m = nil
			break
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; dup {
			m = nil
			break
		}
		m[name] = i
	}
	fieldTables.Store(t, m)
	return m, m != nil
}
