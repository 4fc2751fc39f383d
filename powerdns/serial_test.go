package powerdns

import (
	"fmt"
	"testing"
	"time"
)

// TestCreateSerial: a new zone's serial follows its SOA-EDIT-API as
// PowerDNS's documentation of SOA-EDIT-API gives it.
func TestCreateSerial(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)
	epoch := uint32(now.Unix())
	for _, c := range []struct {
		given     uint32
		api, edit string
		want      uint32
	}{
		{0, "DEFAULT", "", 2026112701},
		{22, "default", "", 2026112701},
		{2026112701, "DEFAULT", "", 2026112702},
		{2030010105, "DEFAULT", "", 2030010106},
		{22, "", "", 22},
		{22, "INCREASE", "", 23},
		{10, "EPOCH", "", epoch},
		{0, "SOA-EDIT-INCREASE", "INCEPTION-INCREMENT", 2026112701},
		{2030010105, "SOA-EDIT-INCREASE", "INCEPTION-INCREMENT", 2030010106},
		{5, "SOA-EDIT", "NONE", 5},
		{5, "SOA-EDIT", "EPOCH", epoch},
		{5, "SOA-EDIT-INCREASE", "NONE", 6},
		{7, "NOT-A-KIND", "", 7},
	} {
		if got := CreateSerial(c.given, c.api, c.edit, now); got != c.want {
			t.Errorf("CreateSerial(%d, %q, %q) = %d, want %d", c.given, c.api, c.edit, got, c.want)
		}
	}
}

// TestCreateRequestSerial: a create without soa_edit_api gets
// SOA-EDIT-API DEFAULT's serial, YYYYMMDD01 (test_create_zone_dnssec_serial),
// where it got the zone API's time-of-day serial; soa_edit_api "" keeps
// the serial given (test_create_zone).
func TestCreateRequestSerial(t *testing.T) {
	serial := func(req *ZoneRequest) uint32 {
		t.Helper()
		out, _, err := CreateRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		if out.ZoneConfig.SOA.Serial == nil {
			t.Fatalf("%+v: no serial", req)
		}
		return *out.ZoneConfig.SOA.Serial
	}
	base := func() *ZoneRequest {
		return &ZoneRequest{Name: "serial.test.", Kind: "Native", Nameservers: []string{"ns1.example.com."}}
	}
	before := dateSerial(time.Now())
	got := serial(base())
	if after := dateSerial(time.Now()); got != before && got != after {
		t.Errorf("default serial = %d, want %d (YYYYMMDD01)", got, before)
	}
	off, n := "", uint32(22)
	req := base()
	req.SOAEditAPI, req.Serial = &off, &n
	if got := serial(req); got != 22 {
		t.Errorf("soa_edit_api \"\" serial 22 = %d", got)
	}
	epoch := "EPOCH"
	req.SOAEditAPI = &epoch
	if got := serial(req); got < uint32(time.Now().Unix())-5 {
		t.Errorf("soa_edit_api EPOCH = %d", got)
	}
	req = base()
	req.SOAEditAPI = &off
	req.RRsets = []RRset{{Name: "serial.test.", Type: "SOA", Records: []Record{{Content: "ns1.example.net. h.example.net. 10 10800 3600 604800 3600"}}}}
	if got := serial(req); got != 10 {
		t.Errorf("soa_edit_api \"\" with an SOA of serial 10 = %d", got)
	}
}

// TestCreateRequestDefaultSOA: a zone created without an SOA RRset gets
// PowerDNS's default-soa-content, "a.misconfigured.dns.server.invalid.
// hostmaster.<zone> <serial> 10800 3600 604800 3600", serial 0 with
// soa_edit_api "" (test_export_zone_json, test_search_rr_exact_zone);
// before, its first name server and the zone API's timers.
func TestCreateRequestDefaultSOA(t *testing.T) {
	off := ""
	out, _, err := CreateRequest(&ZoneRequest{Name: "soa.test.", Kind: "Native", Nameservers: []string{"ns1.example.com."}, SOAEditAPI: &off})
	if err != nil {
		t.Fatal(err)
	}
	soa := out.ZoneConfig.SOA
	got := fmt.Sprintf("%s %s %d %d %d %d %d", soa.PrimaryNS, soa.AdminEmail, *soa.Serial, *soa.Refresh, *soa.Retry, *soa.Expire, *soa.NegativeTTL)
	if want := "a.misconfigured.dns.server.invalid. hostmaster.soa.test. 0 10800 3600 604800 3600"; got != want {
		t.Errorf("SOA = %s, want %s", got, want)
	}
	if _, err := out.Normalize(time.Now()); err != nil {
		t.Fatalf("the zone model refuses it: %v", err)
	}
}
