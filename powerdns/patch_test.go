package powerdns

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
)

func u32(v uint32) *uint32 { return &v }

// TestPlanPatch checks the translation of PowerDNS's PATCH rules
// (OpenAPI RRSet.changetype, ws-auth.cc's patchZone) into change lists.
func TestPlanPatch(t *testing.T) {
	cases := []struct {
		name string
		body string
		want []dnsupdate.Change
		err  string
	}{
		{name: "replace", body: `[{"name":"www.example.com.","type":"a","ttl":300,"changetype":"replace","records":[{"content":"192.0.2.1","disabled":false},{"content":"192.0.2.2"}]}]`,
			want: []dnsupdate.Change{{Op: "replace", Name: "www.example.com.", Type: "A", Values: []string{"192.0.2.1", "192.0.2.2"}, TTL: u32(300)}}},
		{name: "replace with no records deletes", body: `[{"name":"www.example.com.","type":"A","ttl":300,"changetype":"REPLACE","records":[]}]`,
			want: []dnsupdate.Change{{Op: "delete", Name: "www.example.com.", Type: "A"}}},
		{name: "replace of comments only changes no record", body: `[{"name":"example.com.","type":"NS","changetype":"REPLACE","comments":[]}]`,
			want: nil},
		{name: "empty comments are no comments (PowerDNS-Admin)", body: `[{"name":"www.example.com.","type":"A","ttl":60,"changetype":"REPLACE","records":[{"content":"192.0.2.1"}],"comments":[{"content":"","account":""}]}]`,
			want: []dnsupdate.Change{{Op: "replace", Name: "www.example.com.", Type: "A", Values: []string{"192.0.2.1"}, TTL: u32(60)}}},
		{name: "delete", body: `[{"name":"www.example.com.","type":"A","changetype":"DELETE"}]`,
			want: []dnsupdate.Change{{Op: "delete", Name: "www.example.com.", Type: "A"}}},
		{name: "delete outside the zone succeeds and changes nothing", body: `[{"name":"not-in-zone.","type":"NS","changetype":"DELETE"}]`,
			want: nil},
		{name: "extend", body: `[{"name":"_acme-challenge.example.com.","type":"TXT","ttl":60,"changetype":"EXTEND","records":[{"content":"\"abc\""}]}]`,
			want: []dnsupdate.Change{{Op: "add", Name: "_acme-challenge.example.com.", Type: "TXT", Value: `"abc"`, TTL: u32(60)}}},
		{name: "prune", body: `[{"name":"_acme-challenge.example.com.","type":"TXT","changetype":"PRUNE","records":[{"content":"\"abc\""}]}]`,
			want: []dnsupdate.Change{{Op: "remove", Name: "_acme-challenge.example.com.", Type: "TXT", Value: `"abc"`}}},
		{name: "several rrsets in order", body: `[{"name":"a.example.com.","type":"A","changetype":"DELETE"},{"name":"a.example.com.","type":"CNAME","ttl":60,"changetype":"REPLACE","records":[{"content":"b.example.com."}]}]`,
			want: []dnsupdate.Change{{Op: "delete", Name: "a.example.com.", Type: "A"}, {Op: "replace", Name: "a.example.com.", Type: "CNAME", Values: []string{"b.example.com."}, TTL: u32(60)}}},
		{name: "null MX", body: `[{"name":"example.com.","type":"MX","ttl":1,"changetype":"REPLACE","records":[{"content":"0 ."}]}]`,
			want: []dnsupdate.Change{{Op: "replace", Name: "example.com.", Type: "MX", Values: []string{"0 ."}, TTL: u32(1)}}},
		{name: "DS below the apex", body: `[{"name":"sub.example.com.","type":"DS","ttl":1,"changetype":"REPLACE","records":[{"content":"44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"}]}]`,
			want: []dnsupdate.Change{{Op: "replace", Name: "sub.example.com.", Type: "DS", Values: []string{"44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"}, TTL: u32(1)}}},
		{name: "names lower-cased", body: `[{"name":"WWW.Example.COM.","type":"A","changetype":"DELETE"}]`,
			want: []dnsupdate.Change{{Op: "delete", Name: "www.example.com.", Type: "A"}}},

		{name: "duplicate rrset", body: `[{"name":"example.com.","type":"NS","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.example.net."}]},{"name":"example.com.","type":"ns","ttl":1,"changetype":"REPLACE","records":[{"content":"ns2.example.net."}]}]`,
			err: "Duplicate RRset example.com. IN NS"},
		{name: "duplicate record", body: `[{"name":"example.com.","type":"NS","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.example.net."},{"content":"NS1.example.net."}]}]`,
			err: "Duplicate record in RRset example.com. IN NS"},
		{name: "duplicate record in PowerDNS 4.9's words", body: `[{"name":"example.com.","type":"NS","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.example.net."},{"content":"NS1.example.net."}]}]`,
			err: `RRset example.com. IN NS: duplicate record with content "NS1.example.net."`},
		{name: "changetype missing", body: `[{"name":"www.example.com.","type":"A","ttl":1,"records":[{"content":"192.0.2.1"}]}]`,
			err: "Key 'changetype' not present"},
		{name: "changetype unknown", body: `[{"name":"www.example.com.","type":"A","changetype":"UPSERT"}]`,
			err: "RRset www.example.com. IN A: Changetype 'UPSERT' is not a valid value"},
		{name: "replace out of zone", body: `[{"name":"not-in-zone.","type":"NS","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.bar.com."}]}]`,
			err: "RRset not-in-zone. IN NS: Name is out of zone"},
		{name: "similar suffix is out of zone", body: `[{"name":"notexample.com.","type":"A","ttl":1,"changetype":"EXTEND","records":[{"content":"192.0.2.1"}]}]`,
			err: "Name is out of zone"},
		{name: "name not canonical", body: `[{"name":"www.example.com","type":"A","changetype":"DELETE"}]`,
			err: "is not canonical"},
		{name: "restricted characters", body: `[{"name":"test:www.example.com.","type":"A","changetype":"DELETE"}]`,
			err: "contains unsupported characters"},
		{name: "unknown type", body: `[{"name":"example.com.","type":"FAFAFA","ttl":1,"changetype":"REPLACE","records":[{"content":"4.3.2.1"}]}]`,
			err: "unknown type given"},
		{name: "meta type", body: `[{"name":"example.com.","type":"OPT","ttl":1,"changetype":"REPLACE","records":[{"content":"9"}]}]`,
			err: "OPT: invalid type given"},
		{name: "ttl missing", body: `[{"name":"www.example.com.","type":"A","changetype":"REPLACE","records":[{"content":"192.0.2.1"}]}]`,
			err: "Key 'ttl' not present or not an Integer"},
		{name: "two CNAMEs", body: `[{"name":"sub.example.com.","type":"CNAME","ttl":1,"changetype":"REPLACE","records":[{"content":"01.example.org."},{"content":"02.example.org."}]}]`,
			err: "IN CNAME has more than one record"},
		{name: "two DNAMEs in PowerDNS 4.9's words", body: `[{"name":"sub.example.com.","type":"DNAME","ttl":1,"changetype":"REPLACE","records":[{"content":"01.example.org."},{"content":"02.example.org."}]}]`,
			err: "RRset sub.example.com. IN DNAME: only one such record allowed"},
		{name: "MX exchange not a host name", body: `[{"name":"example.com.","type":"MX","ttl":1,"changetype":"REPLACE","records":[{"content":"10 mail@mx.example.org."}]}]`,
			err: "RRset example.com. IN MX: non-hostname content mail@mx.example.org."},
		{name: "NS target not a host name", body: `[{"name":"sub.example.com.","type":"NS","ttl":1,"changetype":"EXTEND","records":[{"content":"ns_1.example.org."}]}]`,
			err: "RRset sub.example.com. IN NS: non-hostname content ns_1.example.org."},
		{name: "SRV target not a host name", body: `[{"name":"_sip._tcp.example.com.","type":"SRV","ttl":1,"changetype":"REPLACE","records":[{"content":"0 5 5060 -sip.example.org."}]}]`,
			err: "non-hostname content -sip.example.org."},
		{name: "DNSKEY below the apex", body: `[{"name":"sub.example.com.","type":"DNSKEY","ttl":1,"changetype":"REPLACE","records":[{"content":"257 3 13 AAAA"}]}]`,
			err: "RRset sub.example.com. IN DNSKEY: is only allowed at apex"},
		{name: "SOA below the apex", body: `[{"name":"sub.example.com.","type":"SOA","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.bar.com. hostmaster.foo.org. 1 1 1 1 1"}]}]`,
			err: "RRset sub.example.com. IN SOA: is only allowed at apex"},
		{name: "DS at the apex", body: `[{"name":"example.com.","type":"DS","ttl":1,"changetype":"REPLACE","records":[{"content":"44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"}]}]`,
			err: "RRset example.com. IN DS: is not allowed at apex"},
		{name: "white space around content is dropped (PowerDNS 4.9+)", body: `[{"name":"example.com.","type":"A","ttl":1,"changetype":"REPLACE","records":[{"content":" 4.3.2.1 "}]}]`,
			want: []dnsupdate.Change{{Op: "replace", Name: "example.com.", Type: "A", Values: []string{"4.3.2.1"}, TTL: u32(1)}}},
		{name: "content of white space only", body: `[{"name":"example.com.","type":"A","ttl":1,"changetype":"REPLACE","records":[{"content":"  "}]}]`,
			err: "Not in expected format"},
		{name: "delete then replace one RRset (PowerDNS 4.9+)", body: `[{"name":"sub.example.com.","type":"CNAME","changetype":"DELETE"},{"name":"sub.example.com.","type":"CNAME","ttl":500,"changetype":"REPLACE","records":[{"content":"www.example.org."}]}]`,
			want: []dnsupdate.Change{{Op: "delete", Name: "sub.example.com.", Type: "CNAME"}, {Op: "replace", Name: "sub.example.com.", Type: "CNAME", Values: []string{"www.example.org."}, TTL: u32(500)}}},
		{name: "DNSKEY at the apex", body: `[{"name":"example.com.","type":"DNSKEY","ttl":1,"changetype":"REPLACE","records":[{"content":"257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=="}]}]`,
			err: "RRset example.com. IN DNSKEY: DNSKEY records are BIND's to publish"},
		{name: "modified_at out of range", body: `[{"name":"example.com.","type":"NS","changetype":"REPLACE","comments":[{"account":"a","content":"c","modified_at":"4294967297"}]}]`,
			err: "Key 'modified_at' is out of range"},
		{name: "modified_at negative", body: `[{"name":"example.com.","type":"NS","changetype":"REPLACE","comments":[{"account":"a","content":"c","modified_at":-1}]}]`,
			err: "Value for key 'modified_at' is out of range"},
		{name: "relative name in content", body: `[{"name":"example.com.","type":"MX","ttl":1,"changetype":"REPLACE","records":[{"content":"10 mail"}]}]`,
			err: "names in record content must be absolute"},
		{name: "relative CNAME target", body: `[{"name":"www.example.com.","type":"CNAME","ttl":1,"changetype":"EXTEND","records":[{"content":"target.example.com"}]}]`,
			err: "Not in expected format"},
		{name: "incomplete escape in TXT (test_zone_rr_update_invalid_txt)", body: `[{"name":"ill-formed-txt.example.com.","type":"txt","ttl":3600,"changetype":"REPLACE","records":[{"content":"\"TEST\\1\" \"TEST2\""}]}]`,
			err: `Record ill-formed-txt.example.com./TXT '"TEST\1" "TEST2"': Not in expected format (parsed as '"TEST1" "TEST2"'): the content has the incomplete escape \1`},
		{name: "out-of-range escape in CAA", body: `[{"name":"example.com.","type":"CAA","ttl":1,"changetype":"EXTEND","records":[{"content":"0 issue \"ca\\256\\\\1\""}]}]`,
			err: `Record example.com./CAA '0 issue "ca\256\\1"': Not in expected format (parsed as '0 issue "ca256\\1"'): the content has the escape \256, out of range`},
		{name: "complete escape in TXT (test_zone_rr_update_with_escapes)", body: `[{"name":"well-formed-txt.example.com.","type":"TXT","ttl":3600,"changetype":"REPLACE","records":[{"content":"\"valid\\000record\""}]}]`,
			want: []dnsupdate.Change{{Op: "replace", Name: "well-formed-txt.example.com.", Type: "TXT", Values: []string{`"valid\000record"`}, TTL: u32(3600)}}},
		{name: "disabled", body: `[{"name":"example.com.","type":"NS","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.bar.com.","disabled":true}]}]`,
			err: "disabled records are not supported"},
		{name: "comments", body: `[{"name":"example.com.","type":"NS","changetype":"REPLACE","comments":[{"account":"a","content":"c"}]}]`,
			err: "comments are not supported"},
		{name: "ALIAS", body: `[{"name":"example.com.","type":"ALIAS","ttl":1,"changetype":"REPLACE","records":[{"content":"lb.example.net."}]}]`,
			err: "ALIAS is a PowerDNS extension"},
		{name: "LUA", body: `[{"name":"www.example.com.","type":"LUA","ttl":1,"changetype":"REPLACE","records":[{"content":"A \"ifportup(443, {'192.0.2.1'})\""}]}]`,
			err: "LUA records"},
		{name: "SOA", body: `[{"name":"example.com.","type":"SOA","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.bar.com. hostmaster.foo.org. 1 1 1 1 1"}]}]`,
			want: []dnsupdate.Change{{Op: "replace", Name: "example.com.", Type: "SOA", Values: []string{"ns1.bar.com. hostmaster.foo.org. 1 1 1 1 1"}, TTL: u32(1)}}},
		{name: "SOA deleted", body: `[{"name":"example.com.","type":"SOA","changetype":"DELETE"}]`,
			err: "the SOA RRset can only be replaced"},
		{name: "SOA emptied", body: `[{"name":"example.com.","type":"SOA","ttl":1,"changetype":"REPLACE","records":[]}]`,
			err: "the SOA RRset can only be replaced"},
		{name: "SOA not SOA data", body: `[{"name":"example.com.","type":"SOA","ttl":1,"changetype":"REPLACE","records":[{"content":"ns1.bar.com. hostmaster.foo.org. x 1 1 1 1"}]}]`,
			err: "Not in expected format"},
		{name: "extend with two records", body: `[{"name":"www.example.com.","type":"A","ttl":1,"changetype":"EXTEND","records":[{"content":"192.0.2.1"},{"content":"192.0.2.2"}]}]`,
			err: "exactly one record"},
		{name: "delete with records", body: `[{"name":"www.example.com.","type":"A","changetype":"DELETE","records":[{"content":"192.0.2.1"}]}]`,
			err: "records must be empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var sets []RRset
			if err := json.Unmarshal([]byte(tc.body), &sets); err != nil {
				t.Fatal(err)
			}
			p, err := PlanPatch("example.com", sets)
			if tc.err != "" {
				if _, ok := err.(*InputError); !ok || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want an *InputError with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Changes, tc.want) {
				t.Fatalf("changes = %+v, want %+v", p.Changes, tc.want)
			}
		})
	}
}

