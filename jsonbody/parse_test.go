package jsonbody

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
		pj := Parse(data)
		if pj.Valid != json.Valid(data) {
			t.Fatalf("Parse(%q).valid = %v, json.Valid %v", s, pj.Valid, !pj.Valid)
		}
		if !pj.Valid {
			return
		}
		k, where, dup := duplicateKeyByTokens(data)
		if pj.Dup != dup || pj.DupKey != k || pj.DupWhere != where {
			t.Fatalf("Parse(%q) duplicate %q at %q, tokens say %q at %q (%v)", s, pj.DupKey, pj.DupWhere, k, where, dup)
		}
		if dup {
			return // maps keep one of the duplicates; the body is refused anyway
		}
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("UnmarshalJSON(%q): %v", s, err)
		}
		if !reflect.DeepEqual(pj.Value, want) {
			t.Fatalf("Parse(%q) = %#v, encoding/json %#v", s, pj.Value, want)
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

func TestDuplicateKeyDetector(t *testing.T) {
	cases := []struct {
		in, key, where string
	}{
		{`{"a":1,"b":2}`, "", ""},
		{`{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, "", ""},
		{`{"a":1,"a":2}`, "a", "(body)"},
		{`{"x":{"k":1,"K":2}}`, "K", "/x"},
		{`{"x":[{"k":1},{"k":1,"k":3}]}`, "k", "/x/1"},
		{`{"a/b":{"c":[1,{"d":1,"d":2}]}}`, "d", "/a~1b/c/1"},
		{`[{"a":1},{"a":2,"b":{"a":1}}]`, "", ""},
		{`"a"`, "", ""},
		{`{"a":"a","b":"a"}`, "", ""},
	}
	for _, c := range cases {
		k, where, ok := DuplicateKey([]byte(c.in))
		if ok != (c.key != "") || k != c.key || where != c.where {
			t.Errorf("DuplicateKey(%s) = %q, %q, %v; want %q, %q", c.in, k, where, ok, c.key, c.where)
		}
	}
}

// FuzzDuplicateKey checks the detector against a reference: decoding into
// generic maps loses exactly the duplicates, so a document without them
// survives a decode and re-encode with the same number of keys.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"B":2}}`, `[{"x":[{"y":1,"y":2}]}]`, `{}`, `1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		_, _, dup := DuplicateKey([]byte(s))
		want := countKeys(t, s, false) != countKeys(t, s, true)
		if dup != want {
			t.Fatalf("DuplicateKey(%s) = %v, want %v", s, dup, want)
		}
	})
}

// countKeys counts object keys in s: all of them (unique false), or those
// left after case-folding duplicates away (unique true).
func countKeys(t *testing.T, s string, unique bool) int {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber() // a valid number such as 1E700 overflows float64
	var walk func() int
	walk = func() int {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return 0
		}
		n := 0
		if d == '[' {
			for dec.More() {
				n += walk()
			}
			dec.Token()
			return n
		}
		seen := map[string]bool{}
		for dec.More() {
			kt, _ := dec.Token()
			k := strings.ToLower(kt.(string))
			if !unique || !seen[k] {
				n++
			}
			seen[k] = true
			n += walk()
		}
		dec.Token()
		return n
	}
	return walk()
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
	pj := Parse([]byte(sb.String()))
	if !pj.Valid || !pj.Dup || pj.DupKey != "K7" || pj.DupWhere != "(body)" {
		t.Fatalf("got %+v", pj)
	}
}
