// Package txtdata converts between TXT record text as clients give it (one
// string of any length, any bytes) and the master-file form that
// miekg/dns reads and writes (quoted character-strings of at most 255
// bytes, with \X and \DDD escapes). The libdns provider and the
// external-dns webhook both need it.
package txtdata

import (
	"fmt"
	"strings"
)

// Quote returns s as master-file TXT data: quoted strings of at most 255
// bytes each, with quotes, backslashes and non-printable bytes escaped.
// The empty string gives one empty string, `""`.
func Quote(s string) string {
	return `"` + strings.Join(Split(s), `" "`) + `"`
}

// Split returns s as TXT character-strings of at most 255 bytes each,
// escaped as miekg/dns holds them (presentation form without the quotes:
// quotes and backslashes as \X, non-printable bytes as \DDD). The empty
// string gives one empty string.
func Split(s string) []string {
	var out []string
	for len(s) > 0 || len(out) == 0 {
		n := min(len(s), 255)
		var b strings.Builder
		for i := 0; i < n; i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < ' ' || c > '~':
				fmt.Fprintf(&b, "\\%03d", c)
			default:
				b.WriteByte(c)
			}
		}
		out = append(out, b.String())
		s = s[n:]
	}
	return out
}

// Join returns the bytes of a TXT record's strings, as miekg/dns holds
// them (dns.TXT.Txt: presentation form, with \X and \DDD escapes),
// concatenated into one string.
func Join(txt []string) string {
	var b strings.Builder
	for _, s := range txt {
		unescape(&b, s)
	}
	return b.String()
}

// unescape writes the bytes of one presentation-form string to b.
func unescape(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			b.WriteByte((s[i+1]-'0')*100 + (s[i+2]-'0')*10 + (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i+1])
		i++
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
