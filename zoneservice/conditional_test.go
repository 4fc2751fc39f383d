package zoneservice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestApplyIf: a conditional apply sends its preconditions as the
// UPDATE's prerequisites and its changes, and the fake named applies them.
func TestApplyIf(t *testing.T) {
	r := newOpsRig(t)
	ttl := uint32(60)
	pre := []zonemodel.Precondition{zonemodel.RRsetExists("www.rec.test.", "A", []string{"192.0.2.1"}), zonemodel.RRsetAbsent("new.rec.test.", "TXT")}
	changes := []zonemodel.Change{
		{Op: zonemodel.OpDelete, Name: "www.rec.test.", Type: "A"},
		{Op: zonemodel.OpAdd, Name: "www.rec.test.", Type: "A", Value: "192.0.2.9", TTL: &ttl},
		{Op: zonemodel.OpAdd, Name: "new.rec.test.", Type: "TXT", Value: `"hi"`, TTL: &ttl},
		{Op: zonemodel.OpAdd, Name: "cn.rec.test.", Type: "CNAME", Value: "www.rec.test", TTL: &ttl},
	}
	res, err := r.svc.Records().ApplyIf(context.Background(), "rec.test", pre, changes)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes != 4 || res.Serial == res.OldSerial {
		t.Errorf("result %+v, want 4 changes and a new serial", res)
	}
	var got []string
	for _, rr := range r.dns.Records("rec.test") {
		if h := rr.Header(); h.Rrtype != dns.TypeSOA && h.Rrtype != dns.TypeDNSKEY && h.Rrtype != dns.TypeNS {
			got = append(got, rr.String())
		}
	}
	want := "ns1.rec.test.\t300\tIN\tA\t192.0.2.53 | www.rec.test.\t60\tIN\tA\t192.0.2.9 | new.rec.test.\t60\tIN\tTXT\t\"hi\" | cn.rec.test.\t60\tIN\tCNAME\twww.rec.test."
	if g := strings.Join(got, " | "); g != want {
		t.Errorf("zone after ApplyIf:\n got %s\nwant %s", g, want)
	}
}

// TestApplyIfPrerequisiteFailed: named's answer that a prerequisite
// failed (NXRRSET, YXRRSET, NXDOMAIN, YXDOMAIN) is a
// *zonemodel.PrerequisiteError naming the rcode, around named's answer;
// another refusal is not.
func TestApplyIfPrerequisiteFailed(t *testing.T) {
	r := newOpsRig(t)
	ttl := uint32(60)
	pre := []zonemodel.Precondition{zonemodel.RRsetAbsent("www.rec.test.", "A")}
	changes := []zonemodel.Change{{Op: zonemodel.OpAdd, Name: "www.rec.test.", Type: "A", Value: "192.0.2.9", TTL: &ttl}}
	for _, rcode := range []int{dns.RcodeYXRrset, dns.RcodeNXRrset} {
		r.dns.Refuse("rec.test", rcode)
		_, err := r.svc.Records().ApplyIf(context.Background(), "rec.test", pre, changes)
		var pe *zonemodel.PrerequisiteError
		var se *dnsupdate.ServerError
		if !errors.As(err, &pe) || pe.Rcode != dns.RcodeToString[rcode] || !errors.As(err, &se) || se.Rcode != rcode {
			t.Errorf("rcode %s: %v (%T), want a PrerequisiteError %s around named's answer", dns.RcodeToString[rcode], err, err, dns.RcodeToString[rcode])
		}
	}
	for rcode, want := range map[int]bool{dns.RcodeNXRrset: true, dns.RcodeYXRrset: true, dns.RcodeNameError: true, dns.RcodeYXDomain: true, dns.RcodeRefused: false, dns.RcodeNotAuth: false} {
		name, ok := prerequisiteFailed(fmt.Errorf("update: %w", &dnsupdate.ServerError{Op: "update", Zone: "z", Rcode: rcode}))
		if ok != want || ok && name != dns.RcodeToString[rcode] {
			t.Errorf("prerequisiteFailed(%d) = %q, %v", rcode, name, ok)
		}
	}
	if _, ok := prerequisiteFailed(errors.New("connection refused")); ok {
		t.Error("a transport error taken for a failed prerequisite")
	}
}