func TestPlanExplain(t *testing.T) {
	var sets []RRset
	_ = json.Unmarshal([]byte(`[{"name":"a.example.com.","type":"A","changetype":"DELETE"},{"name":"a.example.com.","type":"CNAME","ttl":60,"changetype":"REPLACE","records":[{"content":"b.example.com."}]}]`), &sets)
	p, err := PlanPatch("example.com", sets)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Explain("changes[1].values[0]", "conflicts"); got != "RRset a.example.com. IN CNAME: conflicts" {
		t.Errorf("Explain = %q", got)
	}
	if got := p.Explain("changes[9]", "x"); got != "changes[9]: x" {
		t.Errorf("Explain out of range = %q", got)
	}
	if got := p.Explain("", "x"); got != "x" {
		t.Errorf("Explain without field = %q", got)
	}
}

// TestDecodeTTLNotPositive: a negative TTL (or one above 2^32-1) is 422
// in PowerDNS's words, "Key 'ttl' is not a positive Integer"; a TTL of
// another JSON type keeps the type error.
func TestDecodeTTLNotPositive(t *testing.T) {
	for body, want := range map[string]string{
		`{"rrsets":[{"name":"a.example.com.","type":"A","ttl":-5,"changetype":"REPLACE"}]}`:         "Key 'ttl' is not a positive Integer",
		`{"rrsets":[{"name":"a.example.com.","type":"A","ttl":4294967296,"changetype":"REPLACE"}]}`: "Key 'ttl' is not a positive Integer",
		`{"rrsets":[{"name":"a.example.com.","type":"A","ttl":"60","changetype":"REPLACE"}]}`:       "is not of the expected type",
	} {
		w := httptest.NewRecorder()
		var v struct {
			RRsets []RRset `json:"rrsets"`
		}
		if decode(w, httptest.NewRequest("PATCH", "/", strings.NewReader(body)), &v) {
			t.Fatalf("%s: decoded", body)
		}
		if w.Code != 422 || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d %s, want 422 with %q", body, w.Code, w.Body, want)
		}
	}
}
