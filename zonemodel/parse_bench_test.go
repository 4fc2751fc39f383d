package zonemodel

import "testing"

// BenchmarkParseRecord is one record of a change parsed and validated as
// a PATCH or POST of records does (ParseRecordInto), by type.
func BenchmarkParseRecord(b *testing.B) {
	ttl := uint32(60)
	prio := uint16(10)
	for _, c := range []struct {
		typ, value string
		prio       *uint16
	}{
		{"A", "192.0.2.1", nil}, {"AAAA", "2001:db8::1", nil}, {"TXT", "v=spf1 mx -all", nil}, {"TXT", `"v=spf1 mx -all"`, nil}, {"MX", "mail.example.com.", &prio},
	} {
		b.Run(c.typ, func(b *testing.B) {
			for b.Loop() {
				ve := &ValidationError{}
				if ParseRecordInto("example.com", 300, "www", c.typ, c.value, &ttl, c.prio, "changes[0]", "value", ve) == nil {
					b.Fatal(ve)
				}
			}
		})
	}
}

// BenchmarkHasRelativeNames is the PowerDNS API's absolute-names check of
// one record's content, by type.
func BenchmarkHasRelativeNames(b *testing.B) {
	for _, c := range [][2]string{{"TXT", `"v=spf1 mx -all"`}, {"A", "192.0.2.1"}, {"MX", "10 mail.example.com."}} {
		b.Run(c[0], func(b *testing.B) {
			for b.Loop() {
				if HasRelativeNames(c[0], c[1]) {
					b.Fatal(c)
				}
			}
		})
	}
}
