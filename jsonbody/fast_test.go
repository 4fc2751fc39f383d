package jsonbody

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// fastKinds is a struct of every kind fastDecode handles, and some it
// leaves to encoding/json.
type fastKinds struct {
	S    string            `json:"s"`
	B    *bool             `json:"b,omitempty"`
	U8   uint8             `json:"u8"`
	U16  *uint16           `json:"u16"`
	I    int               `json:"i"`
	I32  *int32            `json:"i32"`
	L    []string          `json:"l"`
	PL   *[]string         `json:"pl"`
	M    map[string]string `json:"m"`
	N    *fastKinds        `json:"n"`
	Ns   []fastKinds       `json:"ns"`
	T    *time.Time        `json:"t"`
	Raw  []byte            `json:"raw"`
	NoTg string
	Skip string `json:"-"`
}

// addsBody is a PATCH body of n adds.
func addsBody(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"changes":[`)
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"op":"add","name":"k%04d","type":"A","value":"192.0.2.2"}`, i)
	}
	sb.WriteString("]}")
	return sb.String()
}

// FuzzFastDecode: whenever fastDecode fills a request body type from a
// parsed body, encoding/json's strict decode of the same bytes succeeds
// and yields the same value.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		addsBody(3),
		`{"changes":[{"op":"replace","name":"x","type":"TXT","values":["a","b"],"ttl":60,"priority":5}]}`,
		`{"changes":[{"op":"add","name":"x","type":"A","value":"1","ttl":1.0}]}`,
		`{"zoneName":"example.com","zoneType":"primary","zoneConfig":{"ttl":3600,"soa":{"primaryNs":"ns1.","adminEmail":"a@b","serial":0},"nameServers":["ns1."],"nameServerIps":{"ns1.":"192.0.2.1"},"records":[{"name":"@","type":"A","value":"1","priority":1}],"inlineSigning":false}}`,
		`{"alsoNotify":["192.0.2.1"],"allowTransfer":[],"dnssecPolicy":null,"inlineSigning":true}`,
		`{"name":"a","type":"A","value":null,"priority":65536}`,
		`{"Name":"a"}`, `{"name":1}`, `null`, `[]`, `{"s":"x","b":true,"u8":255,"u16":65535,"i":-3,"i32":-0,"l":null,"pl":[],"m":{"a":"b"},"n":{"s":"y","n":null},"ns":[{"i":1}],"NoTg":"z"}`,
		`{"t":"2026-01-01T00:00:00Z"}`, `{"raw":"AAE="}`, `{"Skip":"x"}`, `{"u8":256}`, `{"i":1e2}`, `{"m":{"a":1}}`, `{"s":"\u00e9\ud800"}`,
	} {
		f.Add(s)
	}
	targets := []func() any{
		func() any { return new(apitypes.BatchRequest) },
		func() any { return new(apitypes.CreateZone) },
		func() any { return new(apitypes.ModifyZone) },
		func() any { return new(apitypes.Record) },
		func() any { return new(apitypes.RemoveRecord) },
		func() any { return new(apitypes.UpdateRecord) },
		func() any { return new(fastKinds) },
	}
	f.Fuzz(func(t *testing.T, s string) {
		pj := Parse([]byte(s))
		if !pj.Valid || pj.Dup {
			return
		}
		for _, newT := range targets {
			fast := newT()
			if !fastDecode(pj.Value, fast) {
				if !reflect.ValueOf(fast).Elem().IsZero() {
					t.Fatalf("%T from %s: refused but not reset: %+v", fast, s, fast)
				}
				continue
			}
			want := newT()
			dec := json.NewDecoder(bytes.NewReader([]byte(s)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(want); err != nil {
				t.Fatalf("%T from %s: fastDecode accepted, encoding/json: %v", fast, s, err)
			}
			if !reflect.DeepEqual(fast, want) {
				t.Fatalf("%T from %s:\nfast %+v\njson %+v", fast, s, fast, want)
			}
		}
	})
}

// TestFastDecodeTakesUsualBodies: the bodies clients send take the fast
// path.
func TestFastDecodeTakesUsualBodies(t *testing.T) {
	var br apitypes.BatchRequest
	if !fastDecode(Parse([]byte(addsBody(10))).Value, &br) || len(br.Changes) != 10 || br.Changes[9].Name != "k0009" {
		t.Fatalf("batch: %+v", br)
	}
	var cz apitypes.CreateZone
	body := `{"zoneName":"example.com","zoneType":"primary","zoneConfig":{"ttl":3600,"soa":{"primaryNs":"ns1.","adminEmail":"a@b","serial":7},"nameServers":["ns1."]}}`
	if !fastDecode(Parse([]byte(body)).Value, &cz) || cz.ZoneConfig == nil || *cz.ZoneConfig.SOA.Serial != 7 {
		t.Fatalf("create: %+v", cz)
	}
}
