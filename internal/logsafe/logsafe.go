// Package logsafe makes text that a client chooses, and that the module
// cannot refuse, safe to put in a log line: the User-Agent header and the
// identity a credential names (a JWT's sub claim, a Kubernetes user name).
// Such text may hold control characters (a line feed that forges a line,
// an escape sequence that rewrites a terminal), Unicode format characters
// (a right-to-left override that shows "exe.txt" as "txt.exe") or be
// megabytes long. Text escapes what is not printable and caps the length;
// every log line that carries such text passes it through here. The
// request bodies zone_api's debug log carries pass through RedactJSON,
// which hides the values of secret-looking keys, and LimitedWriter, which
// bounds how much of a body is kept.
package logsafe

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the most bytes of a value Text keeps, escapes counted.
const MaxLen = 256

// Text returns s as a log line may carry it: Limit(s, MaxLen).
func Text(s string) string { return Limit(s, MaxLen) }

// Limit returns s with every character that is not printable escaped, cut
// after max bytes. Printable means unicode.IsPrint: letters, marks,
// numbers, punctuation, symbols and the ASCII space; so control
// characters (C0, DEL, C1), format characters (bidirectional overrides,
// embeddings, isolates and marks, zero-width characters), other spaces,
// line and paragraph separators, private-use and unassigned code points
// are escaped as \uXXXX (\U00XXXXXX above the BMP), a byte that is not
// UTF-8 as \xNN, and a backslash as \\, so that the escaped text reads
// back unambiguously. When the result would be longer than max bytes it
// is cut at a character (or escape) boundary and "...[N bytes]" follows,
// N being the length of s. A string with nothing to escape and at most
// max bytes is returned as it is, without allocating.
func Limit(s string, max int) string {
	if len(s) <= max && plainASCII(s) {
		return s
	}
	out := make([]byte, 0, min(len(s), max)+16)
	truncated := false
	for i := 0; i < len(s); {
		var piece []byte
		var buf [10]byte
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			piece = append(buf[:0], '\\', 'x', hex[s[i]>>4], hex[s[i]&0xf])
		case r == '\\':
			piece = append(buf[:0], '\\', '\\')
		case unicode.IsPrint(r):
			piece = []byte(s[i : i+size])
		case r < 0x10000:
			piece = append(buf[:0], '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			piece = append(buf[:0], '\\', 'U')
			for shift := 28; shift >= 0; shift -= 4 {
				piece = append(piece, hex[r>>shift&0xf])
			}
		}
		if len(out)+len(piece) > max {
			truncated = true
			break
		}
		out = append(out, piece...)
		i += size
	}
	if truncated {
		out = append(out, "...["...)
		out = strconv.AppendInt(out, int64(len(s)), 10)
		out = append(out, " bytes]"...)
	}
	return string(out)
}

const hex = "0123456789abcdef"

// plainASCII reports whether s holds only printable ASCII other than the
// backslash: what Limit keeps as it is.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return true
}
