package module

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzParseJSON checks the one-pass parser against encoding/json: it
// accepts exactly what json.Valid accepts; its value is what the schema
// validator's own decoding (jsonschema.UnmarshalJSON: encoding/json with
// UseNumber) makes of a body without duplicate keys; and it finds the
// same first duplicate key, at the same place, as a scan of
// encoding/json's tokens (duplicateKeyByTokens, the detector it replaced).
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"a":2}`, `{"a":{"b":1,"B":2}}`, `[{"x":[{"y":1,"y":2}]}]`, `{}`, `1`, `[]`, ` {"a" : [ 1 , -2.5e+3 , true , null , "x\u00e9\n" ] } `,
		`{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":1} {}`, `01`, `1.`, `-`, `"\x"`, `{"a/b~c":{"k":1,"K":2}}`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		`{"changes":[{"op":"add","name":"k0000","type":"A","value":"192.0.2.2"}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		pj := parseJSON(data)
		if pj.valid != json.Valid(data) {
			t.Fatalf("parseJSON(%q).valid = %v, json.Valid %v", s, pj.valid, !pj.valid)
		}
		if !pj.valid {
			return
		}
		k, where, dup := duplicateKeyByTokens(data)
		if pj.dup != dup || pj.dupKey != k || pj.dupWhere != where {
			t.Fatalf("parseJSON(%q) duplicate %q at %q, tokens say %q at %q (%v)", s, pj.dupKey, pj.dupWhere, k, where, dup)
		}
		if dup {
			return // maps keep one of the duplicates; the body is refused anyway
		}
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("UnmarshalJSON(%q): %v", s, err)
		}
		if !reflect.DeepEqual(pj.value, want) {
			t.Fatalf("parseJSON(%q) = %#v, encoding/json %#v", s, pj.value, want)
		}
	})
}

// duplicateKeyByTokens is the duplicate-key detector parseJSON replaced,
// kept as FuzzParseJSON's reference: it walks encoding/json's tokens.
func duplicateKeyByTokens(data []byte) (key, where string, ok bool) {
	type frame struct {
		object    bool
		expectKey bool
		keys      map[string]bool
		path      string
		lastKey   string
		index     int
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.object {
			return top.path + "/" + escapePointer(top.lastKey)
		}
		return top.path + "/" + itoa(top.index)
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expectKey = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return "", "", false
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			switch d {
			case '{', '[':
				stack = append(stack, &frame{object: d == '{', expectKey: d == '{', keys: map[string]bool{}, path: childPath()})
			case '}', ']':
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.object && top.expectKey {
				k, _ := tok.(string)
				folded := strings.ToLower(k)
				if top.keys[folded] {
					where := top.path
					if where == "" {
						where = "(body)"
					}
					return k, where, true
				}
				top.keys[folded] = true
				top.lastKey = k
				top.expectKey = false
				continue
			}
		}
		valueDone()
	}
}

// TestParseJSONManyKeys: an object with many keys switches the duplicate
// check to a map and still finds a late duplicate.
func TestParseJSONManyKeys(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{`)
	for i := range 100 {
		sb.WriteString(`"k` + itoa(i) + `":1,`)
	}
	sb.WriteString(`"K7":2}`)
	pj := parseJSON([]byte(sb.String()))
	if !pj.valid || !pj.dup || pj.dupKey != "K7" || pj.dupWhere != "(body)" {
		t.Fatalf("got %+v", pj)
	}
}