// TestConditionalUpdate: the RFC 2136 sections of each precondition and
// change, and what is refused before anything is sent.
func TestConditionalUpdate(t *testing.T) {
	ttl := uint32(300)
	prereq, update, err := ConditionalUpdate(
		[]zonemodel.Precondition{
			zonemodel.RRsetExists("a.example.com.", "A", []string{"192.0.2.1", "192.0.2.2"}),
			zonemodel.RRsetExists("b.example.com.", "TXT", nil),
			zonemodel.RRsetAbsent("c.example.com.", "TYPE65534"),
		},
		[]zonemodel.Change{
			{Op: zonemodel.OpReplace, Name: "a.example.com.", Type: "A", Values: []string{"192.0.2.3"}, TTL: &ttl},
			{Op: zonemodel.OpRemove, Name: "m.example.com.", Type: "MX", Value: "10 mail"},
			{Op: zonemodel.OpDelete, Name: "d.example.com.", Type: "cname"},
			{Op: zonemodel.OpAdd, Name: "s.example.com.", Type: "SRV", Value: "1 2 443 a.example.com", TTL: &ttl},
		})
	if err != nil {
		t.Fatal(err)
	}
	str := func(rrs []dns.RR) string {
		var s []string
		for _, rr := range rrs {
			s = append(s, rr.String())
		}
		return strings.Join(s, " | ")
	}
	if got, want := str(prereq), "a.example.com.\t0\tIN\tA\t192.0.2.1 | a.example.com.\t0\tIN\tA\t192.0.2.2 | b.example.com.\t0\tCLASS255\tTXT\t | c.example.com.\t0\tNONE\tTYPE65534\t"; got != want {
		t.Errorf("prerequisites:\n got %s\nwant %s", got, want)
	}
	if got, want := str(update), "a.example.com.\t0\tCLASS255\tA\t | a.example.com.\t300\tIN\tA\t192.0.2.3 | m.example.com.\t0\tNONE\tMX\t10 mail. | d.example.com.\t0\tCLASS255\tCNAME\t | s.example.com.\t300\tIN\tSRV\t1 2 443 a.example.com."; got != want {
		t.Errorf("updates:\n got %s\nwant %s", got, want)
	}

	_, _, err = ConditionalUpdate(
		[]zonemodel.Precondition{{Name: "a.example.com.", Type: "NOPE", Exists: true}},
		[]zonemodel.Change{
			{Op: zonemodel.OpAdd, Name: "a.example.com.", Type: "A", Value: "192.0.2.1"},
			{Op: zonemodel.OpAdd, Name: "a.example.com.", Type: "A", Value: "not-an-ip", TTL: &ttl},
			{Op: zonemodel.OpRemove, Name: "a.example.com.", Type: "A", Value: "192.0.2.1\nb.example.com. 1 IN A 192.0.2.2"},
			{Op: "upsert", Name: "a.example.com.", Type: "A"},
			{Op: zonemodel.OpDelete, Name: "a.example.com.", Type: "MX", Priority: new(uint16)},
		})
	var ve *zonemodel.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 6 {
		t.Fatalf("invalid preconditions and changes: %v (%T), want a ValidationError of 6 problems", err, err)
	}
	for i, f := range []string{"preconditions[0]", "changes[0]", "changes[1]", "changes[2]", "changes[3]", "changes[4]"} {
		if ve.Problems[i].Field != f {
			t.Errorf("problem %d: %+v, want field %s", i, ve.Problems[i], f)
		}
	}
}
