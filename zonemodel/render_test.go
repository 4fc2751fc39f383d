package zonemodel

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func u32(v uint32) *uint32 { return &v }
func u16(v uint16) *uint16 { return &v }

// testNow is a fixed clock: 2026-11-25 12:00 UTC gives serial 2026112550.
var testNow = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// fullRequest is a primary zone using every kind of content.
func fullRequest() *CreateZoneRequest {
	long := strings.Repeat("0123456789", 30) // 300 bytes: two strings
	return &CreateZoneRequest{
		ZoneName: "Example.COM.",
		ZoneType: "primary",
		ZoneConfig: &ZoneConfig{
			TTL: 3600,
			SOA: &SOA{
				PrimaryNS:  "ns1.example.com.",
				AdminEmail: "host.master@example.com",
				Serial:     u32(2026112501),
			},
			NameServers:   []string{"ns1", "ns2.example.com.", "ns.other.example."},
			NameServerIPs: map[string]string{"ns1": "192.0.2.53", "ns2.example.com.": "2001:db8::53"},
			Records: []Record{
				{Name: "@", Type: "A", Value: "192.0.2.1"},
				{Name: "www", Type: "aaaa", Value: "2001:db8::1", TTL: u32(300)},
				{Name: "@", Type: "MX", Value: "mail.example.com.", Priority: u16(10)},
				{Name: "@", Type: "MX", Value: "20 mail2"},
				{Name: "mail", Type: "A", Value: "192.0.2.25"},
				{Name: "mail2", Type: "A", Value: "192.0.2.26"},
				{Name: "@", Type: "TXT", Value: "v=spf1 mx -all"},
				{Name: "_dmarc", Type: "TXT", Value: `v=DMARC1; p=reject; rua="mailto:d@example.com"`},
				{Name: "long", Type: "TXT", Value: long},
				{Name: "multi", Type: "TXT", Value: `"first string" "second; string"`},
				{Name: "_sip._tcp", Type: "SRV", Value: "5 5060 sip.example.com.", Priority: u16(10)},
				{Name: "sip", Type: "A", Value: "192.0.2.60"},
				{Name: "@", Type: "CAA", Value: `0 issue "letsencrypt.org"`},
				{Name: "ftp.example.com.", Type: "CNAME", Value: "www"},
				{Name: "*.wild", Type: "A", Value: "192.0.2.99"},
			},
		},
	}
}

func TestRenderGolden(t *testing.T) {
	cases := map[string]*CreateZoneRequest{
		"full.example.com.zone": fullRequest(),
		"minimal.example.org.zone": {
			ZoneName: "example.org",
			ZoneType: "primary",
			ZoneConfig: &ZoneConfig{
				TTL:         60,
				SOA:         &SOA{PrimaryNS: "ns.example.net.", AdminEmail: "hostmaster"},
				NameServers: []string{"ns.example.net."},
			},
		},
	}
	for file, req := range cases {
		t.Run(file, func(t *testing.T) {
			z, err := req.Normalize(testNow)
			if err != nil {
				t.Fatalf("Normalize: %v", err)
			}
			got, err := z.RenderFile()
			if err != nil {
				t.Fatalf("RenderFile: %v", err)
			}
			path := filepath.Join("testdata", file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading golden file (run with -update): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("rendered file differs from %s (run with -update):\n--- got\n%s\n--- want\n%s", path, got, want)
			}
			checkZoneWithBIND(t, z.Name, path)
		})
	}
}

// checkZoneWithBIND runs named-checkzone on a file when BIND is installed.
func checkZoneWithBIND(t *testing.T, zone, path string) {
	t.Helper()
	bin, err := exec.LookPath("named-checkzone")
	if err != nil {
		for _, p := range []string{"/usr/bin/named-checkzone", "/usr/sbin/named-checkzone"} {
			if _, err := os.Stat(p); err == nil {
				bin = p
			}
		}
	}
	if bin == "" {
		t.Log("named-checkzone not installed; skipping the BIND check")
		return
	}
	out, err := exec.Command(bin, "-k", "fail", "-n", "fail", "-i", "full", zone, path).CombinedOutput()
	if err != nil {
		t.Fatalf("named-checkzone rejects %s: %v\n%s", path, err, out)
	}
	t.Logf("named-checkzone: %s", bytes.TrimSpace(out))
}

func TestRenderDetails(t *testing.T) {
	z, err := fullRequest().Normalize(testNow)
	if err != nil {
		t.Fatal(err)
	}
	text, err := z.RenderFile()
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	for _, want := range []string{
		"ns2.example.com.\t3600\tIN\tAAAA\t2001:db8::53", // v6 glue is AAAA
		"ns1.example.com.\t3600\tIN\tA\t192.0.2.53",
		"host\\.master.example.com.", // e-mail form converted
		"\"v=spf1 mx -all\"",         // one string
		"\"v=DMARC1; p=reject; rua=\\\"mailto:d@example.com\\\"\"",
		"\"" + strings.Repeat("0123456789", 25) + "01234\" \"56789", // split at 255
		"IN\tMX\t10 mail.example.com.",
		"IN\tMX\t20 mail2.example.com.",
		"IN\tSRV\t10 5 5060 sip.example.com.",
		"ftp.example.com.\t3600\tIN\tCNAME\twww.example.com.",
		"IN\tSOA\tns1.example.com. host\\.master.example.com. 2026112501 3600 600 604800 86400",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("rendered file lacks %q:\n%s", want, s)
		}
	}
	// Parses back to the same records.
	zp := dns.NewZoneParser(strings.NewReader(s), "", "")
	n := 0
	for _, ok := zp.Next(); ok; _, ok = zp.Next() {
		n++
	}
	if zp.Err() != nil || n != len(z.Records()) {
		t.Errorf("parsed %d records (err %v), want %d", n, zp.Err(), len(z.Records()))
	}
}

func TestRenderSecondaryFails(t *testing.T) {
	z, err := (&CreateZoneRequest{ZoneName: "s.example", ZoneType: "secondary",
		ZoneConfig: &ZoneConfig{Primaries: []string{"192.0.2.1"}}}).Normalize(testNow)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.RenderFile(); err == nil {
		t.Error("RenderFile of a secondary zone succeeded")
	}
}

func minimalConfig() *ZoneConfig {
	return &ZoneConfig{
		TTL:         3600,
		SOA:         &SOA{PrimaryNS: "ns1.example.net.", AdminEmail: "hostmaster.example.net."},
		NameServers: []string{"ns1.example.net."},
	}
}
