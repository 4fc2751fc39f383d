package zonemodel

import "github.com/miekg/dns"

// parseQuotedTXT parses the data of a TXT or SPF record given as quoted
// character-strings (`"v=spf1 mx -all"`, `"a" "b"`, as the PowerDNS API
// and ACME clients send it) without the master-file parser, accepting
// only what that parser takes as the same strings: one or more quoted
// strings of 1 to 255 printable ASCII characters without a backslash or
// quote, separated by spaces. It returns nil for any other type or value
// (escapes, empty or longer strings, unquoted text), which the parser
// then handles (and explains).
func parseQuotedTXT(hdr dns.RR_Header, value string) dns.RR {
	if hdr.Rrtype != dns.TypeTXT && hdr.Rrtype != dns.TypeSPF {
		return nil
	}
	var txt []string
	for i := 0; i < len(value); {
		if len(txt) > 0 {
			// Strings are separated by at least one space.
			if value[i] != ' ' {
				return nil
			}
			for i < len(value) && value[i] == ' ' {
				i++
			}
			if i == len(value) {
				return nil
			}
		}
		if value[i] != '"' {
			return nil
		}
		start := i + 1
		end := start
		for end < len(value) && value[end] != '"' {
			if c := value[end]; c < 0x20 || c > 0x7e || c == '\\' {
				return nil
			}
			end++
		}
		if end == len(value) || end == start || end-start > 255 {
			return nil
		}
		txt = append(txt, value[start:end])
		i = end + 1
	}
	if len(txt) == 0 {
		return nil
	}
	if hdr.Rrtype == dns.TypeSPF {
		return &dns.SPF{Hdr: hdr, Txt: txt}
	}
	return &dns.TXT{Hdr: hdr, Txt: txt}
}
