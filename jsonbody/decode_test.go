package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// rrsetLike has the shape of PowerDNS's and external-dns's bodies: nested
// slices, a pointer, a number type of encoding/json's own.
type rrsetLike struct {
	Name     string            `json:"name"`
	TTL      *uint32           `json:"ttl,omitempty"`
	Records  []recordLike      `json:"records"`
	Labels   map[string]string `json:"labels,omitempty"`
	Modified json.Number       `json:"modified_at,omitempty"`
}

type recordLike struct {
	Content  string `json:"content"`
	Disabled bool   `json:"disabled"`
}

// FuzzModes: each Mode decodes exactly as the decoder it replaced: Strict
// as the REST API's (a json.Decoder refusing unknown fields, then one
// value; its 400 in the same words), Lenient as json.Unmarshal (the
// PowerDNS API's) and Stream as a json.Decoder and More (external-dns's
// webhook): the same value, the same error text. Each is checked both
// from a zero value and from one already holding values, where
// encoding/json keeps what the body does not name, and both through
// Decode and from a Body its host parsed (the fast path).
func FuzzModes(f *testing.F) {
	for _, s := range []string{
		addsBody(2), `{"changes":[{"op":"add","name":"a","type":"A","value":"1"}]} `, ``, ` `, `{`, `{} {}`, `{}]`, `{} x`,
		`{"name":"a","records":[{"content":"1","disabled":false}],"ttl":60}`, `{"name":"a","NAME":"b"}`, `{"name":"a","name":"b"}`,
		`{"ttl":-5}`, `{"ttl":"60"}`, `{"labels":{"a":"b"}}`, `{"modified_at":"12"}`, `{"extra":1,"name":"x"}`, `[1]`, `null`,
		`{"zoneName":"example.com","zoneType":"primary","zoneConfig":{"ttl":3600,"soa":{"primaryNs":"ns1.","adminEmail":"a@b","serial":0}}}`,
	} {
		f.Add(s)
	}
	targets := []func(filled bool) any{
		func(filled bool) any {
			v := new(apitypes.BatchRequest)
			if filled {
				v.Changes = []apitypes.Change{{Op: "remove", Name: "old"}}
			}
			return v
		},
		func(bool) any { return new(apitypes.CreateZone) },
		func(filled bool) any {
			v := new(rrsetLike)
			if filled {
				v.Name, v.Labels, v.Records = "old", map[string]string{"k": "v"}, []recordLike{{Content: "x"}}
			}
			return v
		},
		func(filled bool) any {
			v := new(fastKinds)
			if filled {
				v.S, v.M, v.L = "old", map[string]string{"k": "v"}, []string{"a", "b"}
			}
			return v
		},
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(s)
		for _, newT := range targets {
			for _, filled := range []bool{false, true} {
				for _, m := range []Mode{Strict, Lenient, Stream} {
					// Decode, and a Body parsed by its host (the
					// fast path in every mode).
					for _, parsed := range []bool{false, true} {
						got, want := newT(filled), newT(filled)
						var err error
						if parsed {
							err = Parse(raw).Decode(got, m)
						} else {
							err = Decode(raw, got, m)
						}
						werr := reference(raw, want, m)
						if (err == nil) != (werr == nil) {
							t.Fatalf("mode %d, %T from %q: error %v, the decoder it replaced %v", m, got, s, err, werr)
						}
						if err != nil {
							text := err.Error()
							if m == Strict {
								text = err.(*Error).Message()
							}
							if text != werr.Error() {
								t.Fatalf("mode %d, %T from %q: error %q, the decoder it replaced %q", m, got, s, text, werr)
							}
							continue
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("mode %d, %T from %q (filled %v, parsed %v):\ngot  %+v\nwant %+v", m, got, s, filled, parsed, got, want)
						}
					}
				}
			}
		}
	})
}

// reference decodes raw into v as the front ends decoded their bodies
// before jsonbody: the REST API's strict decode (with its 400's words),
// json.Unmarshal (PowerDNS), a json.Decoder and More (external-dns).
func reference(raw []byte, v any, m Mode) error {
	switch m {
	case Lenient:
		return json.Unmarshal(raw, v)
	case Stream:
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(v); err != nil {
			return err
		}
		if dec.More() {
			return errors.New("more than one JSON value")
		}
		return nil
	}
	if k, where, dup := DuplicateKey(raw); dup {
		return fmt.Errorf("duplicate key %q in the object at %s", k, where)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return errors.New("request body must contain a single JSON object")
		}
		return nil
	}
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("request body is empty; a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("malformed JSON: unexpected end of body")
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "(body)"
		}
		return fmt.Errorf("field %s: expected %s, got JSON %s", field, typeErr.Type, typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return fmt.Errorf("invalid JSON body: %v", err)
}

// TestErrorKinds: each kind of bad body is told apart, in Strict mode and
// in the others, and an error unwraps to encoding/json's.
func TestErrorKinds(t *testing.T) {
	var v struct {
		N uint32 `json:"n"`
	}
	for _, c := range []struct {
		body string
		m    Mode
		kind Kind
	}{
		{``, Strict, Empty}, {`{"n":`, Strict, Truncated}, {`{"n":}`, Strict, Syntax}, {`{"n":"1"}`, Strict, Type},
		{`{"m":1}`, Strict, UnknownField}, {`{"n":1,"N":2}`, Strict, Duplicate}, {`{} {}`, Strict, Trailing},
		{`{"n":"1"}`, Lenient, Type}, {`{"n":1} x`, Lenient, Syntax}, {``, Stream, Empty}, {`{} {}`, Stream, Trailing},
	} {
		err := Decode([]byte(c.body), &v, c.m)
		var e *Error
		if !errors.As(err, &e) || e.Kind != c.kind {
			t.Errorf("mode %d, %q: %#v, want kind %d", c.m, c.body, err, c.kind)
		}
	}
	var te *json.UnmarshalTypeError
	if err := Decode([]byte(`{"n":-1}`), &v, Lenient); !errors.As(err, &te) || te.Field != "n" {
		t.Errorf("a type error does not unwrap: %v", err)
	}
}
